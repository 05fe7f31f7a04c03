"""The hand-written truths of the real statement PDFs (``tests/fixtures/statement_truths/``) and
how an import and its answers are held against them; shared by ``test_real_statements.py`` and
the score this module prints.

The PDFs stay in ``../shared/fixtures/statements/`` beside the clone (``FINSYNC_SHARED_DIR``
names another folder holding ``fixtures/statements``). Run ``python -m tests.statement_truths``
for the score of the statements the reader was built against, ``--holdout`` for the three set
aside: rows landed, statements reconciled as their truth says, questions answered exactly.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TRUTHS = Path(__file__).parent / "fixtures" / "statement_truths"
SHARED = Path(os.environ.get("FINSYNC_SHARED_DIR") or ROOT.parent / "shared")
PDFS = SHARED / "fixtures" / "statements"
MISSING = f"the real statement PDFs are not beside the clone: {PDFS} is absent"
AS_OF = date(2026, 11, 23)
# Figures that are flows or limits: compared by size (statements print money out without a
# minus or with one). Balances keep their sign.
BALANCES = ("opening_balance", "closing_balance")


def truths(set_name: str) -> dict[str, dict[str, Any]]:
    """``built`` or ``holdout``: the truth of each PDF by its file name."""
    return json.loads((TRUTHS / f"{set_name}.json").read_text(encoding="utf-8"))


def user_of(name: str) -> str:
    return "stmt-" + name.removesuffix(".pdf")


def row_keys(rows: Iterable[tuple[date, Decimal]], short: bool) -> Counter[tuple[str, str]]:
    """Rows as (date, amount) keys; ``short`` keeps month and day only (a truth that prints no
    year)."""
    return Counter(
        (day.isoformat()[5:] if short else day.isoformat(), f"{amount:.2f}") for day, amount in rows
    )


def rows_landed(truth: Mapping[str, Any], landed: Iterable[tuple[date, Decimal]]) -> int:
    """How many of the truth's rows landed with their date and signed amount."""
    wanted = Counter((row["date"], row["amount"]) for row in truth["rows"])
    short = any(len(row["date"]) == 5 for row in truth["rows"])
    return sum((row_keys(landed, short) & wanted).values())


def fact_matches(name: str, value: Decimal | None, expected: str) -> bool:
    if value is None:
        return False
    want = Decimal(expected)
    return value == want if name in BALANCES else abs(value) == abs(want)


def check_answered(check: Mapping[str, Any], answer: Mapping[str, Any]) -> tuple[bool, object]:
    """Whether ``finsync ask --json``'s ``answer`` gives the check's value, and what it gave."""
    data = answer.get("data") or {}
    if "fact" in check:
        found = [f for f in data.get("facts") or [] if f.get("name") == check["fact"]]
        if not found:
            return False, None
        if "expected_day" in check:
            return found[0].get("day") == check["expected_day"], found[0].get("day")
        value = Decimal(str(found[0]["value"]))
        return fact_matches(check["fact"], value, check["expected"]), value
    if "expected_count" in check:
        return data.get("count") == check["expected_count"], data.get("count")
    if "count" in check:
        value = data.get("value")
        got = None if value is None else Decimal(str(value))
        matches = got is not None and abs(got) == Decimal(check["expected"])
        return matches and data.get("count") == check["count"], (got, data.get("count"))
    rows = data.get("rows") or []
    value = rows[0]["amount"] if rows else data.get("value")
    if value is None:  # no figure: a clarification, a passage
        return False, answer.get("answer")
    got = Decimal(str(value))
    return abs(got) == Decimal(check["expected"]), got


def names_match(truth: Mapping[str, Any], bank: str, account: str) -> list[str]:
    """What is wrong with the names a statement landed under (nothing: an empty list)."""
    wrong = []
    if truth.get("bank") and not any(b.casefold() in bank.casefold() for b in truth["bank"]):
        wrong.append(f"bank {bank!r}, not one of {truth['bank']}")
    names = truth.get("account_name")
    if names and not any(n.casefold() in account.casefold() for n in names):
        wrong.append(f"account {account!r}, not one of {names}")
    for banned in truth.get("account_name_not", []):
        if banned.casefold() in account.casefold():
            wrong.append(f"account {account!r} holds {banned!r}")
    return wrong


def every_row(backend: Any, user: str) -> list[Any]:
    """Every stored row of ``user``, page by page."""
    from elastic.model.plan import Direction, Intent, IntentPlan

    plan = IntentPlan(intent=Intent.listing, direction=Direction.any, limit=100)
    rows, after = [], None
    while True:
        page = backend.listing(user, plan, after)
        rows += page.rows
        if page.next_after is None:
            return rows
        after = page.next_after


@dataclass
class Score:
    statements: int = 0
    rows: int = 0
    rows_landed: int = 0
    reconciled_right: int = 0
    questions: int = 0
    answered: int = 0

    def line(self, label: str) -> str:
        return (
            f"{label}: rows landed {self.rows_landed}/{self.rows}, reconciliation as the truth "
            f"says {self.reconciled_right}/{self.statements}, questions right "
            f"{self.answered}/{self.questions}"
        )


def score(set_name: str, verbose: bool = False) -> Score:
    """Each PDF of the set landed on the embedded store under a user of its own, then its
    questions asked: the score, and with ``verbose`` what each PDF missed."""
    from elastic.ingest.landing import FileDefaults, ingest_file
    from llm.services import build_pipeline, statement_store
    from settings import Settings

    result = Score()
    with tempfile.TemporaryDirectory(prefix="finsync-score-") as folder:
        settings = Settings(data_dir=Path(folder), es_url=None)
        pipeline = build_pipeline(settings)
        store = statement_store(settings)
        try:
            for name, truth in sorted(truths(set_name).items()):
                user = user_of(name)
                ingest_file(
                    pipeline.backend, PDFS / name, user, pipeline.embedder, store, FileDefaults()
                )
                rows = every_row(pipeline.backend, user)
                landed = rows_landed(truth, [(r.date, r.amount) for r in rows])
                infos = pipeline.backend.statements(user)
                check = infos[0].reconciliation if infos else None
                status = check.status if check else None
                wanted = (truth.get("reconciliation") or {}).get("status")
                right = status == wanted
                result.statements += 1
                result.rows += len(truth["rows"])
                result.rows_landed += landed
                result.reconciled_right += right
                misses = []
                for question in truth["checks"]:
                    answer = pipeline.ask(question["question"], user, AS_OF).as_json()
                    good, got = check_answered(question, answer)
                    result.questions += 1
                    result.answered += good
                    if not good:
                        misses.append(f"    {question['question']!r}: got {got}")
                if verbose:
                    print(
                        f"{name}: rows {landed}/{len(truth['rows'])}, reconciliation {status} "
                        f"(truth {wanted}), questions "
                        f"{len(truth['checks']) - len(misses)}/{len(truth['checks'])}"
                    )
                    for miss in misses:
                        print(miss)
        finally:
            pipeline.backend.close()
    return result


if __name__ == "__main__":
    if not PDFS.is_dir():
        sys.exit(MISSING)
    chosen = "holdout" if "--holdout" in sys.argv else "built"
    print(score(chosen, verbose="-v" in sys.argv).line(chosen))
