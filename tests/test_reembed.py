"""A store whose page vectors came from another embedding model is refused, never mixed, and
``finsync reembed`` / ``SearchBackend.reembed`` replaces them all at once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite import backend as sqlite_backend
from elastic.engines.sqlite.backend import DB_FILE, EmbeddedBackend
from elastic.errors import EmbeddingMismatch
from elastic.ingest import Importer
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from settings import Settings
from tests.conftest import SAMPLE_USER, es_settings
from tests.test_cli import finsync


class EarlierModel:
    """The model a store was built with before: it cannot run here, so its vectors are
    seeded random unit rows of another width."""

    model_name, dims = "earlier-model", 32

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = np.random.default_rng(len(texts)).normal(size=(len(texts), self.dims))
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _stored(path: Path) -> list[tuple[str, np.ndarray, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT summary_text, summary_vector, embedding_model FROM statement_chunks"
        ).fetchall()
    return [(text, np.frombuffer(blob, dtype="<f4"), model) for text, blob, model in rows]


def _embedded_store(tmp_path: Path, pdfs: list[Path]) -> Path:
    settings = Settings(data_dir=tmp_path / "data", es_url=None)
    backend = EmbeddedBackend(settings)
    earlier = EarlierModel()
    backend.prepare(earlier.dims, earlier.model_name)
    store = StatementStore(settings.statements_dir)
    report = Importer(backend, SAMPLE_USER, earlier, store).land_all(pdfs)
    assert report.indexed and not report.problems
    backend.close()
    return settings.data_dir


def test_the_command_reembeds_a_store_of_another_model(
    tmp_path: Path, sample_set: SampleSet, embedder: LocalEmbedder
):
    data_dir = _embedded_store(tmp_path, sample_set.statement_pdfs[:2])
    env = {"FINSYNC_DATA_DIR": str(data_dir)}

    refused = finsync("ask", "What is the overdraft fee?", env=env, cwd=tmp_path)
    assert refused.returncode == 1
    assert "finsync reembed" in refused.stderr and "earlier-model" in refused.stderr

    done = finsync("reembed", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    pages = _stored(data_dir / DB_FILE)
    assert f"re-embedded {len(pages)} page(s) with {embedder.model_name}" in done.stdout
    texts = [text for text, _, _ in pages]
    np.testing.assert_allclose(
        np.stack([vector for _, vector, _ in pages]), embedder.embed(texts), atol=1e-5
    )
    assert {model for _, _, model in pages} == {embedder.model_name}

    answered = finsync("ask", "What is the overdraft fee?", env=env, cwd=tmp_path)
    assert answered.returncode == 0, answered.stderr[-2000:]


def test_an_interrupted_reembed_leaves_the_store_as_it_was(
    tmp_path: Path,
    sample_set: SampleSet,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(sqlite_backend, "REEMBED_BATCH", 4)  # several batches of few pages
    data_dir = _embedded_store(tmp_path, sample_set.statement_pdfs[:3])
    before = _stored(data_dir / DB_FILE)
    backend = EmbeddedBackend(Settings(data_dir=data_dir, es_url=None))
    calls = 0

    def fails_late(texts: list[str]) -> np.ndarray:
        nonlocal calls
        calls += 1
        if calls > 2:
            raise KeyboardInterrupt
        return embedder.embed(texts)

    with pytest.raises(KeyboardInterrupt):
        backend.reembed(fails_late, embedder.dims, embedder.model_name, lambda done, total: None)
    assert calls == 3
    after = _stored(data_dir / DB_FILE)
    assert [(t, v.tolist(), m) for t, v, m in after] == [(t, v.tolist(), m) for t, v, m in before]
    with pytest.raises(EmbeddingMismatch):
        backend.prepare(embedder.dims, embedder.model_name)
    backend.close()


def test_elasticsearch_swaps_in_a_reembedded_index(
    es_url: str, tmp_path: Path, sample_set: SampleSet, embedder: LocalEmbedder
):
    settings = es_settings(es_url, tmp_path)
    backend = ElasticsearchBackend(settings)
    earlier = EarlierModel()
    backend.prepare(earlier.dims, earlier.model_name)
    try:
        store = StatementStore(settings.statements_dir)
        Importer(backend, SAMPLE_USER, earlier, store).land_all(sample_set.statement_pdfs[:2])
        with pytest.raises(EmbeddingMismatch, match="finsync reembed"):
            backend.prepare(embedder.dims, embedder.model_name)
        stored = backend.es.count(index=settings.statements_index)["count"]
        assert stored

        seen: list[tuple[int, int]] = []
        for _ in range(2):  # the second run replaces the index behind the alias
            pages = backend.reembed(
                embedder.embed,
                embedder.dims,
                embedder.model_name,
                lambda done, total: seen.append((done, total)),
            )
            assert pages == stored
            assert seen[-1] == (pages, pages)
            backend.prepare(embedder.dims, embedder.model_name)  # no longer refused

        [concrete] = backend.es.indices.get(index=settings.statements_index)
        assert concrete != settings.statements_index
        hits = backend.es.search(
            index=settings.statements_index, size=pages, query={"match_all": {}}
        )["hits"]["hits"]
        assert len(hits) == pages
        texts = [hit["_source"]["summary_text"] for hit in hits]
        vectors = np.array([hit["_source"]["summary_vector"] for hit in hits], dtype=np.float32)
        np.testing.assert_allclose(vectors, embedder.embed(texts), atol=1e-5)
        assert {hit["_source"]["embedding_model"] for hit in hits} == {embedder.model_name}
    finally:
        concrete_indices = list(
            backend.es.indices.get(index=backend.indices, ignore_unavailable=True)
        )
        backend.es.indices.delete(index=concrete_indices, ignore_unavailable=True)
        backend.close()
