"""Importing several statement PDFs at once, on a real SQLite file and a real Elasticsearch node:
the same result as landing them one by one, every page searchable when the import returns, and
what landed before a failure searchable too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from elastic.backend import SearchBackend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.errors import ModelError
from elastic.ingest import Importer
from elastic.ingest.landing import FileDefaults, land_statement
from elastic.ingest.pdf.statement import StatementValues, read_statement
from elastic.model.plan import Intent, IntentPlan
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from tests.conftest import empty_backend

USER = "importer"
BACKENDS = ["embedded", "elasticsearch"]


class _FailsOnCall:
    """The local model, failing on its ``fail_on``-th call (the model crashing mid-import)."""

    def __init__(self, embedder: LocalEmbedder, fail_on: int) -> None:
        self.model_name, self.dims = embedder.model_name, embedder.dims
        self._embedder, self._fail_on, self.calls = embedder, fail_on, 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self._fail_on:
            raise ModelError("the model stopped")
        return self._embedder.embed(texts)


def _statement_ids(pdfs: list[Path]) -> set[str]:
    return {read_statement(pdf, pdf.name, StatementValues(), "USD").statement_id for pdf in pdfs}


def _closing_balances(backend: SearchBackend) -> set[str]:
    """The statements whose closing balance a question finds."""
    plan = IntentPlan(intent=Intent.text_qa, text="closing balance", facts=["closing_balance"])
    return {fact.statement_id for fact in backend.facts(USER, plan)}


def _searchable(backend: SearchBackend, embedder: LocalEmbedder) -> set[str]:
    """The statements whose pages a listing, a keyword and a vector search all find, and
    whose closing balance is found too."""
    listed = {s.statement_id for s in backend.statements(USER)}
    plan = IntentPlan(intent=Intent.text_qa, text="statement closing balance")
    hits = backend.text_qa(USER, plan, embedder.embed([plan.text or ""])[0]).hits
    assert hits and {h.statement_id for h in hits} <= listed
    assert listed <= _closing_balances(backend)
    return listed


@pytest.mark.parametrize("kind", BACKENDS)
def test_an_import_lands_as_the_files_do_one_by_one_and_is_searchable_when_it_returns(
    kind: str,
    request: pytest.FixtureRequest,
    sample_set: SampleSet,
    embedder: LocalEmbedder,
    tmp_path: Path,
):
    first, *others = sample_set.statement_pdfs[:4]
    pdfs = [first, first, *others]  # the same file twice: its second landing adds nothing
    with empty_backend(kind, request, tmp_path / "together", embedder) as backend:
        store = StatementStore(tmp_path / "together" / "pdfs")
        together = Importer(backend, USER, embedder, store).land_all(pdfs)
        assert _searchable(backend, embedder) == _statement_ids(pdfs)
    with empty_backend(kind, request, tmp_path / "alone", embedder) as backend:
        store = StatementStore(tmp_path / "alone" / "pdfs")
        alone = [land_statement(backend, p, USER, embedder, store, FileDefaults()) for p in pdfs]
    assert together.indexed == sum(r.indexed for r in alone) > 0
    assert together.skipped == sum(r.skipped for r in alone) == alone[0].indexed
    assert together.problems == [p for r in alone for p in r.problems]


@pytest.mark.parametrize("kind", BACKENDS)
def test_statements_landed_before_a_failure_are_searchable(
    kind: str,
    request: pytest.FixtureRequest,
    sample_set: SampleSet,
    embedder: LocalEmbedder,
    tmp_path: Path,
):
    pdfs = sample_set.statement_pdfs[:3]
    failing = _FailsOnCall(embedder, fail_on=3)  # one call per statement: the third fails
    with empty_backend(kind, request, tmp_path, embedder) as backend:
        with pytest.raises(ModelError, match="the model stopped"):
            Importer(backend, USER, failing, StatementStore(tmp_path / "pdfs")).land_all(pdfs)
        assert _searchable(backend, embedder) == _statement_ids(pdfs[:2])
        if isinstance(backend, ElasticsearchBackend):  # the periodic refresh is back on
            for name in (backend.st_index, backend.facts_index):
                [index] = backend.es.indices.get_settings(index=name).body.values()
                assert "refresh_interval" not in index["settings"]["index"]


def test_elasticsearch_makes_an_import_searchable_once_at_its_end(
    request: pytest.FixtureRequest, sample_set: SampleSet, embedder: LocalEmbedder, tmp_path: Path
):
    pdfs = sample_set.statement_pdfs[:3]
    during: list[tuple[int, str | None]] = []
    with empty_backend("elasticsearch", request, tmp_path, embedder) as backend:
        assert isinstance(backend, ElasticsearchBackend)

        importer = Importer(backend, USER, embedder, StatementStore(tmp_path / "pdfs"))
        for _ in importer.land_each(pdfs):  # after each file has landed
            intervals = backend.es.indices.get_settings(
                index=[backend.st_index, backend.facts_index], filter_path="*.settings.index"
            ).body
            during.append(
                (
                    len(backend.statements(USER)),
                    len(_closing_balances(backend)),
                    {i["settings"]["index"].get("refresh_interval") for i in intervals.values()},
                )
            )
        assert during == [(0, 0, {"-1"})] * len(pdfs)  # written, not yet searchable
        assert _searchable(backend, embedder) == _statement_ids(pdfs)
        segments = backend.es.cat.segments(index=backend.st_index, format="json").body
        assert len(segments) == 1  # one refresh cut one segment for the whole import
