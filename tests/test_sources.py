"""Files by the names people know them by, on a real SQLite file and a real Elasticsearch node:
a statement PDF is kept under a digest but remembered, listed, cited and forgotten by the name it
was imported with and its month; two files of one name are told apart; stores written before
names were kept get the field and name their statements by what they are."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import date
from pathlib import Path

import pytest

from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.elasticsearch.mappings import facts_mapping, statements_mapping
from elastic.engines.sqlite.backend import DB_FILE, EmbeddedBackend
from elastic.ingest import Importer
from elastic.ingest.landing import ingest_file
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.sources import STATEMENT, list_sources, resolve
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from settings import Settings
from tests.conftest import SAMPLE_USER, empty_backend, es_settings

USER = "namer"
BACKENDS = ["embedded", "elasticsearch"]
AS_OF = date(2025, 7, 15)


def test_the_sample_files_are_listed_by_name_and_month(sample_backend, sample_set: SampleSet):
    files = list_sources(sample_backend, SAMPLE_USER)
    statements = [f for f in files if f.kind == STATEMENT]
    assert sorted(f.name for f in statements) == sorted(p.name for p in sample_set.statement_pdfs)
    march = next(f for f in statements if f.name.endswith("everyday-checking_2025-03.pdf"))
    assert march.period == "March 2025" and march.label == f"{march.name} · March 2025"
    assert march.pages == 3 and march.first == date(2025, 3, 1) and march.last == date(2025, 3, 31)
    assert march.key.endswith(".pdf") and "/" in march.key and march.key != march.name
    (export,) = [f for f in files if f.kind != STATEMENT]
    rows = sum(1 for _ in sample_set.transactions_csv.open()) - 1
    assert (export.name, export.rows) == ("transactions.csv", rows)
    assert export.period == "January 2024 – June 2025"
    # By name, then by date: never in the order of the digests they are kept under.
    names = [f.name for f in files]
    assert names == sorted(names, key=str.casefold)


@pytest.mark.parametrize("kind", BACKENDS)
def test_two_files_of_one_name_are_told_apart_and_forgotten_alone(
    kind: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    embedder: LocalEmbedder,
    sample_set: SampleSet,
) -> None:
    january, february = sample_set.statement_pdfs[:2]
    copies = []
    for folder, pdf in (("a", january), ("b", february)):
        (tmp_path / folder).mkdir()
        copies.append(Path(shutil.copy(pdf, tmp_path / folder / "statement.pdf")))
    store = StatementStore(tmp_path / "kept")
    with empty_backend(kind, request, tmp_path / "data", embedder) as backend:
        report = Importer(backend, USER, embedder, store).land_all(copies)
        assert not report.problems, report.problems
        files = list_sources(backend, USER)
        assert [f.name for f in files] == [
            "statement.pdf (January 2024)",
            "statement.pdf (February 2024)",
        ]
        assert [f.label for f in files] == [f.name for f in files]

        pipeline = ChatPipeline(backend, embedder, OfflineRouter)
        answer = pipeline.ask("What is the overdraft fee?", USER, AS_OF)
        cited = answer.citations[0]
        assert cited.label.startswith("statement.pdf · ") and cited.label.count("page") == 1
        assert cited.source_file not in cited.shown
        balance = pipeline.ask("What was my closing balance?", USER, AS_OF)
        fact = balance.citations[0]
        assert fact.shown == f"statement.pdf, page {fact.page}"
        assert "/" not in fact.source and "statement.pdf" in fact.source

        keys, unknown = resolve(files, ["statement.pdf (February 2024)", "nothing.pdf"])
        assert keys == [files[1].key] and unknown == ["nothing.pdf"]
        forgotten = pipeline.forget(USER, store, ["statement.pdf (January 2024)", "nothing.pdf"])
        assert forgotten.files == [files[0].key] and forgotten.unknown == ["nothing.pdf"]
        assert [f.name for f in list_sources(backend, USER)] == ["statement.pdf"]


def test_an_embedded_store_written_before_names_were_kept(
    tmp_path: Path, embedder: LocalEmbedder, sample_set: SampleSet
) -> None:
    """An older store gains the columns when it is opened; its statements, whose names were
    never recorded, are named by bank, account and month; new imports record theirs."""
    settings = Settings(data_dir=tmp_path / "data", es_url=None)
    backend = EmbeddedBackend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    store = StatementStore(settings.statements_dir)
    old = sample_set.statement_pdfs[:2]
    assert not Importer(backend, USER, embedder, store).land_all(old).problems
    backend.close()
    with sqlite3.connect(tmp_path / "data" / DB_FILE) as db:  # as a store before names
        for table in ("statement_chunks", "statement_facts"):
            db.execute(f"ALTER TABLE {table} DROP COLUMN file_name")

    reopened = EmbeddedBackend(settings)
    try:
        assert ingest_file(reopened, sample_set.statement_pdfs[2], USER, embedder, store).indexed
        names = [f.name for f in list_sources(reopened, USER)]
        assert names == [
            "Cedar Valley Bank Everyday Checking ***8831 (January 2024)",
            "Cedar Valley Bank Everyday Checking ***8831 (February 2024)",
            sample_set.statement_pdfs[2].name,
        ]
    finally:
        reopened.close()


def test_an_elasticsearch_index_written_before_names_were_kept(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder, sample_set: SampleSet
) -> None:
    """A strict mapping without ``file_name`` gets the field when the backend is prepared, so
    new statements land in it."""
    settings = es_settings(request.getfixturevalue("es_url"), tmp_path)
    backend = ElasticsearchBackend(settings)
    older = {
        settings.statements_index: statements_mapping(embedder.dims, embedder.model_name),
        settings.facts_index: facts_mapping(),
    }
    try:
        for index, mapping in older.items():
            del mapping["properties"]["file_name"]
            backend.es.indices.create(index=index, mappings=mapping)
        backend.prepare(embedder.dims, embedder.model_name)
        for index in older:
            [found] = backend.es.indices.get_mapping(index=index).values()
            assert "file_name" in found["mappings"]["properties"], index
        store = StatementStore(tmp_path / "kept")
        pdf = sample_set.statement_pdfs[0]
        assert ingest_file(backend, pdf, USER, embedder, store).indexed
        assert [f.name for f in list_sources(backend, USER)] == [pdf.name]
    finally:
        backend.es.indices.delete(index=backend.indices, ignore_unavailable=True)
        backend.close()
