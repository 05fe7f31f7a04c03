"""The Answer a question gets: text, the plan, the numbers behind it and its citations.

The composer builds an answer from parts (prose, tables, notes, suggestions); ``Answer.text`` is
their markdown, which the CLI prints and Gemini rewords, and the UI renders the parts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, get_args

from elastic.masking import mask_account, mask_account_numbers
from elastic.model.plan import Intent, IntentPlan, Metric
from elastic.model.records import Box, Transaction
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    Basis,
    Bucket,
    ChangesResult,
    CompareResult,
    DayBalance,
    ListingResult,
    PeakResult,
    RecurringResult,
    ShareResult,
    SideResult,
    TextQAResult,
    TrendResult,
)
from llm.answering.wording import side_label, wording

Result = (
    AggregateResult
    | TrendResult
    | ListingResult
    | TextQAResult
    | CompareResult
    | ShareResult
    | PeakResult
    | ChangesResult
    | BalanceResult
    | RecurringResult
    | AnomalyResult
)
RESULT_TYPES: tuple[type, ...] = get_args(Result)  # every type a result can be


@dataclass(frozen=True)
class Citation:
    """``[n]`` in an answer: a statement page, or the transactions behind a number."""

    n: int
    kind: str  # "statement" | "transactions"
    source: str
    statement_id: str | None = None
    page: int | None = None
    score: float | None = None
    passage: str | None = None
    source_file: str | None = None
    rows_plan: IntentPlan | None = None  # transactions: the listing that shows the rows
    box: Box | None = None  # statement: the cited row or fact on the page
    # What the chat shows: the file's name, its month and the page, in the answer's language
    # ("" when ``source`` is all there is: it is shown with the page).
    label: str = ""

    @property
    def shown(self) -> str:
        """How the chat names the source: its ``label``, else ``source`` and the page."""
        if self.label:
            return self.label
        return f"{self.source}, page {self.page}" if self.page else self.source

    def as_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "kind": self.kind,
            "statement_id": self.statement_id,
            "page": self.page,
            "source": self.source,
            "score": self.score,
        }


@dataclass(frozen=True)
class Prose:
    """A paragraph of the answer in markdown, with ``[N]`` markers for its citations."""

    text: str

    def markdown(self) -> str:
        return self.text


@dataclass(frozen=True)
class Note:
    """An aside under the answer (what a search could not cover), shown in italics."""

    text: str

    def markdown(self) -> str:
        return f"_{self.text}_"


@dataclass(frozen=True)
class Table:
    """Rows of figures as the answer states them (cells already worded); ``more`` says what
    was left out when not every row is listed."""

    columns: tuple[str, ...]
    numeric: tuple[bool, ...]  # per column: figures, aligned right
    rows: tuple[tuple[str, ...], ...]
    more: str | None = None

    def markdown(self) -> str:
        lines = [
            "| " + " | ".join(self.columns) + " |",
            "|" + "|".join("---:" if right else "---" for right in self.numeric) + "|",
            *("| " + " | ".join(row) + " |" for row in self.rows),
        ]
        return "\n".join(lines) + (f"\n\n{self.more}" if self.more else "")


@dataclass(frozen=True)
class Suggestions:
    """Questions the user could ask instead (a clarification's), under ``lead``."""

    questions: tuple[str, ...]
    lead: str = field(default_factory=lambda: wording().text("clarify.suggestions"))

    def markdown(self) -> str:
        return "\n".join([self.lead, *(f"- {q}" for q in self.questions)])


Part = Prose | Note | Table | Suggestions


def parts_markdown(parts: list[Part]) -> str:
    """The answer text of ``parts``: their markdown, a blank line apart."""
    return "\n\n".join(part.markdown() for part in parts)


@dataclass
class Answer:
    """What a question gets. ``text`` is the markdown of ``parts``; an answer built from text
    alone is one paragraph. Gemini's wording comes in through :meth:`reworded`."""

    intent: Intent
    text: str
    plan: IntentPlan
    result: Result | None = None
    citations: list[Citation] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    routed_plan: IntentPlan | None = None  # before the sidebar narrowed it
    parts: list[Part] = field(default_factory=list)
    language: str = "en"  # the code of the language the answer is written in
    basis: Basis | None = None  # what the numbers counted and left out

    def __post_init__(self) -> None:
        if not self.parts:
            self.parts = [Prose(self.text)]

    def reworded(self, lead: str) -> Answer:
        """This answer with ``lead`` in place of its first paragraph; what follows it (tables,
        notes, suggestions) stays as composed."""
        _, separator, rest = self.text.partition("\n\n")
        text = lead + separator + rest
        follows = parts_markdown(self.parts[1:])
        parts = [Prose(lead), *self.parts[1:]] if follows and follows == rest else [Prose(text)]
        return replace(self, text=text, parts=parts)

    @property
    def follow_up_basis(self) -> IntentPlan:
        """What a follow-up ("and in March?") amends: the plan as asked, not as narrowed by
        sidebar filters, which are applied afresh to every question."""
        return self.routed_plan or self.plan

    def data(self) -> dict[str, Any]:
        data = result_data(self.result, self.plan.metric)
        if self.basis is not None:
            data["basis"] = basis_data(self.basis)
        return data

    def as_json(self) -> dict[str, Any]:
        return {
            "intent": self.intent.value,
            "answer": self.text,
            "plan": self.plan.model_dump(mode="json"),
            "data": self.data(),
            "citations": [c.as_json() for c in self.citations],
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
        }


def _num(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def result_data(result: Result | None, metric: Metric = Metric.sum) -> dict[str, Any]:
    """The ``data`` object of the JSON answer (docs/ARCHITECTURE.md): the numbers, nothing else.

    A result spanning several currencies has ``currency: "mixed"``, no overall value, and
    ``by_currency``: the same object once per currency. A comparison is an aggregate with
    ``compare``; its sides are also its ``groups``. An empty trend bucket of an average,
    smallest or largest has no value (``null``), not 0.
    """
    data = _result_data(result, metric)
    if parts := getattr(result, "by_currency", None):
        data["by_currency"] = [_result_data(part, metric) for part in parts]
    return data


def _row(row: Transaction) -> dict[str, Any]:
    return {
        "transaction_id": row.transaction_id,
        "date": row.date.isoformat(),
        "description": mask_account_numbers(row.description, [row.account_no]),
        "amount": float(row.amount),
        "currency": row.currency,
        "category": row.category,
        "merchant": row.merchant,
        "account_no": mask_account(row.account_no),
    }


def _aggregate_data(result: AggregateResult) -> dict[str, Any]:
    data: dict[str, Any] = {
        "metric": result.metric.value,
        "value": _num(result.value),
        "count": result.count,
        "currency": result.currency,
        "groups": [{"key": g.key, "value": _num(g.value), "count": g.count} for g in result.groups],
    }
    if result.extreme is not None:
        data["transaction"] = _row(result.extreme)
    if result.periods is not None:
        data["periods"] = result.periods
    return data


def _side_data(side: SideResult) -> dict[str, Any]:
    plan, figure = side.plan, side.result
    data: dict[str, Any] = {
        "label": side_label(side.side),
        "date_from": plan.date_from and plan.date_from.isoformat(),
        "date_to": plan.date_to and plan.date_to.isoformat(),
        "accounts": plan.accounts,
        "categories": plan.categories,
        "merchants": plan.merchants,
        "value": _num(figure.value),
        "count": figure.count,
    }
    full = _aggregate_data(figure)
    data.update({key: full[key] for key in ("transaction", "periods") if key in full})
    return data


def _compare_data(result: CompareResult) -> dict[str, Any]:
    sides = [_side_data(side) for side in result.sides]
    largest = result.largest
    return {
        "metric": result.metric.value,
        "value": None,
        "count": sum(side.result.count for side in result.sides),
        "currency": result.currency,
        "groups": [{"key": s["label"], "value": s["value"], "count": s["count"]} for s in sides],
        "compare": {
            "metric": result.metric.value,
            "currency": result.currency,
            "sides": sides,
            "difference": _num(result.difference),
            "change_pct": _num(result.change_pct),
            "largest": largest and side_label(largest.side),
        },
    }


def _buckets(buckets: list[Bucket], metric: Metric) -> list[dict[str, Any]]:
    return [
        {"period": b.period.isoformat(), "value": _num(b.shown(metric)), "count": b.count}
        for b in buckets
    ]


def _trend_data(result: TrendResult, metric: Metric) -> dict[str, Any]:
    data: dict[str, Any] = {
        "interval": result.interval.value,
        "currency": result.currency,
        "series": _buckets(result.series, metric),
    }
    if result.splits:
        data["splits"] = {key: _buckets(buckets, metric) for key, buckets in result.splits.items()}
    return data


def _listing_data(result: ListingResult, metric: Metric) -> dict[str, Any]:
    return {"rows": [_row(r) for r in result.rows], "total": result.total}


def _text_qa_data(result: TextQAResult, metric: Metric) -> dict[str, Any]:
    data: dict[str, Any] = {
        "hits": [
            {
                "statement_id": h.statement_id,
                "page": h.page,
                "score": h.score,
                "text": mask_account_numbers(h.text, [h.account_no]),
            }
            for h in result.hits
        ]
    }
    if result.facts:  # only when a statement fact answers
        data["facts"] = [
            {
                "name": f.name,
                "value": None if f.amount is None else float(f.amount),
                "day": None if f.day is None else f.day.isoformat(),
                "currency": f.currency,
                "as_of": f.as_of.isoformat(),
                "statement_id": f.statement_id,
                "page": f.page,
                "location": f.location,
                "account_no": mask_account(f.account_no),
            }
            for f in result.facts
        ]
    return data


def _figure(result: AggregateResult) -> dict[str, Any]:
    return {"value": _num(result.value), "count": result.count}


def _share_data(result: ShareResult, metric: Metric) -> dict[str, Any]:
    """``value`` is the share in percent; ``share`` holds both amounts."""
    return {
        "metric": "share",
        "value": _num(result.pct),
        "count": result.part.count,
        "currency": result.currency,
        "share": {
            "of": result.share_of.value,
            "direction": result.direction.value,
            "pct": _num(result.pct),
            "part": _figure(result.part),
            "whole": _figure(result.whole),
        },
    }


def _peak_data(result: PeakResult, metric: Metric) -> dict[str, Any]:
    """The trend's series, and ``peak``: the highest or lowest period with rows."""
    data = _trend_data(result.trend, metric) if not result.by_currency else {}
    bucket = result.bucket
    data["currency"] = result.currency
    data["peak"] = {
        "kind": result.peak.value,
        "period": bucket and bucket.period.isoformat(),
        "value": None if bucket is None else _num(bucket.shown(metric)),
        "count": None if bucket is None else bucket.count,
        "ties": result.ties,
    }
    return data


def _changes_data(result: ChangesResult, metric: Metric) -> dict[str, Any]:
    return {
        "metric": result.metric.value,
        "currency": result.currency,
        "group_by": result.group_by.value,
        "change": result.change and result.change.value,
        "sides": [_side_data(side) for side in result.sides],
        "changes": [
            {
                "key": row.key,
                "first": _num(row.first),
                "last": _num(row.last),
                "first_count": row.first_count,
                "last_count": row.last_count,
                "difference": _num(row.difference),
                "change_pct": _num(row.change_pct),
            }
            for row in result.rows
        ],
    }


def _day(day: DayBalance | None) -> dict[str, Any] | None:
    return None if day is None else {"day": day.day.isoformat(), "value": float(day.amount)}


def _balances_data(result: BalanceResult, metric: Metric) -> dict[str, Any]:
    """Per account: the balance on the last day asked (``latest``), the lowest and highest,
    the end-of-day balances (``daily``; a trend's at the end of each interval too), and every
    gap between a stated balance and the rows."""
    accounts = []
    for account in result.accounts:
        entry: dict[str, Any] = {
            "account_name": account.account_name,
            "account_no": mask_account(account.account_no),
            "bank_name": account.bank_name,
            "currency": account.currency,
            "known": account.known_from is not None,
            "known_from": account.known_from and account.known_from.isoformat(),
            "known_to": account.known_to and account.known_to.isoformat(),
            "latest": _day(account.latest),
            "lowest": _day(account.lowest()),
            "highest": _day(account.highest()),
            "daily": [_day(day) for day in account.daily],
            "stated": account.stated,
            "rows": account.rows,
            "gaps": [
                {
                    "day": gap.day.isoformat(),
                    "stated": float(gap.stated),
                    "computed": float(gap.computed),
                    "difference": float(gap.difference),
                    "source": gap.source,
                }
                for gap in account.gaps
            ],
        }
        if result.interval is not None:
            entry["series"] = [_day(day) for day in account.at_ends(result.interval)]
        accounts.append(entry)
    return {
        "metric": result.metric.value,
        "interval": result.interval and result.interval.value,
        "accounts": accounts,
    }


def _recurring_data(result: RecurringResult, metric: Metric) -> dict[str, Any]:
    return {
        "direction": result.direction.value,
        "monthly": {currency: float(value) for currency, value in result.monthly.items()},
        "data_end": result.data_end and result.data_end.isoformat(),
        "rows": result.rows,
        "series": [
            {
                "merchant": s.merchant,
                "currency": s.currency,
                "cadence": s.cadence.value,
                "every": s.every,
                "amount": float(s.amount),
                "monthly": float(s.monthly),
                "first": s.first.isoformat(),
                "last": s.last.isoformat(),
                "count": s.count,
                "active": s.active,
                "fixed": s.fixed,
                "price_changes": [
                    {"day": c.day.isoformat(), "before": float(c.before), "after": float(c.after)}
                    for c in s.price_changes
                ],
                "accounts": s.accounts,
                "transaction_ids": s.transaction_ids,
            }
            for s in result.series
        ],
    }


def _anomalies_data(result: AnomalyResult, metric: Metric) -> dict[str, Any]:
    return {
        "rows": result.rows,
        "doubles": [
            {
                "merchant": d.merchant,
                "amount": float(d.amount),
                "currency": d.currency,
                "transactions": [_row(row) for row in d.rows],
            }
            for d in result.doubles
        ],
        "high": [
            {
                "transaction": _row(h.row),
                "usual": float(h.usual),
                "times": float(h.times),
                "charges": h.charges,
            }
            for h in result.high
        ],
    }


def basis_data(basis: Basis) -> dict[str, Any]:
    """``data.basis``: what the numbers counted and what they left out, with counts."""
    data: dict[str, Any] = {"kind": basis.kind, "counted": basis.counted}
    if basis.kind == "rows":
        data |= {
            "direction": basis.direction.value,
            "currency": basis.currency,
            "left_out": {
                "transfers": basis.transfers,
                "other_direction": basis.other_direction,
                "other_currencies": dict(basis.other_currencies),
                "pending": 0,  # pending rows are never imported
            },
        }
    elif basis.kind == "balances":
        data |= {"stated": basis.stated, "gaps": basis.gaps, "unknown": basis.unknown}
    return data


DataOf = Callable[[Any, Metric], dict[str, Any]]
# The JSON ``data`` of each result type: one rule per type (tests/test_result_rules.py).
DATA: dict[type, DataOf] = {
    AggregateResult: lambda result, metric: _aggregate_data(result),
    CompareResult: lambda result, metric: _compare_data(result),
    TrendResult: _trend_data,
    ListingResult: _listing_data,
    TextQAResult: _text_qa_data,
    ShareResult: _share_data,
    PeakResult: _peak_data,
    ChangesResult: _changes_data,
    BalanceResult: _balances_data,
    RecurringResult: _recurring_data,
    AnomalyResult: _anomalies_data,
}


def _result_data(result: Result | None, metric: Metric) -> dict[str, Any]:
    if result is None:
        return {}
    return DATA[type(result)](result, metric)
