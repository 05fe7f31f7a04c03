"""The documents FinSync Chat stores: transactions and statement page chunks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

Box = tuple[float, float, float, float]
"""x0, top, x1, bottom in PDF points from the page's top-left corner."""


@dataclass(slots=True)
class Transaction:
    """One stored transaction. Not frozen, like ``ParsedRow``: an import builds one per row,
    and a frozen dataclass pays for every field it sets. Nothing changes one once built."""

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
    # Where the row came from and what was inferred about it (shown on the Sources page).
    source_file: str = ""
    location: str = ""  # "line 12", "entry 3" or "page 2"
    raw_description: str = ""  # the descriptor exactly as the file printed it ("": not kept)
    merchant_inferred: bool = False  # normalised from the descriptor, not given by the file
    category_inferred: bool = False  # from rules, history or a model, not given by the file
    page: int | None = None  # statement PDFs: the page and box of the printed row
    box: Box | None = None

    @property
    def amount_cents(self) -> int:
        return int(self.amount * 100)

    def as_document(self, user_id: str) -> dict[str, object]:
        """The stored form shared by both backends; money as integer cents, exact to the cent."""
        cents = self.amount_cents
        return {
            "transaction_id": self.transaction_id,
            "user_id": user_id,
            "date": self.date.isoformat(),
            "description": self.description,
            "amount_cents": cents,
            "magnitude_cents": abs(cents),
            "currency": self.currency,
            "category": self.category,
            "merchant": self.merchant,
            "account_no": self.account_no,
            "account_name": self.account_name,
            "bank_name": self.bank_name,
            "balance_cents": None if self.balance is None else int(self.balance * 100),
            "source_file": self.source_file,
            "location": self.location,
            "raw_description": self.raw_description,
            "merchant_inferred": self.merchant_inferred,
            "category_inferred": self.category_inferred,
            "page": self.page,
            "box": None if self.box is None else list(self.box),
        }


@dataclass(frozen=True)
class StatementFact:
    """A figure a statement or export states about itself: a balance, a total, a fee, a limit.

    ``name`` is one of ``FACT_NAMES``; ``location`` says where it is printed ("line 14",
    "Bal[2]", "page 1"), and ``page`` and ``box`` are set when it is on a PDF page. Money
    facts have ``amount``; a due date has ``day`` instead; an APR's ``amount`` is percent.
    """

    statement_id: str
    name: str
    amount: Decimal | None
    currency: str
    as_of: date
    account_no: str
    account_name: str
    bank_name: str
    source_file: str
    location: str
    page: int | None = None
    box: Box | None = None
    day: date | None = None
    file_name: str = ""  # the name a kept statement PDF had when imported ("": source_file)

    @property
    def fact_id(self) -> str:
        return f"{self.statement_id}-{self.name}-{self.currency}-{self.as_of.isoformat()}"

    def as_document(self, user_id: str) -> dict[str, object]:
        return {
            "fact_id": self.fact_id,
            "user_id": user_id,
            "statement_id": self.statement_id,
            "name": self.name,
            "amount_cents": None if self.amount is None else int(self.amount * 100),
            "currency": self.currency,
            "as_of": self.as_of.isoformat(),
            "day": None if self.day is None else self.day.isoformat(),
            "box": None if self.box is None else list(self.box),
            "account_no": self.account_no,
            "account_name": self.account_name,
            "bank_name": self.bank_name,
            "source_file": self.source_file,
            "location": self.location,
            "page": self.page,
            "file_name": self.file_name,
        }


FACT_NAMES = (
    "opening_balance",
    "closing_balance",
    "available_balance",
    "money_in",
    "money_out",
    "fees",
    "interest",
    "amount_due",
    "minimum_payment",
    "due_date",
    "credit_limit",
    "apr",
)


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
    source_file: str  # where the PDF is kept: ``<storage key>/<digest>.pdf``
    file_name: str = ""  # the name the PDF had when it was imported

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
            "file_name": self.file_name,
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
    source: str = ""  # the file, when the report is about one
    format: str = ""  # the format detected from its content
    pending: int = 0  # rows the file marks as not booked yet; they do not land
    assumed: list[str] = field(default_factory=list)  # values the file lacked, and what was used

    def merge(self, other: IngestReport) -> None:
        self.indexed += other.indexed
        self.skipped += other.skipped
        self.pending += other.pending
        self.problems.extend(other.problems)

    @property
    def landed_nothing(self) -> bool:
        """Nothing new and nothing already there: the file did not land."""
        return self.indexed == 0 and self.skipped == 0

    def summary(self) -> str:
        text = f"{self.indexed} indexed, {self.skipped} skipped, {len(self.problems)} errors"
        return text + (f", {self.pending} pending not landed" if self.pending else "")
