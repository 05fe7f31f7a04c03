"""Landing stays safe: values no account holds are reported for their row and never stored,
no user's ids can collide with another's, and a row's id does not change between releases."""

from __future__ import annotations

import hashlib
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest.landing import FileDefaults, forget, ingest_file
from elastic.model.plan import Direction, Intent, IntentPlan, Interval
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from settings import Settings

HEADER = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"
ROW = "{day},{text},{amount},USD,Dining,Cafe,111122223333,Checking,Test Bank\n"


def test_huge_amounts_and_far_dates_are_reported_and_the_rest_lands(tmp_path: Path):
    csv = tmp_path / "t.csv"
    csv.write_text(
        HEADER
        + ROW.format(day="2025-01-03", text="COFFEE", amount="-4.50")
        + ROW.format(day="2025-01-04", text="TYPO", amount="-100000000000000000000.00")
        + ROW.format(day="9999-01-01", text="FAR", amount="-3.00")
        + ROW.format(day="2025-01-05", text="TEA", amount="-2.50")
    )
    backend = EmbeddedBackend(Settings(data_dir=tmp_path / "data"))
    backend.prepare(4, "test")
    report = ingest_file(backend, csv, "u")
    assert report.indexed == 2
    assert [(p.location, p.reason.split(" is ")[0]) for p in report.problems] == [
        ("line 3", "amount -100000000000000000000.00"),
        ("line 4", "date 9999-01-01"),
    ]
    total = backend.aggregate("u", IntentPlan(intent=Intent.aggregate))
    assert total.value == Decimal("7.00")
    trend = backend.trend("u", IntentPlan(intent=Intent.trend, interval=Interval.year))
    assert [b.value for b in trend.series] == [Decimal("7.00")]
    rows = backend.listing("u", IntentPlan(intent=Intent.listing, direction=Direction.any)).rows
    assert {r.description for r in rows} == {"COFFEE", "TEA"}
    backend.close()


def test_a_row_without_an_id_of_its_own_is_given_the_same_id_by_every_release(tmp_path: Path):
    """The id is the file's content (account, day, cents, currency and which occurrence of
    those on the file), so a file imported by an earlier release is skipped, not doubled. Rows
    with an id of their own count as occurrences too."""
    csv = tmp_path / "t.csv"
    row = ROW.format(day="2025-01-03", text="COFFEE", amount="-4.50")
    csv.write_text("transaction_id," + HEADER + "own-1," + row + "," + row + "," + row)
    backend = EmbeddedBackend(Settings(data_dir=tmp_path / "data"))
    backend.prepare(4, "test")
    assert ingest_file(backend, csv, "u").indexed == 3
    plan = IntentPlan(intent=Intent.listing, direction=Direction.any)
    ids = {r.transaction_id for r in backend.listing("u", plan).rows}
    backend.close()
    content = [f"111122223333|2025-01-03|-450|USD|{n}".encode() for n in (2, 3)]
    assert ids == {"own-1", *("tx-" + hashlib.sha1(key).hexdigest()[:16] for key in content)}


@pytest.mark.parametrize("engine", ["embedded", "elasticsearch"])
def test_user_and_row_ids_cannot_combine_into_another_users_row(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path
):
    backend = (
        request.getfixturevalue("fresh_es")
        if engine == "elasticsearch"
        else EmbeddedBackend(Settings(data_dir=tmp_path / "data"))
    )
    backend.prepare(384, "all-MiniLM-L6-v2-int8-onnx")
    header = "transaction_id," + HEADER
    for user, tx_id in (("mallory", "victim:t1"), ("mallory:victim", "t1")):
        csv = tmp_path / f"{user.replace(':', '-')}.csv"
        csv.write_text(header + f"{tx_id}," + ROW.format(day="2025-01-03", text=user, amount="-1"))
        assert ingest_file(backend, csv, user).indexed == 1, user
    for user in ("mallory", "mallory:victim"):
        plan = IntentPlan(intent=Intent.listing, direction=Direction.any)
        assert [r.description for r in backend.listing(user, plan).rows] == [user]


@pytest.mark.parametrize("engine", ["embedded", "elasticsearch"])
def test_a_file_or_everything_can_be_forgotten(
    engine: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    sample_set: SampleSet,
    embedder: LocalEmbedder,
):
    backend = (
        request.getfixturevalue("fresh_es")
        if engine == "elasticsearch"
        else EmbeddedBackend(Settings(data_dir=tmp_path / "data"))
    )
    backend.prepare(embedder.dims, embedder.model_name)
    store = StatementStore(tmp_path / "statements")
    pdf = next(p for p in sample_set.statement_layouts if p.name.startswith("nl_"))
    export = sample_set.exports[0].parent / "lloyds_current.csv"
    flags = FileDefaults(account_name="Lloyds Current", bank_name="Lloyds", currency="GBP")
    ingest_file(backend, pdf, "u", embedder, store, FileDefaults())
    ingest_file(backend, export, "u", defaults=flags)
    (statement,) = backend.statements("u")
    assert store.path(statement.source_file, "u").exists()
    assert sorted(backend.source_files("u")) == sorted([statement.source_file, export.name])

    forgotten = forget(backend, store, "u", [statement.source_file])
    assert forgotten.files == forgotten.pdfs == [statement.source_file]
    assert backend.statements("u") == [] and not store.path(statement.source_file, "u").exists()
    assert backend.source_files("u") == [export.name]
    closing = IntentPlan(intent=Intent.text_qa, text="closing balance", facts=["closing_balance"])
    assert [f.source_file for f in backend.facts("u", closing)] == [export.name]

    forgotten = forget(backend, store, "u")
    assert forgotten.documents == 21 + 2  # the export's rows and its two balances
    assert forgotten.files == [export.name] and forgotten.pdfs == []
    everything = IntentPlan(intent=Intent.aggregate, direction=Direction.any)
    assert backend.aggregate("u", everything).count == 0
    assert backend.facts("u", closing) == [] and backend.source_files("u") == []
