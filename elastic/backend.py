"""The interface both search backends implement, and the choice between them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

import numpy as np

from elastic.records import StatementChunk, Transaction
from elastic.results import (
    AggregateResult,
    ListingResult,
    StatementHit,
    TextQAResult,
    TrendResult,
    Vocabulary,
)
from llm.intent_plan import IntentPlan
from settings import Settings


class BackendUnavailable(RuntimeError):
    """The search backend cannot be reached or answered with an error."""


class EmbeddingMismatch(RuntimeError):
    """Stored vectors were made by another embedding model or have another dimension."""


@dataclass(frozen=True)
class WriteCounts:
    indexed: int
    skipped: int
    failed: dict[str, str]  # document id → reason


@dataclass(frozen=True)
class StatementInfo:
    statement_id: str
    bank_name: str
    account_name: str
    account_no: str
    statement_from: date
    statement_to: date
    pages: int
    source_file: str


class SearchBackend(Protocol):
    name: str

    def prepare(self, dims: int, embedding_model: str) -> None:
        """Create the stores if missing; raise EmbeddingMismatch if they hold other vectors."""

    def add_transactions(self, user_id: str, rows: Sequence[Transaction]) -> WriteCounts: ...

    def missing_chunks(self, user_id: str, doc_ids: Sequence[str]) -> set[str]:
        """The ids among ``doc_ids`` not stored yet, so re-ingesting embeds nothing twice."""

    def add_statement_chunks(
        self,
        user_id: str,
        chunks: Sequence[StatementChunk],
        vectors: np.ndarray,
        embedding_model: str,
    ) -> WriteCounts: ...

    def aggregate(self, user_id: str, plan: IntentPlan) -> AggregateResult: ...

    def trend(self, user_id: str, plan: IntentPlan) -> TrendResult: ...

    def listing(
        self, user_id: str, plan: IntentPlan, after: list[object] | None = None
    ) -> ListingResult: ...

    def text_qa(
        self, user_id: str, plan: IntentPlan, query_vector: np.ndarray | None
    ) -> TextQAResult: ...

    def vocabulary(self, user_id: str) -> Vocabulary: ...

    def statements(self, user_id: str) -> list[StatementInfo]: ...

    def statement_chunks(self, user_id: str, statement_id: str) -> list[StatementHit]: ...

    def close(self) -> None: ...


def open_backend(settings: Settings) -> SearchBackend:
    """Elasticsearch when ``FINSYNC_ES_URL`` is set, the embedded SQLite store otherwise."""
    if settings.es_url:
        from elastic.es_backend import ElasticsearchBackend

        return ElasticsearchBackend(settings)
    from elastic.embedded_backend import EmbeddedBackend

    return EmbeddedBackend(settings)
