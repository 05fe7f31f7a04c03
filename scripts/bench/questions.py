"""The fixed question set, and the same answers computed independently by pandas and DuckDB.

Each question carries the plan it means (docs/ARCHITECTURE.md's semantics: spend is money out
without transfers). pandas answers it through the project's oracle, ``tests/pandas_reference.py``;
DuckDB through SQL written by hand here. Every answer is reduced to ``Figures`` (rows of key,
value, count) so the backends' answers and both references compare exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb
import pandas as pd

from elastic.model.plan import GroupBy, Intent, IntentPlan, SortOrder
from elastic.model.records import StatementChunk
from elastic.model.results import AggregateResult, ListingResult, TextQAResult, TrendResult
from llm.answering.answer import Answer
from tests import pandas_reference as ref

Figures = tuple[tuple[str, str, int], ...]
"""An answer's numbers: (key, value, count) rows, e.g. one per category or month."""

YEAR = {"date_from": date(2024, 1, 1), "date_to": date(2024, 12, 31)}
SPEND = "cents < 0 AND category <> 'Transfers'"
IN_2024 = "day BETWEEN DATE '2024-01-01' AND DATE '2024-12-31'"
ERROR = "error"  # the key of the one row of an answer the backend failed to give
FEE = re.compile(r"\$[\d,]+\.\d\d")
FEE_SENTENCE = r"Overdraft fee: (\$[\d,]+\.\d\d)"


@dataclass(frozen=True)
class Question:
    """A question as asked, the plan it means, and the same answer in SQL over ``tx``/``pages``."""

    key: str
    text: str
    plan: IntentPlan
    sql: str


QUESTIONS: tuple[Question, ...] = (
    Question(
        "total spend",
        "How much did I spend in total?",
        IntentPlan(intent=Intent.aggregate),
        f"SELECT 'all', coalesce(sum(-cents), 0), count(*) FROM tx WHERE {SPEND}",
    ),
    Question(
        "by category 2024",
        "How much did I spend by category in 2024?",
        IntentPlan(intent=Intent.aggregate, group_by=GroupBy.category, **YEAR),
        f"""SELECT 'all', coalesce(sum(-cents), 0), count(*) FROM tx WHERE {SPEND} AND {IN_2024}
            UNION ALL (SELECT category, sum(-cents) AS spent, count(*) FROM tx
                       WHERE {SPEND} AND {IN_2024} GROUP BY category ORDER BY spent DESC, category)
        """,
    ),
    Question(
        "monthly 2024",
        "Show monthly spending for 2024",
        IntentPlan(intent=Intent.trend, **YEAR),
        f"""SELECT strftime(month, '%Y-%m-%d'), coalesce(sum(-cents), 0), count(cents)
            FROM range(DATE '2024-01-01', DATE '2025-01-01', INTERVAL 1 MONTH) AS m(month)
            LEFT JOIN (SELECT * FROM tx WHERE {SPEND} AND {IN_2024}) AS spent
              ON date_trunc('month', day) = month
            GROUP BY month ORDER BY month""",
    ),
    Question(
        "10 largest 2024",
        "List my 10 largest purchases in 2024",
        IntentPlan(intent=Intent.listing, sort=SortOrder.largest, limit=10, **YEAR),
        f"""SELECT 'total', NULL, count(*) FROM tx WHERE {SPEND} AND {IN_2024}
            UNION ALL (SELECT transaction_id, NULL, 1 FROM tx WHERE {SPEND} AND {IN_2024}
                       ORDER BY abs(cents) DESC, day DESC, transaction_id DESC LIMIT 10)""",
    ),
    Question(
        "groceries 2024",
        "How much did I spend on groceries in 2024?",
        IntentPlan(intent=Intent.aggregate, categories=["Groceries"], **YEAR),
        f"""SELECT 'all', coalesce(sum(-cents), 0), count(*) FROM tx
            WHERE {SPEND} AND {IN_2024} AND category = 'Groceries'""",
    ),
    Question(
        "overdraft fee (text)",
        "What is the overdraft fee?",
        IntentPlan(intent=Intent.text_qa, text="What is the overdraft fee?"),
        f"""SELECT 'overdraft fee', regexp_extract(text, '{FEE_SENTENCE}', 1), 0 FROM pages
            WHERE regexp_matches(text, '{FEE_SENTENCE}') LIMIT 1""",
    ),
)


