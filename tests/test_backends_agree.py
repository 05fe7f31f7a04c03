"""Differential suite: the embedded backend and Elasticsearch agree on every labeled question."""

from __future__ import annotations

import pytest

from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.model.plan import Intent, IntentPlan
from elastic.model.results import AggregateResult, TrendResult
from llm.embeddings import LocalEmbedder
from llm.executor import execute
from llm.understanding.offline_router import OfflineRouter
from tests.conftest import SAMPLE_USER
from tests.labeled import load_cases, route_case
from tests.plan_grid import grid

pytestmark = pytest.mark.elasticsearch


def test_vocabularies_agree(es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend):
    assert es_sample.vocabulary(SAMPLE_USER) == embedded_sample.vocabulary(SAMPLE_USER)


def test_statement_browsing_agrees(
    es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend
):
    es_statements = es_sample.statements(SAMPLE_USER)
    assert es_statements == embedded_sample.statements(SAMPLE_USER)
    first = es_statements[0].statement_id
    assert es_sample.statement_chunks(SAMPLE_USER, first) == embedded_sample.statement_chunks(
        SAMPLE_USER, first
    )


def _plans(backend: ElasticsearchBackend) -> list[IntentPlan]:
    router = OfflineRouter(backend.vocabulary(SAMPLE_USER))
    return [route_case(router, case) for case in load_cases()]


def test_every_labeled_plan_gives_identical_numbers_and_rows(
    es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend
):
    compared = 0
    for plan in _plans(es_sample):
        if plan.intent not in (Intent.aggregate, Intent.trend, Intent.listing):
            continue
        on_es = execute(es_sample, SAMPLE_USER, plan)
        on_embedded = execute(embedded_sample, SAMPLE_USER, plan)
        assert on_es == on_embedded, plan
        compared += 1
    assert compared >= 250


def test_every_grid_plan_gives_identical_answers(
    es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend
):
    """The grid, run as the executor runs it (top N groups cut, currencies split), covers
    empty buckets and cut groups on both engines."""
    empty_buckets = cut_groups = 0
    for plan in grid():
        on_es = execute(es_sample, SAMPLE_USER, plan)
        assert on_es == execute(embedded_sample, SAMPLE_USER, plan), plan
        if isinstance(on_es, TrendResult):
            empty_buckets += sum(b.count == 0 for b in on_es.series)
        if isinstance(on_es, AggregateResult) and plan.top:
            everything = es_sample.aggregate(SAMPLE_USER, plan)
            cut_groups += len(on_es.groups) == plan.top < len(everything.groups)
    assert empty_buckets > 0 and cut_groups > 0


def test_listing_pages_agree(es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend):
    plan = IntentPlan(intent=Intent.listing, direction="any", sort="largest", limit=25)
    pages = {}
    for name, backend in (("es", es_sample), ("embedded", embedded_sample)):
        rows, after = [], None
        while True:
            page = backend.listing(SAMPLE_USER, plan, after)
            rows += [r.transaction_id for r in page.rows]
            if page.next_after is None:
                break
            after = page.next_after
        pages[name] = rows
    assert pages["es"] == pages["embedded"]
    assert len(pages["es"]) == len(set(pages["es"])) == es_sample.listing(SAMPLE_USER, plan).total


def test_text_search_overlap_is_reported(
    es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend, embedder: LocalEmbedder
):
    """Both engines' top-5 passages for the labeled text questions overlap: the mean share
    of Elasticsearch's hits the embedded store also returns stays above a floor (each fuses its
    own BM25 with kNN, so they are not expected to be equal; tests/test_text_qa.py checks, on
    both backends, that each terms fact is quoted from the right account's page)."""
    # Measured: mean 0.38 to 0.50 over 49 to 51 questions (sample seed 7, the local
    # Elasticsearch 8.19 node the es_url fixture starts, the int8 MiniLM embedder); it moves
    # from run to run with Elasticsearch's per-segment BM25 statistics. The floor sits below
    # the lowest value seen.
    min_mean_overlap = 0.30
    text_cases = [
        case for case in load_cases() if case["expect"].get("intent") == Intent.text_qa.value
    ]
    overlaps = []
    for case in text_cases:
        plan = route_case(OfflineRouter(es_sample.vocabulary(SAMPLE_USER)), case)
        if plan.intent is not Intent.text_qa:
            continue
        vector = embedder.embed([plan.text or ""])[0]
        es_hits = {h.doc_id for h in es_sample.text_qa(SAMPLE_USER, plan, vector).hits}
        embedded_hits = {h.doc_id for h in embedded_sample.text_qa(SAMPLE_USER, plan, vector).hits}
        overlaps.append(len(es_hits & embedded_hits) / max(len(es_hits), 1))
    mean = sum(overlaps) / len(overlaps)
    print(f"\ntext_qa top-5 overlap over {len(overlaps)} questions: mean {mean:.2f}")
    assert len(overlaps) >= 30
    assert mean >= min_mean_overlap, f"mean top-5 overlap {mean:.2f} < {min_mean_overlap}"


IMPORT_ROWS = (
    "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"
    "2025-03-01,SALARY ACME,2500.00,EUR,Income,Acme,DE001,Giro,Bank A\n"
    "2025-03-02,TESCO STORES,-40.00,EUR,Groceries,Tesco,DE001,Giro,Bank A\n"
    "2025-03-03,TESCO STORES,-25.00,EUR,,Tesco,DE001,Giro,Bank A\n"
    "2025-03-04,MOVE TO SAVINGS,-300.00,EUR,,,DE001,Giro,Bank A\n"
    "2025-03-05,FROM GIRO,300.00,EUR,,,DE002,Savings,Bank A\n"
)


def test_the_reads_an_import_makes_agree_and_stay_with_their_user(
    es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend, tmp_path
):
    """Category memory and transfer candidates go through the query spec on both engines."""
    from datetime import date

    from elastic.ingest.landing import ingest_file

    path = tmp_path / "own.csv"
    path.write_text(IMPORT_ROWS)
    found = {}
    for backend in (es_sample, embedded_sample):
        for user in ("import-reads-a", "import-reads-b"):
            assert ingest_file(backend, path, user).indexed == 5
        memory = backend.category_memory("import-reads-a")
        candidates = backend.pair_candidates("import-reads-a", date(2025, 1, 1), date(2025, 12, 31))
        found[backend.name] = (memory, candidates)
        assert memory.history["Tesco"] == "Groceries"
        assert {r.account_no for r in candidates} <= {"DE001", "DE002"}
        assert not backend.pair_candidates("import-reads-c", date(2025, 1, 1), date(2025, 12, 31))
        assert not backend.category_memory("import-reads-c").history
    assert found[es_sample.name] == found[embedded_sample.name]
