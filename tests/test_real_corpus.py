"""Real bank exports from open-source parsers' test suites, end to end on both backends.

Each file in ``tests/fixtures/real/`` goes through ``finsync ingest`` (with only the flags its
truth says it lacks) under a user of its own, then its hand-written questions go through
``finsync ask --json``; the answers must equal the truths in ``truths.json`` exactly. The files
of ``tests/fixtures/real_holdout/`` (named ``holdout/…`` here) were set aside before the readers
they exercise were written, to measure them on exports they were not built against.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from elastic.engines import open_backend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.model.plan import Direction, Intent, IntentPlan
from scripts.cli import app
from settings import Settings
from tests.conftest import es_settings

REAL = Path(__file__).parent / "fixtures" / "real"
HOLDOUT = Path(__file__).parent / "fixtures" / "real_holdout"
HELD = "holdout/"
TRUTHS: dict[str, dict] = json.loads((REAL / "truths.json").read_text(encoding="utf-8"))
TRUTHS |= {
    HELD + name: truth
    for name, truth in json.loads((HOLDOUT / "truths.json").read_text(encoding="utf-8")).items()
}


def path_of(name: str) -> Path:
    return HOLDOUT / name.removeprefix(HELD) if name.startswith(HELD) else REAL / name


FLAGS = {"bank": "--bank", "account_name": "--account-name", "account_no": "--account-no"}
FLAGS |= {"currency": "--currency"}
AS_OF = "2026-11-23"


def user_of(name: str) -> str:
    return "real-" + name.replace("/", "-")


@pytest.fixture(scope="module", params=["embedded", "elasticsearch"])
def env(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    """The environment of a ``finsync`` run against one backend, with every file ingested."""
    data_dir = tmp_path_factory.mktemp("real")
    variables = {"FINSYNC_DATA_DIR": str(data_dir), "FINSYNC_EMBEDDER": "local"}
    settings: Settings | None = None
    if request.param == "elasticsearch":
        settings = es_settings(request.getfixturevalue("es_url"), data_dir)
        variables |= {
            "FINSYNC_ES_URL": settings.es_url or "",
            "FINSYNC_STATEMENTS_INDEX": settings.statements_index,
            "FINSYNC_TRANSACTIONS_INDEX": settings.transactions_index,
            "FINSYNC_FACTS_INDEX": settings.facts_index,
            "FINSYNC_CATEGORY_RULES_INDEX": settings.category_rules_index,
        }
    yield variables
    if settings is not None:
        backend = ElasticsearchBackend(settings)
        backend.es.indices.delete(index=backend.indices, ignore_unavailable=True)
        backend.close()


def finsync(env: dict[str, str], *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def ingested(env: dict[str, str]) -> dict[str, tuple[int, str]]:
    """``finsync ingest`` once per file, with the flags its truth names: exit code and output."""
    outcomes = {}
    for name, truth in TRUTHS.items():
        flags = [
            part for key, value in truth.get("flags", {}).items() for part in (FLAGS[key], value)
        ]
        outcomes[name] = finsync(env, "ingest", str(path_of(name)), "--user", user_of(name), *flags)
    return outcomes


def ask(env: dict[str, str], name: str, question: str) -> dict:
    code, output = finsync(
        env, "ask", question, "--user", user_of(name), "--as-of", AS_OF, "--json"
    )
    assert code == 0, output
    return json.loads(output.splitlines()[-1])


@pytest.mark.parametrize("name", sorted(TRUTHS))
def test_every_real_file_lands_whole(ingested, name):
    code, output = ingested[name]
    truth = TRUTHS[name]
    assert code == 0, output
    assert f"{truth['transactions']} indexed" in output, output
    if truth.get("pending"):
        assert f"{truth['pending']} pending not landed" in output, output


def landed_rows(env: dict[str, str], name: str) -> list:
    """Every stored row of a file's user, read from the backend the CLI wrote to."""
    settings = Settings(
        **{k.removeprefix("FINSYNC_").lower(): v for k, v in env.items() if k != "FINSYNC_EMBEDDER"}
    )
    backend = open_backend(settings)
    plan = IntentPlan(intent=Intent.listing, direction=Direction.any, limit=100)
    rows, after = [], None
    try:
        while True:
            page = backend.listing(user_of(name), plan, after)
            rows += page.rows
            if page.next_after is None:
                return rows
            after = page.next_after
    finally:
        backend.close()


def per_currency(value: str | dict, currencies: set[str]) -> dict[str, Decimal]:
    if isinstance(value, dict):
        return {k: Decimal(v) for k, v in value.items() if Decimal(v) or k in currencies}
    (currency,) = currencies
    return {currency: Decimal(value)}


@pytest.mark.parametrize("name", sorted(TRUTHS))
def test_money_in_and_out_land_exactly(env, ingested, name):
    truth = TRUTHS[name]
    rows = landed_rows(env, name)
    assert len(rows) == truth["transactions"]
    out: dict[str, Decimal] = {}
    into: dict[str, Decimal] = {}
    for row in rows:
        side = out if row.amount < 0 else into
        side[row.currency] = side.get(row.currency, Decimal(0)) + abs(row.amount)
    currencies = {row.currency for row in rows}
    expected_out = per_currency(truth["money_out"], currencies)
    expected_in = per_currency(truth["money_in"], currencies)
    assert {k: v for k, v in out.items() if v} == {k: v for k, v in expected_out.items() if v}
    assert {k: v for k, v in into.items() if v} == {k: v for k, v in expected_in.items() if v}
    assert min(r.date for r in rows).isoformat() == truth["first_date"]
    assert max(r.date for r in rows).isoformat() == truth["last_date"]


@pytest.mark.parametrize("name", sorted(TRUTHS))
def test_stated_balances_are_answered(env, ingested, name):
    truth = TRUTHS[name]
    for fact in ("opening_balance", "closing_balance"):
        if fact not in truth:
            continue
        answer = ask(env, name, f"What was my {fact.replace('_', ' ')}?")
        facts = answer["data"].get("facts")
        assert facts, answer["answer"]
        newest: dict[tuple[str, str], Decimal] = {}
        for found in facts:  # newest first: one value per account and currency
            if found["name"] == fact:
                key = (found["account_no"], found["currency"])
                newest.setdefault(key, Decimal(str(found["value"])))
        expected = truth[fact]
        wanted = sorted(
            map(Decimal, expected.values() if isinstance(expected, dict) else [expected])
        )
        assert sorted(newest.values()) == wanted, answer["answer"]


@pytest.mark.parametrize(
    ("name", "check"),
    [(name, check) for name, truth in sorted(TRUTHS.items()) for check in truth["checks"]],
    ids=lambda value: value if isinstance(value, str) else value["question"][:40],
)
def test_hand_written_questions_are_answered_exactly(env, ingested, name, check):
    answer = ask(env, name, check["question"])
    data = answer["data"]
    if "rows" in data:  # the row itself: "the largest single debit"
        assert data["rows"], answer["answer"]
        got = abs(Decimal(str(data["rows"][0]["amount"])))
        assert got == Decimal(check["expected"]), answer["answer"]
        return
    assert Decimal(str(data["value"])) == Decimal(check["expected"]), answer["answer"]
    if "count" in check and check["kind"] != "largest":
        assert data["count"] == check["count"], answer["answer"]