def _money(cents: int | None) -> str:
    return "" if cents is None else f"{cents / 100:.2f}"


def _amount(value: object) -> str:
    return "" if value is None else f"{value:.2f}"


def answer_figures(answer: Answer) -> Figures:
    """The numbers of a pipeline answer, shaped like the references'."""
    result = answer.result
    if isinstance(result, AggregateResult):
        groups = tuple((g.key, _amount(g.value), g.count) for g in result.groups)
        return (("all", _amount(result.value), result.count), *groups)
    if isinstance(result, TrendResult):
        return tuple((b.period.isoformat(), _amount(b.value), b.count) for b in result.series)
    if isinstance(result, ListingResult):
        rows = tuple((r.transaction_id, "", 1) for r in result.rows)
        return (("total", "", result.total), *rows)
    if isinstance(result, TextQAResult) and not result.hits:
        return (("overdraft fee", "", 0),)  # no page to quote: the fee is stated nowhere
    fee = FEE.search(answer.text)
    return (("overdraft fee", fee.group(0) if fee else answer.text[:80], 0),)


def pandas_figures(frame: pd.DataFrame, pages: pd.DataFrame, question: Question) -> Figures:
    """The answer computed by the project's pandas oracle (text: the stated fee, by regex)."""
    plan = question.plan
    if plan.intent is Intent.aggregate:
        found = ref.aggregate(frame, plan)
        groups = tuple((key, _amount(value), count) for key, value, count in found["groups"])
        return (("all", _amount(found["value"]), found["count"]), *groups)
    if plan.intent is Intent.trend:
        return tuple(
            (period, _amount(value), count) for period, value, count in ref.trend(frame, plan)
        )
    if plan.intent is Intent.listing:
        ids, total = ref.listing(frame, plan)
        return (("total", "", total), *((i, "", 1) for i in ids))
    fees = pages["text"].str.extract(FEE_SENTENCE)[0].dropna()
    return (("overdraft fee", fees.iloc[0] if len(fees) else "", 0),)  # "": stated nowhere


def duckdb_figures(con: duckdb.DuckDBPyConnection, question: Question) -> Figures:
    """The answer computed by DuckDB with the question's SQL."""
    rows = con.execute(question.sql).fetchall()
    if question.plan.intent is Intent.text_qa:  # no row: no page states the fee
        return tuple((key, str(value), count) for key, value, count in rows) or (
            ("overdraft fee", "", 0),
        )
    return tuple(
        (key, _money(None if value is None else int(value)), count) for key, value, count in rows
    )


def load_pandas(csv_path: Path, chunks: list[StatementChunk]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The CSV as the oracle reads it, and the statement pages' text (a text column also when
    there are no pages)."""
    texts = pd.Series([c.text for c in chunks], dtype="string")
    return ref.load(csv_path), pd.DataFrame({"text": texts})


def load_duckdb(csv_path: Path, chunks: list[StatementChunk]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with ``tx`` (the CSV, amounts as integer cents) and ``pages``."""
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    con.execute(
        """CREATE TABLE tx AS SELECT transaction_id, "date" AS day, category,
               CAST(amount * 100 AS BIGINT) AS cents
           FROM read_csv(?, header = true,
                         types = {'transaction_id': 'VARCHAR', 'date': 'DATE',
                                  'amount': 'DECIMAL(18, 2)', 'category': 'VARCHAR'})""",
        [str(csv_path)],
    )
    texts = pd.Series([c.text for c in chunks], dtype="string")  # VARCHAR also when empty
    con.register("texts", pd.DataFrame({"text": texts}))
    con.execute("CREATE TABLE pages AS SELECT text FROM texts")
    con.unregister("texts")
    return con


def compare(engine: Figures, reference: Figures) -> str:
    """``exact``, or where the two answers first differ."""
    if engine == reference:
        return "exact"
    if engine and engine[0][0] == ERROR:
        return f"error: {engine[0][1]}"
    if len(engine) != len(reference):
        return f"mismatch: {len(engine)} rows vs {len(reference)}"
    row = next(i for i, (a, b) in enumerate(zip(engine, reference, strict=True)) if a != b)
    return f"mismatch at row {row + 1}: {engine[row]} vs {reference[row]}"
