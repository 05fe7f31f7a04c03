"""Real statement PDFs (public specimens and anonymised test fixtures of open-source parsers,
``../shared/fixtures/statements/``) through ``finsync ingest`` and ``finsync ask --json`` on both
backends, against the truths written by hand in ``tests/fixtures/statement_truths/``.

Each PDF lands under a user of its own. Every printed row must land with its date and signed
amount, the statement must reconcile (or be off by the gap, or unchecked) as its truth says,
its figures and names must be the ones it prints, and each hand-written question must be
answered exactly. The three PDFs of ``holdout.json`` were set aside before the reader was tuned
to the others; their ids start with ``holdout-``.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from elastic.engines import open_backend
from elastic.model.plan import Direction, Intent, IntentPlan
from settings import Settings
from tests import test_real_corpus
from tests.statement_truths import (
    AS_OF,
    MISSING,
    PDFS,
    check_answered,
    every_row,
    fact_matches,
    names_match,
    rows_landed,
    truths,
    user_of,
)
from tests.test_real_corpus import finsync

pytestmark = pytest.mark.skipif(not PDFS.is_dir(), reason=MISSING)
env = test_real_corpus.env  # the environment of a finsync run on each store in turn

SETS = {"built": truths("built"), "holdout": truths("holdout")}
SCANNED = "us_anycompany_consolidated_scanned.pdf"
WESTPAC = "nz_westpac_card_statement_guide_specimen.pdf"
# What the product gets wrong today, with why: by file and test ("rows", "names") or question.
# Each stays tested and counted wrong in the score; its test fails the day it passes, so the
# entry goes.
KNOWN_MISSES = {
    (SCANNED, "rows"): (
        "the scan's OCR text is too damaged to read its checks, printed side by side in three "
        "lists of date, check number and amount"
    ),
    (SCANNED, "names"): "OCR reads the new balance as .366.44 and the dates around it apart",
    (SCANNED, "What was my new balance?"): "OCR reads the new balance as .366.44",
    (SCANNED, "How many transactions are there?"): "no check row is read from the scan",
    (SCANNED, "What was my largest payment?"): "no check row is read from the scan",
    (SCANNED, "How much did I spend in total?"): "no check row is read from the scan",
    (WESTPAC, "rows"): (
        "a card's opening balance printed $47.24 CR is read as owed, not as a credit, so the "
        "gap stated is 2,354.78, not 2,449.26"
    ),
    (WESTPAC, "names"): (
        "the guide's callout number before Total Minimum Payment Due hides the label's start"
    ),
    (WESTPAC, "What is the minimum payment?"): (
        "the guide's callout number before Total Minimum Payment Due hides the label's start"
    ),
    ("fr_awesomebank_eur_current_anonymised.pdf", "How much did I pay in fees?"): (
        "a category the user's data lacks (Fees) is dropped by the router, which then sums all "
        "spending"
    ),
    ("us_bankofsomething_savings_textract_sample.pdf", "How much did I spend at Retail Store 3?"): (
        "store numbers are stripped from merchant names (TESCO STORE 2345 is Tesco), so the "
        "question's merchant is Retail and the answer sums every Retail Store row"
    ),
}


def known(values: object, name: str, test: str) -> object:
    """``values`` as a parameter, expected to fail with its reason when it is a known miss."""
    reason = KNOWN_MISSES.get((name, test))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(values, marks=marks)


def cases(test: str) -> list[object]:
    return [
        known((set_name, name), name, test)
        for set_name, found in SETS.items()
        for name in sorted(found)
    ]


CASES = [(set_name, name) for set_name, found in SETS.items() for name in sorted(found)]


def case_id(case: tuple[str, str]) -> str:
    set_name, name = case
    return f"{set_name}-{name.removesuffix('.pdf')}"


class Ingested(dict[str, tuple[int, str]]):
    """``finsync ingest`` of a PDF under its own user, run the first time a test needs it (a
    run of some cases lands only their PDFs): exit code and output by file name."""

    def __init__(self, env: dict[str, str]) -> None:
        super().__init__()
        self.env = env

    def __missing__(self, name: str) -> tuple[int, str]:
        self[name] = finsync(self.env, "ingest", str(PDFS / name), "--user", user_of(name))
        return self[name]


@pytest.fixture(scope="module")
def ingested(env: dict[str, str]) -> Ingested:
    return Ingested(env)


def opened(env: dict[str, str]):
    variables = {k.removeprefix("FINSYNC_").lower(): v for k, v in env.items()}
    variables.pop("embedder")
    return open_backend(Settings(**variables))


def truth_of(case: tuple[str, str]) -> dict:
    set_name, name = case
    return SETS[set_name][name]


@pytest.mark.parametrize("case", cases("rows"), ids=case_id)
def test_every_printed_row_lands_and_the_report_says_how_it_reconciles(env, ingested, case):
    _, name = case
    truth = truth_of(case)
    code, output = ingested[name]
    check = truth.get("reconciliation")
    rows = len(truth["rows"])
    if check is None:  # no ledger: the report says no table was found
        assert "transactions not landed: no transaction table" in output, output
    else:
        assert f"note: {rows} rows read; {check['status']}" in output, output
    # Anything reported (rows off their balances, no table) makes the run exit 1.
    assert code == (0 if check and check["status"] != "off" else 1), output
    backend = opened(env)
    try:
        landed = every_row(backend, user_of(name))
        (info,) = backend.statements(user_of(name))
    finally:
        backend.close()
    assert rows_landed(truth, [(r.date, r.amount) for r in landed]) == rows == len(landed)
    if check is not None:
        assert info.reconciliation is not None
        assert info.reconciliation.status == check["status"], info.reconciliation.describe()
        if "gap" in check:
            assert info.reconciliation.gap == Decimal(check["gap"])
        assert {r.reconciliation for r in landed} == {check["status"]}


@pytest.mark.parametrize("case", cases("names"), ids=case_id)
def test_names_period_currency_and_figures_are_the_statements_own(env, ingested, case):
    _, name = case
    truth = truth_of(case)
    ingested[name]
    backend = opened(env)
    try:
        (info,) = backend.statements(user_of(name))
        plan = IntentPlan(intent=Intent.text_qa, text="figures", facts=list(truth["facts"]))
        facts = backend.facts(user_of(name), plan) if truth["facts"] else []
        listed = backend.listing(
            user_of(name), IntentPlan(intent=Intent.listing, direction=Direction.any, limit=1)
        ).rows
    finally:
        backend.close()
    assert names_match(truth, info.bank_name, info.account_name) == []
    if "period" in truth:
        assert [info.statement_from.isoformat(), info.statement_to.isoformat()] == truth["period"]
    if "account_last4" in truth:
        assert info.account_no.endswith(truth["account_last4"])
    if listed:
        assert listed[0].currency == truth["currency"]
    stated = {f.name: f.amount for f in facts}
    for fact, value in truth["facts"].items():
        assert fact_matches(fact, stated.get(fact), value), (fact, stated.get(fact), value)


QUESTIONS = [
    known((set_name, name, n), name, SETS[set_name][name]["checks"][n]["question"])
    for set_name, name in CASES
    for n in range(len(SETS[set_name][name]["checks"]))
]


def question_id(question: tuple[str, str, int]) -> str:
    set_name, name, n = question
    check = SETS[set_name][name]["checks"][n]
    return f"{case_id((set_name, name))}-{check['question'][:40]}"


@pytest.mark.parametrize("question", QUESTIONS, ids=question_id)
def test_hand_written_questions_are_answered_exactly(env, ingested, question):
    set_name, name, n = question
    check = SETS[set_name][name]["checks"][n]
    ingested[name]
    code, output = finsync(
        env,
        "ask",
        check["question"],
        "--user",
        user_of(name),
        "--as-of",
        AS_OF.isoformat(),
        "--json",
    )
    assert code == 0, output
    answer = json.loads(output.splitlines()[-1])
    good, got = check_answered(check, answer)
    assert good, (got, answer["answer"])
