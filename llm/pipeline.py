"""Question → plan → result → answer: the one pipeline the CLI and the Streamlit app share."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Protocol, runtime_checkable

import numpy as np
from pydantic import ValidationError

from elastic.backend import SearchBackend
from elastic.chat_store import ChatStore
from elastic.ingest.landing import Forgotten, forget
from elastic.model.plan import Direction, Intent, IntentPlan, Message, Metric
from elastic.model.results import (
    ListingResult,
    RecurringResult,
    StatementHit,
    StatementInfo,
    TextQAResult,
    Vocabulary,
)
from elastic.statement_store import StatementStore
from llm.answering.answer import Answer, Citation, Result
from llm.answering.composer import compose_answer
from llm.answering.wording import wording
from llm.conversation import KeptTurn
from llm.embeddings import EMBEDDING_FAILURES, Embedder
from llm.executor import account_for, execute, stated_figure, statement_lines, statements_behind
from llm.first_screen import FirstScreen, first_screen
from llm.sources import SourceFile, list_sources, resolve
from llm.understanding.language import question_language

log = logging.getLogger(__name__)


class Router(Protocol):
    """What routes a question: the offline rules, or Gemini with the rules as fallback."""

    def route(
        self, question: str, as_of: date, previous: IntentPlan | None = None
    ) -> IntentPlan: ...


class Composer(Protocol):
    """What rewrites a composed answer: Gemini, checked against the computed numbers."""

    def compose(self, question: str, answer: Answer) -> Answer: ...


class AnswerStream(Protocol):
    """Verified pieces of a rewritten answer; ``answer`` is final once they are consumed."""

    answer: Answer

    def __iter__(self) -> Iterator[str]: ...


@runtime_checkable
class StreamingComposer(Protocol):
    """A composer that can hand out its wording piece by piece as it is written (Gemini)."""

    def compose(self, question: str, answer: Answer) -> Answer: ...

    def stream(self, question: str, answer: Answer) -> AnswerStream: ...


@dataclass(frozen=True)
class Scope:
    """Filters the user set in the sidebar; they constrain every question."""

    accounts: tuple[str, ...] = ()
    date_from: date | None = None
    date_to: date | None = None

    def conflict(self, plan: IntentPlan) -> Message | None:
        """Why ``plan`` (or one side of its comparison) asks for something the sidebar filters
        exclude, if it does."""
        for part in (plan, *plan.compare):
            if reason := self._outside(part.accounts, part.date_from, part.date_to):
                return reason
        return None

    def _outside(
        self, accounts: list[str], date_from: date | None, date_to: date | None
    ) -> Message | None:
        outside = [a for a in accounts if self.accounts and a not in self.accounts]
        if outside and len(outside) == len(accounts):
            fields = {"accounts": outside, "selected": list(self.accounts)}
            return Message(key="outside_accounts", fields=fields)
        starts_late = date_to and self.date_from and date_to < self.date_from
        ends_early = date_from and self.date_to and date_from > self.date_to
        if starts_late or ends_early:
            return Message(key="outside_dates")
        return None

    def apply(self, plan: IntentPlan) -> IntentPlan:
        """``plan`` and each side of its comparison narrowed to the sidebar's accounts and
        dates (after ``conflict`` is None)."""
        sides = [
            side.model_copy(update=self._narrowing(side.accounts, side.date_from, side.date_to))
            for side in plan.compare
        ]
        update = self._narrowing(plan.accounts, plan.date_from, plan.date_to, shared=True)
        if sides != plan.compare:
            update["compare"] = sides
        return plan.model_copy(update=update) if update else plan

    def _narrowing(
        self,
        accounts: list[str],
        date_from: date | None,
        date_to: date | None,
        shared: bool = False,
    ) -> dict[str, object]:
        """The changes that keep these filters inside the sidebar's. Only the shared filters
        widen "any account" or "all time" to the sidebar's; a side without accounts or dates
        takes the shared ones."""
        update: dict[str, object] = {}
        if self.accounts and (accounts or shared):
            update["accounts"] = [a for a in accounts if a in self.accounts] or list(self.accounts)
        if date_from or date_to or shared:
            if self.date_from and (date_from is None or date_from < self.date_from):
                update["date_from"] = self.date_from
            if self.date_to and (date_to is None or date_to > self.date_to):
                update["date_to"] = self.date_to
        return update


def _quiet(stage: str) -> None:
    return None


def _unheard(piece: str) -> None:
    return None


@dataclass
class Timer:
    """Times each stage and announces it as it starts (the UI shows progress from it)."""

    on_stage: Callable[[str], None] = _quiet
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.on_stage(name)
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = (time.perf_counter() - start) * 1000


TextProbe = Callable[[str], bool]
"""``describes(text)``: whether any of the user's transactions mentions ``text``."""
RouterFactory = Callable[[Vocabulary, TextProbe], Router]
ROUTER_TTL_S = 300.0
# A plan the router could not build: the question's dates or amounts do not fit together.
UNPLACEABLE = Message(key="unplaceable")


