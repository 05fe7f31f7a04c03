"""The documents FinSync Chat stores: transactions and statement page chunks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal


@dataclass(frozen=True)
class Transaction:
    transaction_id: str
    date: date
    description: str
    amount: Decimal
    currency: str
    category: str
    merchant: str
    account_no: str
    account_name: str
    bank_name: str
    balance: Decimal | None = None

    @property
    def amount_cents(self) -> int:
        return int(self.amount * 100)

    def as_document(self, user_id: str) -> dict[str, object]:
        """The stored form shared by both backends; money as integer cents, exact to the cent."""
        return {
            "transaction_id": self.transaction_id,
            "user_id": user_id,
            "date": self.date.isoformat(),
            "description": self.description,
            "amount_cents": self.amount_cents,
            "magnitude_cents": abs(self.amount_cents),
            "currency": self.currency,
            "category": self.category,
            "merchant": self.merchant,
            "account_no": self.account_no,
            "account_name": self.account_name,
            "bank_name": self.bank_name,
            "balance_cents": None if self.balance is None else int(self.balance * 100),
        }


@dataclass(frozen=True)
class StatementChunk:
    statement_id: str
    account_no: str
    account_name: str
    bank_name: str
    statement_from: date
    statement_to: date
    page: int
    chunk: int
    text: str
    summary_text: str
    source_file: str

    @property
    def doc_id(self) -> str:
        return f"{self.statement_id}-p{self.page}-c{self.chunk}"

    def as_document(
        self, user_id: str, vector: list[float] | None, embedding_model: str
    ) -> dict[str, object]:
        return {
            "statement_id": self.statement_id,
            "user_id": user_id,
            "account_no": self.account_no,
            "account_name": self.account_name,
            "bank_name": self.bank_name,
            "statement_from": self.statement_from.isoformat(),
            "statement_to": self.statement_to.isoformat(),
            "page": self.page,
            "chunk": self.chunk,
            "text": self.text,
            "summary_text": self.summary_text,
            "summary_vector": vector,
            "embedding_model": embedding_model,
            "source_file": self.source_file,
        }


@dataclass(frozen=True)
class IngestProblem:
    """One row or page that did not land, with where it was and why."""

    source: str
    location: str  # "line 12" or "page 3"
    reason: str

    def __str__(self) -> str:
        return f"{self.source}, {self.location}: {self.reason}"


@dataclass
class IngestReport:
    indexed: int = 0
    skipped: int = 0  # already present (idempotent re-ingest)
    problems: list[IngestProblem] = field(default_factory=list)

    def merge(self, other: IngestReport) -> None:
        self.indexed += other.indexed
        self.skipped += other.skipped
        self.problems.extend(other.problems)

    def summary(self) -> str:
        return f"{self.indexed} indexed, {self.skipped} skipped, {len(self.problems)} errors"
