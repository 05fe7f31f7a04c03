"""Shared fixtures: the sample data, the local embedder, a real Elasticsearch node."""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest

from elastic.backend import SearchBackend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest import Importer
from elastic.model.records import IngestReport
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet, generate_sample
from settings import Settings
from tests.vertex_loopback import VertexLoopback

SAMPLE_USER = "sample-user"
# The tests' sample ends in June 2025: their questions, dates and "as of" days were written for
# it. tests/test_sample_days.py checks samples that end in other months.
SAMPLE_END = date(2025, 6, 1)


@pytest.fixture(scope="session")
def sample_set(tmp_path_factory: pytest.TempPathFactory) -> SampleSet:
    return generate_sample(tmp_path_factory.mktemp("sample"), seed=7, end=SAMPLE_END)


@pytest.fixture(autouse=True)
def _no_kept_conversation(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The app keeps each user's conversation with their data and shows it again in a new
    session: a test of the app over the shared ingested sample (``tests/app_server.py``)
    starts from its first screen, not from the questions an earlier test asked."""
    chats = Settings(data_dir=tmp_path_factory.getbasetemp() / "ui-sample").chats_dir
    shutil.rmtree(chats, ignore_errors=True)


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


def _announce(request: pytest.FixtureRequest, message: str) -> None:
    """Print past pytest's capture, so the CI log shows which Elasticsearch the tests used."""
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\n[elasticsearch] {message}", flush=True)


@pytest.fixture(scope="session")
def es_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """``FINSYNC_ES_URL`` when set; otherwise a real local node, started once per session.

    A node that cannot start fails the tests that need it; it is never skipped.
    """
    configured = os.environ.get("FINSYNC_ES_URL")
    if configured:
        _announce(request, f"using FINSYNC_ES_URL={configured}")
        yield configured
        return
    from scripts.es_node import start_node

    node = start_node()
    version = json.loads(urllib.request.urlopen(node.url, timeout=10).read())["version"]["number"]
    _announce(request, f"started a local Elasticsearch {version} node, pid {node.pid}, {node.url}")
    try:
        yield node.url
    finally:
        node.stop()
        _announce(request, f"stopped the local node, pid {node.pid}")


def es_settings(es_url: str, data_dir: Path) -> Settings:
    """Settings with index names of their own, so tests never see each other's data."""
    suffix = uuid.uuid4().hex[:8]
    return Settings(
        es_url=es_url,
        statements_index=f"test-statements-{suffix}",
        transactions_index=f"test-transactions-{suffix}",
        facts_index=f"test-facts-{suffix}",
        category_rules_index=f"test-category-rules-{suffix}",
        data_dir=data_dir,
    )


@pytest.fixture
def fresh_es(
    es_url: str, tmp_path: Path, embedder: LocalEmbedder
) -> Iterator[ElasticsearchBackend]:
    backend = ElasticsearchBackend(es_settings(es_url, tmp_path))
    backend.prepare(embedder.dims, embedder.model_name)
    yield backend
    backend.es.indices.delete(index=backend.indices, ignore_unavailable=True)
    backend.close()


@contextmanager
def empty_backend(
    kind: str, request: pytest.FixtureRequest, data_dir: Path, embedder: LocalEmbedder
) -> Iterator[SearchBackend]:
    """A prepared, empty store of ``kind`` ("embedded" or "elasticsearch"), removed after use."""
    backend: SearchBackend
    if kind == "elasticsearch":
        backend = ElasticsearchBackend(es_settings(request.getfixturevalue("es_url"), data_dir))
    else:
        backend = EmbeddedBackend(Settings(data_dir=data_dir, es_url=None))
    backend.prepare(embedder.dims, embedder.model_name)
    try:
        yield backend
    finally:
        if isinstance(backend, ElasticsearchBackend):
            backend.es.indices.delete(index=backend.indices, ignore_unavailable=True)
        backend.close()


def ingest_sample(
    backend: object, sample: SampleSet, embedder: LocalEmbedder, store: StatementStore
) -> tuple[IngestReport, IngestReport]:
    importer = Importer(backend, SAMPLE_USER, embedder, store)
    return importer.land(sample.transactions_csv), importer.land_all(sample.statement_pdfs)


@pytest.fixture(scope="session")
def es_sample(
    es_url: str,
    sample_set: SampleSet,
    embedder: LocalEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ElasticsearchBackend]:
    """The sample set ingested once into Elasticsearch for the whole session."""
    settings = es_settings(es_url, tmp_path_factory.mktemp("es-data"))
    backend = ElasticsearchBackend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    tx, st = ingest_sample(backend, sample_set, embedder, StatementStore(settings.statements_dir))
    assert not tx.problems and not st.problems, (tx.problems, st.problems)
    yield backend
    backend.es.indices.delete(index=backend.indices, ignore_unavailable=True)
    backend.close()


@pytest.fixture(scope="session")
def embedded_sample(
    sample_set: SampleSet, embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EmbeddedBackend]:
    """The sample set ingested once into a real SQLite file for the whole session."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("embedded-data"))
    backend = EmbeddedBackend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    tx, st = ingest_sample(backend, sample_set, embedder, StatementStore(settings.statements_dir))
    assert not tx.problems and not st.problems, (tx.problems, st.problems)
    yield backend
    backend.close()


def transactions_store(sample_set: SampleSet, data_dir: Path) -> EmbeddedBackend:
    """The sample transactions landed by the real import into a SQLite store in ``data_dir``
    (about a second: no model, no statements)."""
    store = EmbeddedBackend(Settings(data_dir=data_dir))
    report = Importer(store, SAMPLE_USER).land(sample_set.transactions_csv)
    assert report.indexed and not report.problems, report
    return store


@pytest.fixture(scope="session", params=["embedded", "elasticsearch"])
def sample_backend(request: pytest.FixtureRequest) -> SearchBackend:
    """Each backend in turn, with the sample set ingested."""
    fixture = "es_sample" if request.param == "elasticsearch" else "embedded_sample"
    return request.getfixturevalue(fixture)


@pytest.fixture
def server() -> Iterator[VertexLoopback]:
    """A loopback Vertex AI server that the real google-genai SDK talks to."""
    with VertexLoopback() as loopback:
        yield loopback
