"""A chat turn as it is kept across reloads: the question and the plan it was answered from.

The numbers are not kept: a reload answers the kept plan again (``ChatPipeline.answer_again``),
so what it shows comes from the data as it is now. A file forgotten since is gone from the
answers too, and nothing a user deleted lingers in a kept conversation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import ValidationError

from elastic.model.plan import IntentPlan


@dataclass(frozen=True)
class KeptTurn:
    question: str
    plan: IntentPlan | None  # as answered (narrowed by the sidebar); None when asking failed
    routed: IntentPlan | None  # as asked: what a follow-up amends
    language: str
    asked_on: date
    error: str | None = None  # why asking failed

    def as_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "plan": None if self.plan is None else self.plan.model_dump(mode="json"),
            "routed": None if self.routed is None else self.routed.model_dump(mode="json"),
            "language": self.language,
            "asked_on": self.asked_on.isoformat(),
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KeptTurn | None:
        """The turn ``as_json`` wrote; None for anything else (an older or damaged file)."""
        try:
            plan, routed = data.get("plan"), data.get("routed")
            return cls(
                question=str(data["question"]),
                plan=None if plan is None else IntentPlan.model_validate(plan),
                routed=None if routed is None else IntentPlan.model_validate(routed),
                language=str(data.get("language") or "en"),
                asked_on=date.fromisoformat(str(data["asked_on"])),
                error=None if data.get("error") is None else str(data["error"]),
            )
        except (KeyError, TypeError, ValueError, ValidationError):
            return None
