"""Conversations kept by the server, per user: where each stands is the plan a follow-up
("and in March?") amends, as the CLI's ``ask --file`` and the chat page keep it."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

from elastic.model.plan import IntentPlan

MAX_PER_USER = 200  # the user's least recently continued conversations beyond this are dropped


class UnknownConversation(KeyError):
    """A conversation id that is not one of the user's (never started, dropped, or another's)."""


class Conversations:
    def __init__(self, per_user: int = MAX_PER_USER) -> None:
        self._per_user = per_user
        self._plans: dict[str, OrderedDict[str, IntentPlan | None]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def new_id() -> str:
        return secrets.token_urlsafe(12)

    def previous(self, user_id: str, conversation_id: str) -> IntentPlan | None:
        """The plan the user's conversation stands on (None before any result);
        ``UnknownConversation`` when the user has none of that id."""
        with self._lock:
            plans = self._plans.get(user_id)
            if plans is None or conversation_id not in plans:
                raise UnknownConversation(conversation_id)
            plans.move_to_end(conversation_id)
            return plans[conversation_id]

    def record(self, user_id: str, conversation_id: str, plan: IntentPlan | None) -> None:
        """Where the conversation stands after an answer."""
        with self._lock:
            plans = self._plans.setdefault(user_id, OrderedDict())
            plans[conversation_id] = plan
            plans.move_to_end(conversation_id)
            while len(plans) > self._per_user:
                plans.popitem(last=False)
