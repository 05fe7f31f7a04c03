"""The interface both search engines implement (``elastic/engines/`` holds them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

import numpy as np

from elastic.model.plan import IntentPlan
from elastic.model.records import StatementChunk, StatementFact, Transaction
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    Basis,
    FileStats,
    ListingResult,
    RecurringResult,
    ShareResult,
    StatementHit,
    StatementInfo,
    TextQAResult,
    TrendResult,
    Vocabulary,
)


@dataclass(frozen=True)
class WriteCounts:
    indexed: int
    skipped: int
    failed: dict[str, str]  # document id → reason


@dataclass(frozen=True)
class PairRow:
    """What transfer pairing needs to know of a stored transaction."""

    transaction_id: str
    account_no: str
    date: date
    amount_cents: int
    currency: str


@dataclass(frozen=True)
class CategoryMemory:
    """What a user's data says about categories: their corrections, and per merchant the
    category its rows most often carry where a file or the user gave one."""

    overrides: dict[str, str]
    history: dict[str, str]

    @classmethod
    def build(
        cls, overrides: dict[str, str], counts: Iterable[tuple[str, str, int]]
    ) -> CategoryMemory:
        best: dict[str, tuple[int, str]] = {}
        for merchant, category, count in counts:
            seen = best.get(merchant)
            if seen is None or (count, category) > seen:
                best[merchant] = (count, category)
        return cls(overrides, {m: c for m, (_, c) in best.items()})


class SearchBackend(Protocol):
    name: str
    # Whether an import gains by writing a batch on a thread of its own while it cleans the
    # next: so when the store's work happens elsewhere (a node indexing a request) and not
    # under this process's GIL (SQLite binds every row's values holding it).
    background_writes: bool

    def prepare(self, dims: int, embedding_model: str) -> None:
        """Create the stores if missing; raise EmbeddingMismatch if they hold other vectors."""

    def reembed(
        self,
        embed: Callable[[list[str]], np.ndarray],
        dims: int,
        embedding_model: str,
        progress: Callable[[int, int], None],
    ) -> int:
        """Embed every stored page again (every user's: vectors of one store must come from one
        model) and record ``embedding_model``; the number of pages. Nothing changes until all
        vectors are computed, so an interrupted run leaves the old ones in place."""

    def add_transactions(
        self, user_id: str, rows: Sequence[Transaction], visible: bool = True
    ) -> WriteCounts:
        """Store ``rows``; ``visible=False`` lets a long import make them searchable once, with
        its last batch, instead of after every batch."""

    def stored_transactions(self, user_id: str, ids: Sequence[str]) -> dict[str, Transaction]:
        """The user's stored transactions among ``ids``, by id (an import checks the ids a
        file gives against them)."""

    def missing_chunks(self, user_id: str, doc_ids: Sequence[str]) -> set[str]:
        """The ids among ``doc_ids`` not stored yet, so re-ingesting embeds nothing twice."""

    def add_statement_chunks(
        self,
        user_id: str,
        chunks: Sequence[StatementChunk],
        vectors: np.ndarray,
        embedding_model: str,
        visible: bool = True,
    ) -> WriteCounts:
        """Store the pages; ``visible=False`` lets an import of several statements make them
        searchable once, with a last visible write (which may be empty)."""

    def add_facts(
        self, user_id: str, facts: Sequence[StatementFact], visible: bool = True
    ) -> WriteCounts:
        """Store the facts; ``visible=False`` as for ``add_statement_chunks``."""

    def facts(self, user_id: str, plan: IntentPlan) -> list[StatementFact]:
        """The statement facts ``plan.facts`` names, newest first."""

    def category_memory(self, user_id: str) -> CategoryMemory: ...

    def set_merchant_category(self, user_id: str, merchant: str, category: str) -> int:
        """Correct every row of ``merchant`` and remember it for later imports; rows changed."""

    def pair_candidates(self, user_id: str, date_from: date, date_to: date) -> list[PairRow]:
        """Rows in the range whose category was inferred (a given category is never changed)."""

    def mark_transfers(self, user_id: str, transaction_ids: Sequence[str]) -> int: ...

    def set_payment_kinds(self, user_id: str, kinds: Mapping[str, str]) -> int:
        """Give the user's stored rows among ``kinds`` (id → payment kind) whose kind is empty
        that kind; rows that have one keep it. The number of rows changed."""

    def amounts_on_account(
        self, user_id: str, last4: str, date_from: date, date_to: date
    ) -> list[tuple[date, int]]:
        """(date, amount in cents) of stored rows of the account ending in ``last4``."""

    def source_files(self, user_id: str) -> list[str]:
        """Every file the user's transactions came from (names, or stored PDFs)."""

    def file_stats(self, user_id: str) -> dict[str, FileStats]:
        """Per file of ``source_files``: how many rows came from it, and their months."""

    def forget(self, user_id: str, source_files: Sequence[str] | None = None) -> int:
        """Delete the user's rows, pages and facts of ``source_files`` (all of the user's data
        and category corrections when None); the number of documents deleted."""

    def aggregate(self, user_id: str, plan: IntentPlan) -> AggregateResult: ...

    def trend(self, user_id: str, plan: IntentPlan) -> TrendResult: ...

    def statement_rows(self, user_id: str, plan: IntentPlan) -> dict[str, int]:
        """How many of the plan's rows each statement PDF gave, by its stored file name."""

    def share(self, user_id: str, plan: IntentPlan) -> ShareResult:
        """The plan's figure and the whole it is a share of, per currency."""

    def balances(self, user_id: str, plan: IntentPlan) -> BalanceResult:
        """Each account's end-of-day balances over the plan's period."""

    def recurring(self, user_id: str, plan: IntentPlan) -> RecurringResult: ...

    def anomalies(self, user_id: str, plan: IntentPlan) -> AnomalyResult: ...

    def basis(self, user_id: str, plan: IntentPlan) -> Basis:
        """What the plan's figure counts and what it leaves out, with counts."""

    def listing(self, user_id: str, plan: IntentPlan, after: str | None = None) -> ListingResult:
        """A page of rows; ``after`` is the ``next_after`` cursor of the previous page."""

    def text_qa(
        self, user_id: str, plan: IntentPlan, query_vector: np.ndarray | None
    ) -> TextQAResult: ...

    def vocabulary(self, user_id: str) -> Vocabulary: ...

    def statements(self, user_id: str) -> list[StatementInfo]: ...

    def statement_chunks(self, user_id: str, statement_id: str) -> list[StatementHit]: ...

    def close(self) -> None: ...
