"""Bank exports in banks' own layouts, landed on both backends and answered against their truth.

The sample generator writes six accounts in six formats (ING-DiBa, Lloyds and Halifax CSVs,
OFX, CAMT.053, MT940) with ``truth.json``, computed from the ledger the files were written from.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from decimal import Decimal

import pytest

from elastic.backend import SearchBackend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest.landing import FileDefaults, ingest_file
from elastic.model.plan import Direction, Intent, IntentPlan
from elastic.model.records import IngestReport
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from settings import Settings
from tests.conftest import es_settings

USER = "export-user"
AS_OF = date(2025, 4, 15)


def defaults_of(truth: dict) -> FileDefaults:
    flags = truth["flags"]
    return FileDefaults(
        account_name=flags.get("account-name"),
        account_no=flags.get("account-no"),
        bank_name=flags.get("bank"),
        currency=flags.get("currency"),
    )


def load_truths(sample: SampleSet) -> list[dict]:
    return json.loads((sample.exports[0].parent / "truth.json").read_text())


def land_exports(
    backend: SearchBackend, sample: SampleSet, embedder: LocalEmbedder, store: StatementStore
) -> dict[str, IngestReport]:
    reports = {}
    for truth in load_truths(sample):
        path = sample.exports[0].parent / truth["file"]
        reports[truth["file"]] = ingest_file(
            backend, path, USER, embedder, store, defaults_of(truth)
        )
    return reports


@pytest.fixture(scope="module", params=["embedded", "elasticsearch"])
def landed(
    request: pytest.FixtureRequest,
    sample_set: SampleSet,
    embedder: LocalEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[SearchBackend, dict[str, IngestReport]]]:
    data_dir = tmp_path_factory.mktemp("exports")
    if request.param == "elasticsearch":
        settings = es_settings(request.getfixturevalue("es_url"), data_dir)
        backend: SearchBackend = ElasticsearchBackend(settings)
    else:
        settings = Settings(data_dir=data_dir)
        backend = EmbeddedBackend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    reports = land_exports(backend, sample_set, embedder, StatementStore(settings.statements_dir))
    yield backend, reports
    if isinstance(backend, ElasticsearchBackend):
        backend.es.indices.delete(index=backend.indices, ignore_unavailable=True)
    backend.close()


@pytest.fixture(scope="module")
def truths(sample_set: SampleSet) -> dict[str, dict]:
    return {truth["file"]: truth for truth in load_truths(sample_set)}


def test_every_export_lands_whole(landed, truths):
    _, reports = landed
    for name, truth in truths.items():
        report = reports[name]
        assert not report.problems, (name, report.problems)
        assert report.indexed == truth["transactions"], name
        assert not report.assumed, (name, report.assumed)


def test_formats_are_detected_from_content(landed):
    _, reports = landed
    formats = {name: report.format for name, report in reports.items()}
    assert "ING" in formats["ing_girokonto.csv"]
    assert "Lloyds" in formats["lloyds_current.csv"]
    assert "Halifax" in formats["halifax_card.csv"]
    assert formats["northwind_checking.ofx"].lower().startswith("ofx")
    assert "camt" in formats["rabobank_zakelijk.xml"].lower()
    assert "mt940" in formats["sparkasse_tagesgeld.sta"].lower()


@pytest.mark.parametrize("direction", [Direction.out, Direction.in_])
def test_spend_and_income_per_account_match_the_ledger(landed, truths, direction):
    backend, _ = landed
    for truth in truths.values():
        plan = IntentPlan(intent=Intent.aggregate, direction=direction, accounts=[truth["account"]])
        result = backend.aggregate(USER, plan)
        expected = Decimal(truth["spend" if direction is Direction.out else "income"])
        assert result.value == expected, (truth["file"], direction)
        if expected:  # an empty result has no currency of its own
            assert result.currency == truth["currency"], truth["file"]


def test_several_currencies_are_never_added(landed, truths):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    answer = pipeline.ask("How much did I spend?", USER, AS_OF)
    parts = {part.currency: part.value for part in answer.result.by_currency}
    expected: dict[str, Decimal] = {}
    for truth in truths.values():
        expected[truth["currency"]] = expected.get(truth["currency"], 0) + Decimal(truth["spend"])
    assert parts == expected
    assert answer.result.value is None and answer.result.currency == "mixed"
    assert "never added together" in answer.text
    assert len(answer.citations) == len(expected)
    data = answer.as_json()["data"]
    assert {p["currency"]: Decimal(str(p["value"])) for p in data["by_currency"]} == expected


def test_transfers_between_own_accounts_are_not_spend(landed):
    backend, _ = landed
    plan = IntentPlan(intent=Intent.listing, direction=Direction.any, text="SEPA GUTSCHRIFT")
    (incoming,) = backend.listing(USER, plan).rows
    assert incoming.category == "Transfers" and incoming.category_inferred
    outgoing = backend.listing(USER, plan.model_copy(update={"text": "Umbuchung"})).rows
    assert [r.category for r in outgoing] == ["Transfers"]


def test_merchants_are_normalised_and_answer_by_name(landed, truths):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    for merchant, total in [
        ("Tesco", "lloyds_current.csv"),
        ("Albert Heijn", "rabobank_zakelijk.xml"),
    ]:
        answer = pipeline.ask(f"How much did I spend at {merchant}?", USER, AS_OF)
        assert answer.plan.merchants == [merchant]
        assert answer.result.value == Decimal(truths[total]["spend_at"][merchant])


def test_stated_balances_answer_balance_questions(landed, truths):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    for truth in truths.values():
        if "closing_balance" not in truth:
            continue
        account = truth["account"]
        for fact in ("closing", "opening"):
            if f"{fact}_balance" not in truth:
                continue
            answer = pipeline.ask(f"What was the {fact} balance of {account}?", USER, AS_OF)
            facts = answer.as_json()["data"]["facts"]
            assert facts, (truth["file"], answer.text)
            assert facts[0]["name"] == f"{fact}_balance"
            assert Decimal(str(facts[0]["value"])) == Decimal(truth[f"{fact}_balance"])
            assert answer.citations[0].source_file == truth["file"]


def test_reingesting_adds_nothing(landed, sample_set, embedder, tmp_path):
    backend, _ = landed
    again = land_exports(backend, sample_set, embedder, StatementStore(tmp_path))
    assert all(r.indexed == 0 and r.skipped > 0 and not r.problems for r in again.values())


def test_a_reformatted_reexport_adds_nothing(landed, sample_set, embedder, tmp_path):
    backend, _ = landed
    original = sample_set.exports[0].parent / "lloyds_current.csv"
    lines = original.read_text().splitlines()
    # The same export downloaded again: amounts without trailing zeros.
    reformatted = [lines[0], *(line.replace(".00,", ",") for line in lines[1:])]
    path = tmp_path / "lloyds_again.csv"
    path.write_text("\n".join(reformatted) + "\n")
    report = ingest_file(
        backend,
        path,
        USER,
        embedder,
        StatementStore(tmp_path),
        FileDefaults(currency="GBP", bank_name="Lloyds Bank"),
    )
    assert report.indexed == 0 and report.skipped == len(lines) - 1, report


def test_a_corrected_category_applies_to_all_rows_and_later_imports(sample_set, embedder, tmp_path):
    backend = EmbeddedBackend(Settings(data_dir=tmp_path))
    backend.prepare(embedder.dims, embedder.model_name)
    pipeline = ChatPipeline(backend, embedder, OfflineRouter)
    lloyds = sample_set.exports[0].parent / "lloyds_current.csv"
    flags = FileDefaults(bank_name="Lloyds Bank", currency="GBP")
    ingest_file(backend, lloyds, "u", embedder, StatementStore(tmp_path), flags)
    changed = pipeline.correct_category("u", "Pret A Manger", "Coffee")
    plan = IntentPlan(intent=Intent.aggregate, categories=["Coffee"])
    assert backend.aggregate("u", plan).count == changed > 0
    # A later export of another account with the same merchant follows the correction.
    later = tmp_path / "later.csv"
    later.write_text(
        lloyds.read_text().splitlines()[0]
        + "\n01/04/2025,DEB,'30-99-50,87654321,PRET A MANGER KINGS X,4.20,,100.00\n"
    )
    ingest_file(backend, later, "u", embedder, StatementStore(tmp_path), flags)
    assert backend.aggregate("u", plan).count == changed + 1
    backend.close()