class ChatPipeline:
    """Holds the backend, embedder, router and composer; models load once per process."""

    def __init__(
        self,
        backend: SearchBackend,
        embedder: Embedder,
        router_factory: RouterFactory,
        composer: Composer | None = None,
        chats: ChatStore | None = None,
    ) -> None:
        self.backend = backend
        self.embedder = embedder
        self._router_factory = router_factory
        self.composer = composer
        self.chats = chats  # the app's conversations, kept across reloads
        self._routers: dict[str, tuple[float, Router]] = {}

    def router_for(self, user_id: str) -> Router:
        """The user's router, rebuilt when its vocabulary may be stale (another process, such
        as ``finsync ingest``, may have added merchants or accounts)."""
        built = self._routers.get(user_id)
        if built is None or time.monotonic() - built[0] > ROUTER_TTL_S:
            router = self._router_factory(
                self.backend.vocabulary(user_id), self._text_probe(user_id)
            )
            self._routers[user_id] = (time.monotonic(), router)
            return router
        return built[1]

    def _text_probe(self, user_id: str) -> TextProbe:
        """Lets the router take a name no merchant carries as words of the descriptions."""

        def describes(text: str) -> bool:
            plan = IntentPlan(
                intent=Intent.aggregate, direction=Direction.any, metric=Metric.count, text=text
            )
            return self.backend.aggregate(user_id, plan).count > 0

        return describes

    def data_changed(self, user_id: str) -> None:
        """New data landed: the vocabulary the router matches against must be read again."""
        self._routers.pop(user_id, None)

    def _query_vector(self, plan: IntentPlan) -> np.ndarray | None:
        try:
            return self.embedder.embed([plan.text or ""])[0]
        except EMBEDDING_FAILURES as exc:  # optional for text search: keywords still answer
            log.warning("embedding the question failed; searching by keywords only: %r", exc)
            return None

    def _plan(
        self,
        question: str,
        user_id: str,
        as_of: date,
        previous: IntentPlan | None,
        scope: Scope | None,
    ) -> tuple[IntentPlan, IntentPlan]:
        """The plan as routed, and as narrowed to the sidebar scope (or a clarification)."""
        try:
            routed = self._routed(question, user_id, as_of, previous)
        except ValidationError as exc:
            log.warning("the router built no valid plan: %s", exc)
            routed = IntentPlan(intent=Intent.clarify, message=UNPLACEABLE)
        return routed, self._scoped(routed, scope)

    @staticmethod
    def _scoped(routed: IntentPlan, scope: Scope | None) -> IntentPlan:
        """``routed`` narrowed to the sidebar scope, or the clarification that it is outside."""
        if scope is None or routed.intent is Intent.clarify:
            return routed
        problem = scope.conflict(routed)
        if problem:
            return IntentPlan(intent=Intent.clarify, message=problem)
        return scope.apply(routed)

    def _routed(
        self, question: str, user_id: str, as_of: date, previous: IntentPlan | None
    ) -> IntentPlan:
        """The routed plan. A clarification from a router whose vocabulary was read earlier is
        checked once more against a fresh one: "nothing loaded for 2021" or "no Chase account"
        may only mean that another process (``finsync ingest``) has added them since."""
        cached = user_id in self._routers
        routed = self.router_for(user_id).route(question, as_of, previous)
        if cached and routed.intent is Intent.clarify:
            self.data_changed(user_id)
            routed = self.router_for(user_id).route(question, as_of, previous)
        return routed

    def correct_category(self, user_id: str, merchant: str, category: str) -> int:
        """The user's word on a merchant's category: every row of it now, and later imports."""
        changed = self.backend.set_merchant_category(user_id, merchant, category.strip())
        self.data_changed(user_id)
        return changed

    def rows_behind(
        self, user_id: str, citation: Citation, after: str | None = None
    ) -> ListingResult:
        """The transactions a ``transactions`` citation stands for, a page at a time."""
        if citation.rows_plan is None:
            raise ValueError(f"citation [{citation.n}] does not point at transactions")
        return self.backend.listing(user_id, citation.rows_plan, after)

    # --- what the pages show besides answers: always one user's data ---------------------------

    @property
    def backend_name(self) -> str:
        """``elasticsearch`` or ``embedded``: the engine answering, as the sidebar names it."""
        return self.backend.name

    def vocabulary(self, user_id: str) -> Vocabulary:
        """The user's accounts, categories, merchants and date range (sidebar filters)."""
        return self.backend.vocabulary(user_id)

    def first_screen(
        self, user_id: str, as_of: date, language: str = "en", scope: Scope | None = None
    ) -> FirstScreen:
        """The chat's first screen for the user's data: overview tiles and example questions,
        each answered from its plan as ``ask(planned=...)`` answers it (``llm/first_screen.py``)."""
        return first_screen(
            self.backend,
            user_id,
            self.backend.vocabulary(user_id),
            as_of,
            language,
            lambda plan: self._scoped(plan, scope),
        )

    def statements(self, user_id: str) -> list[StatementInfo]:
        return self.backend.statements(user_id)

    def statement_pages(self, user_id: str, statement_id: str) -> list[StatementHit]:
        """The text of every page of one of the user's statements (empty when it is not theirs
        or no longer stored)."""
        return self.backend.statement_chunks(user_id, statement_id)

    def transactions(
        self, user_id: str, plan: IntentPlan, after: str | None = None
    ) -> ListingResult:
        """A page of the user's transactions for browsing; ``after`` is the ``next_after`` of
        the page before, passed through as the backend gave it."""
        if plan.intent is not Intent.listing:
            raise ValueError(f"browsing needs a listing plan, not {plan.intent.value}")
        return self.backend.listing(user_id, plan, after)

    def source_files(self, user_id: str) -> list[str]:
        return self.backend.source_files(user_id)

    def recurring(self, user_id: str) -> RecurringResult:
        """The user's recurring payments and subscriptions (the Sources page lists them)."""
        return self.backend.recurring(user_id, IntentPlan(intent=Intent.listing, recurring=True))

    def sources(self, user_id: str, language: str = "en") -> list[SourceFile]:
        """The user's files as they are shown: by name and the month they cover, with their
        rows and pages (``llm/sources.py``)."""
        return list_sources(self.backend, user_id, language)

    def forget(
        self, user_id: str, store: StatementStore, source_files: list[str] | None = None
    ) -> Forgotten:
        """Delete the user's data of ``source_files`` (all of it when None), kept PDFs too, and
        say what went. A file is named as shown (``SourceFile.name`` or ``label``) or as
        stored; ``Forgotten.files`` are stored names, ``unknown`` the names as given."""
        unknown: list[str] = []
        if source_files is not None:
            source_files, unknown = resolve(self.sources(user_id), source_files)
        forgotten = forget(self.backend, store, user_id, source_files)
        if source_files is None:
            self.forget_conversation(user_id)
        self.data_changed(user_id)
        return replace(forgotten, unknown=[*forgotten.unknown, *unknown])

    # --- the app's conversation, kept across reloads -------------------------------------------

    def kept_conversation(self, user_id: str) -> list[KeptTurn]:
        """The user's kept turns, oldest first (none without a store)."""
        if self.chats is None:
            return []
        turns = (KeptTurn.from_json(turn) for turn in self.chats.load(user_id))
        return [turn for turn in turns if turn is not None]

    def keep_conversation(self, user_id: str, turns: list[KeptTurn]) -> bool:
        """Keep ``turns`` as the user's conversation; False (logged) when it cannot be written,
        which costs the next reload its history and nothing else."""
        if self.chats is None:
            return False
        try:
            self.chats.save(user_id, [turn.as_json() for turn in turns])
        except (OSError, ValueError) as exc:
            log.warning("the conversation could not be kept: %s", exc)
            return False
        return True

    def forget_conversation(self, user_id: str) -> None:
        if self.chats is not None:
            self.chats.forget(user_id)

    def answer_again(self, user_id: str, turn: KeptTurn) -> Answer:
        """A kept turn answered again from its plan, as of the day it was asked."""
        if turn.plan is None:
            raise ValueError("the turn has no plan to answer")
        answer = self.ask(
            turn.question,
            user_id,
            turn.asked_on,
            rewrite=False,
            planned=turn.plan,
            language=turn.language,
        )
        answer.routed_plan = turn.routed
        return answer

    def ask(
        self,
        question: str,
        user_id: str,
        as_of: date,
        previous: IntentPlan | None = None,
        scope: Scope | None = None,
        rewrite: bool = True,
        on_stage: Callable[[str], None] = _quiet,
        planned: IntentPlan | None = None,
        language: str | None = None,
    ) -> Answer:
        """Answer ``question``; ``rewrite=False`` skips Gemini's wording (the UI streams it).

        A ``planned`` question (an example, a tile, a next step: ``llm/planned.py``) is answered
        from its plan, narrowed to ``scope``, without routing its words; ``language`` is the
        answer's language when the question's words do not say it (a button's "By month").

        ``on_stage`` hears "route", "search" and "compose" as each begins. A backend that fails
        raises ``BackendUnavailable`` (an outage) or ``QueryRejected`` (a bug, logged with the
        request) from ``elastic.backend``, worded to be shown as they are: an outage answered
        as a clarification would blame the question.
        """
        timer = Timer(on_stage)
        language = language or question_language(question)
        with timer.stage("route"):
            if planned is None:
                routed, plan = self._plan(question, user_id, as_of, previous, scope)
            else:
                routed, plan = planned, self._scoped(planned, scope)
        with timer.stage("search"):
            plan = stated_figure(self.backend, user_id, question, plan)
            payee = None
            if _unknown_name(routed) and plan.intent is Intent.clarify:
                # A payee no transaction names may be printed on lines that did not land.
                words = wording(language).words("payee.question_words")
                payee = statement_lines(self.backend, user_id, question, words)
            if payee is not None:
                plan = IntentPlan(intent=Intent.text_qa, text=question)
                result: Result | None = TextQAResult(hits=[hit for hit, _ in payee.lines])
            else:
                vector = self._query_vector(plan) if plan.intent is Intent.text_qa else None
                result = execute(self.backend, user_id, plan, vector)
            behind = statements_behind(self.backend, user_id, plan) if result else []
            basis = account_for(self.backend, user_id, plan, result)
        with timer.stage("compose"):
            answer = compose_answer(
                plan, result, self.embedder.embed, routed, language, behind, payee, basis
            )
            if rewrite and self.composer is not None and result is not None:
                answer = self.composer.compose(question, answer)
        answer.timings_ms = timer.timings
        return answer

    def rewrites(self, answer: Answer) -> bool:
        """Whether ``write`` would reword ``answer`` (a composer is configured and there are
        numbers or passages to word)."""
        return self.composer is not None and answer.result is not None

    def write(
        self, question: str, answer: Answer, on_text: Callable[[str], None] = _unheard
    ) -> Answer:
        """The composer's wording of an answer ``ask(..., rewrite=False)`` computed.

        ``on_text`` hears the verified pieces as they are written (a streaming composer) or the
        whole text at once; the pieces are a preview, the returned answer is what to show. Its
        timings gain "write".
        """
        composer = self.composer
        if composer is None or answer.result is None:
            return answer
        started = time.perf_counter()
        if isinstance(composer, StreamingComposer):
            stream = composer.stream(question, answer)
            for piece in stream:
                on_text(piece)
            final = stream.answer
        else:
            final = composer.compose(question, answer)
            on_text(final.text)
        final.timings_ms = {**answer.timings_ms, "write": (time.perf_counter() - started) * 1000}
        return final


def _unknown_name(routed: IntentPlan) -> bool:
    """Whether the router asked back because the question names something the user's
    transactions do not (never a question outside FinSync, nor one it could not place)."""
    return routed.intent is Intent.clarify and bool(
        routed.message and routed.message.key == "unknown_name"
    )
