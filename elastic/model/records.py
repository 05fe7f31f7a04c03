"""The documents FinSync Chat stores: transactions and statement page chunks."""

from __future__ import annotations

import json
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
    payment_kind: str = ""  # how the money moved (a PaymentKind value); "": not known
    # Statement PDFs: whether the statement's rows reconcile with its balances (RECONCILED,
    # OFF or UNCHECKED); "" for rows of other files.
    reconciliation: str = ""

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
            "payment_kind": self.payment_kind,
            "reconciliation": self.reconciliation,
        }


RECONCILED = "reconciled"  # opening + money in - money out = closing, running balances agree
OFF = "off"  # the rows do not reach the closing balance (or a printed running balance)
UNCHECKED = "unchecked"  # the statement prints no balance to check its rows against


@dataclass(frozen=True)
class SectionCheck:
    """A total a statement prints for part of its rows ("Total deposits", a section's "Total"
    line), and what the rows read there add up to; both as magnitudes."""

    name: str  # as printed
    stated: Decimal
    rows: Decimal
    count: int  # rows read in the section
    page: int | None = None

    @property
    def gap(self) -> Decimal:
        return self.stated - self.rows


@dataclass(frozen=True)
class Reconciliation:
    """Whether a statement's rows add up to the balances it prints: opening + money in - money
    out = closing, every printed running balance the one before it plus the rows since, and
    each printed section total the sum of its rows. ``gap`` is how far the rows fall short of
    the closing balance (or of the first running balance they miss), as a magnitude."""

    status: str  # RECONCILED, OFF or UNCHECKED
    gap: Decimal | None = None
    opening: Decimal | None = None
    closing: Decimal | None = None
    money_in: Decimal = Decimal(0)  # what the rows read put in and took out
    money_out: Decimal = Decimal(0)
    rows: int = 0
    sections: tuple[SectionCheck, ...] = ()
    reason: str | None = None  # why not reconciled, in words
    ocr: bool = False  # some of the rows were read by OCR from a page without a text layer
    currency: str = ""  # of the balances and the gap

    def as_json(self) -> str:
        """Stored with the statement's pages (both backends keep it as text)."""

        def text(value: Decimal | None) -> str | None:
            return None if value is None else str(value)

        return json.dumps(
            {
                "status": self.status,
                "gap": text(self.gap),
                "opening": text(self.opening),
                "closing": text(self.closing),
                "money_in": str(self.money_in),
                "money_out": str(self.money_out),
                "rows": self.rows,
                "sections": [
                    [s.name, str(s.stated), str(s.rows), s.count, s.page] for s in self.sections
                ],
                "reason": self.reason,
                "ocr": self.ocr,
                "currency": self.currency,
            }
        )

    @classmethod
    def from_json(cls, stored: str | None) -> Reconciliation | None:
        if not stored:
            return None
        data = json.loads(stored)

        def amount(value: str | None) -> Decimal | None:
            return None if value is None else Decimal(value)

        return cls(
            status=data["status"],
            gap=amount(data.get("gap")),
            opening=amount(data.get("opening")),
            closing=amount(data.get("closing")),
            money_in=Decimal(data.get("money_in") or 0),
            money_out=Decimal(data.get("money_out") or 0),
            rows=int(data.get("rows") or 0),
            sections=tuple(
                SectionCheck(name, Decimal(stated), Decimal(rows), count, page)
                for name, stated, rows, count, page in data.get("sections") or []
            ),
            reason=data.get("reason"),
            ocr=bool(data.get("ocr")),
            currency=data.get("currency") or "",
        )

    def describe(self) -> str:
        """The check in one line, for the import report and the Sources page."""
        if self.status == RECONCILED:
            text = "reconciled"
            if self.opening is not None and self.closing is not None:
                text += (
                    f": opening {self.opening:,.2f} + in {self.money_in:,.2f} - out "
                    f"{self.money_out:,.2f} = closing {self.closing:,.2f}"
                )
        elif self.status == OFF:
            text = f"off by {self.gap or 0:,.2f}" + (f": {self.reason}" if self.reason else "")
        else:
            text = "unchecked" + (f": {self.reason}" if self.reason else "")
        sections = "; ".join(
            f"{s.name} {s.stated:,.2f}"
            + (" matches its rows" if not s.gap else f" but its rows add up to {s.rows:,.2f}")
            for s in self.sections
        )
        return f"{text} ({sections})" if sections else text


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
    reconciliation: str = ""  # the statement's ``Reconciliation.as_json()``, "" without rows
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
            "reconciliation": self.reconciliation,
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
    notes: list[str] = field(default_factory=list)  # how it was read: columns, signs, encoding

    def merge(self, other: IngestReport) -> None:
        self.indexed += other.indexed
        self.skipped += other.skipped
        self.pending += other.pending
        self.problems.extend(other.problems)
        self.notes.extend(other.notes)

    @property
    def landed_nothing(self) -> bool:
        """Nothing new and nothing already there: the file did not land."""
        return self.indexed == 0 and self.skipped == 0

    def summary(self) -> str:
        text = f"{self.indexed} indexed, {self.skipped} skipped, {len(self.problems)} errors"
        return text + (f", {self.pending} pending not landed" if self.pending else "")
