"""Index creation, ingestion and retrieval against a real Elasticsearch node."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.elasticsearch.compile import compile_query
from elastic.engines.elasticsearch.mappings import transactions_mapping
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.errors import EmbeddingMismatch
from elastic.ingest import Importer
from elastic.ingest.pdf.statement import StatementValues, read_statement
from elastic.model.plan import Intent, IntentPlan
from elastic.query import build
from elastic.query.flows import VECTOR_FAILED_NOTE
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from settings import Settings
from tests.conftest import SAMPLE_USER

pytestmark = pytest.mark.elasticsearch


def _count(backend: ElasticsearchBackend, index: str, user: str = SAMPLE_USER) -> int:
    return backend.es.count(index=index, query={"term": {"user_id": user}})["count"]


def test_mappings_use_the_embedder_dims(fresh_es: ElasticsearchBackend, embedder: LocalEmbedder):
    mapping = fresh_es.es.indices.get_mapping(index=fresh_es.st_index)[fresh_es.st_index]
    props = mapping["mappings"]["properties"]
    assert props["summary_vector"] == {
        "type": "dense_vector",
        "dims": embedder.dims,
        "index": True,
        "similarity": "cosine",
        "index_options": props["summary_vector"]["index_options"],
    }
    assert mapping["mappings"]["_meta"]["embedding_model"] == embedder.model_name
    assert props["text"]["type"] == "text" and props["statement_id"]["type"] == "keyword"
    tx = fresh_es.es.indices.get_mapping(index=fresh_es.tx_index)[fresh_es.tx_index]
    tx_props = tx["mappings"]["properties"]
    assert tx_props["amount_cents"]["type"] == "long"
    assert tx_props["date"]["type"] == "date"
    assert tx_props["category"]["type"] == "keyword"
    assert tx_props["description"]["type"] == "text"


def test_an_index_made_before_payment_kinds_gets_the_field(
    fresh_es: ElasticsearchBackend, embedder: LocalEmbedder
):
    """Stores made by an earlier release gain new fields when opened; nothing else changes."""
    tx_index = fresh_es.tx_index
    fresh_es.es.indices.delete(index=tx_index)
    older = transactions_mapping()
    del older["properties"]["payment_kind"]
    fresh_es.es.indices.create(index=tx_index, mappings=older)
    fresh_es.prepare(embedder.dims, embedder.model_name)
    props = fresh_es.es.indices.get_mapping(index=tx_index)[tx_index]["mappings"]["properties"]
    assert props["payment_kind"] == {"type": "keyword"}
    assert props["amount_cents"]["type"] == "long"


def test_existing_index_with_other_vectors_is_an_error(
    fresh_es: ElasticsearchBackend, embedder: LocalEmbedder, tmp_path: Path
):
    with pytest.raises(EmbeddingMismatch, match="768"):
        fresh_es.prepare(768, "text-embedding-005")
    with pytest.raises(EmbeddingMismatch, match="another-model"):
        fresh_es.prepare(embedder.dims, "another-model")
    embedded = EmbeddedBackend(Settings(data_dir=tmp_path / "embedded"))
    embedded.prepare(embedder.dims, embedder.model_name)
    with pytest.raises(EmbeddingMismatch, match="another-model"):
        embedded.prepare(embedder.dims, "another-model")
    embedded.close()


def test_sample_ingest_counts_and_idempotency(
    es_sample: ElasticsearchBackend, sample_set: SampleSet
):
    with sample_set.transactions_csv.open(newline="") as handle:
        rows = sum(1 for _ in csv.DictReader(handle))
    chunks = sum(
        len(read_statement(p, "x", StatementValues(), "USD").chunks)
        for p in sample_set.statement_pdfs
    )
    assert _count(es_sample, es_sample.tx_index) == rows
    assert _count(es_sample, es_sample.st_index) == chunks

    again = Importer(es_sample, SAMPLE_USER).land(sample_set.transactions_csv)
    assert (again.indexed, again.skipped, again.problems) == (0, rows, [])
    assert _count(es_sample, es_sample.tx_index) == rows


BROKEN_CSV = """\
date,description,amount,currency,category,merchant,account_no,account_name,bank_name
2025-01-03,COFFEE,-4.50,USD,Dining,Blue Bottle,111122223333,Checking,Test Bank
2025-13-40,BAD DATE,-10.00,USD,Dining,Blue Bottle,111122223333,Checking,Test Bank
2025-01-05,BAD AMOUNT,twelve,USD,Dining,Blue Bottle,111122223333,Checking,Test Bank
2025-01-06,,-3.00,USD,Dining,Blue Bottle,111122223333,Checking,Test Bank
2025-01-07,LUNCH,-12.25,USD,Dining,Blue Bottle,111122223333,Checking,Test Bank
2025-01-07,LUNCH,-12.25,USD,Dining,Blue Bottle,111122223333,Checking,Test Bank
"""


def test_broken_csv_lands_good_rows_and_reports_bad_lines(
    fresh_es: ElasticsearchBackend, tmp_path: Path
):
    path = tmp_path / "broken.csv"
    path.write_text(BROKEN_CSV)
    report = Importer(fresh_es, "u1").land(path)
    assert report.indexed == 3  # two identical lunches are two purchases
    locations = {p.location: p.reason for p in report.problems}
    assert set(locations) == {"line 3", "line 4", "line 5"}
    assert "date" in locations["line 3"]
    assert "amount" in locations["line 4"]
    assert "description" in locations["line 5"]
    assert _count(fresh_es, fresh_es.tx_index, "u1") == 3


def test_knn_finds_the_terms_page_for_a_fact(
    es_sample: ElasticsearchBackend, embedder: LocalEmbedder
):
    vector = [float(x) for x in embedder.embed(["What is the overdraft fee per item?"])[0]]
    plan = IntentPlan(intent=Intent.text_qa, text="What is the overdraft fee per item?")
    [body] = compile_query(
        build.vector_ranking(plan, SAMPLE_USER, vector), es_sample.query_indices
    ).values()
    hits = es_sample.es.search(index=es_sample.st_index, body=body)["hits"]["hits"][:5]
    texts = [h["_source"]["text"] for h in hits]
    assert any("Overdraft fee: $35.00 per item" in t for t in texts), texts


def test_bm25_finds_a_merchant_by_name(es_sample: ElasticsearchBackend):
    response = es_sample.es.search(
        index=es_sample.tx_index,
        query={
            "bool": {
                "must": [{"match": {"merchant.text": "capital grille"}}],
                "filter": [{"term": {"user_id": SAMPLE_USER}}],
            }
        },
        size=50,
    )
    merchants = {h["_source"]["merchant"] for h in response["hits"]["hits"]}
    assert merchants == {"The Capital Grille"}
    plan = IntentPlan(intent=Intent.text_qa, text="Coursera")
    [bm25] = compile_query(
        build.keyword_ranking(plan, SAMPLE_USER), es_sample.query_indices
    ).values()
    hits = es_sample.es.search(index=es_sample.st_index, body=bm25)
    assert hits["hits"]["hits"] and all(
        "COURSERA" in h["_source"]["text"].upper() for h in hits["hits"]["hits"]
    )


def test_other_users_see_nothing(es_sample: ElasticsearchBackend):
    plan = IntentPlan(intent=Intent.listing, direction="any", limit=5)
    assert es_sample.listing("someone-else", plan).total == 0
    assert (
        es_sample.text_qa(
            "someone-else", IntentPlan(intent=Intent.text_qa, text="overdraft fee"), None
        ).hits
        == []
    )


def test_corrupt_pdf_is_reported_and_the_rest_lands(
    fresh_es: ElasticsearchBackend, sample_set: SampleSet, embedder: LocalEmbedder, tmp_path: Path
):
    from elastic.statement_store import StatementStore

    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\nthis is not really a pdf")
    good = sample_set.statement_pdfs[0]
    store = StatementStore(tmp_path / "store")
    report = Importer(fresh_es, "u2", embedder, store).land_all([corrupt, good])
    assert [(p.source, p.location) for p in report.problems] == [("corrupt.pdf", "file")]
    statement = read_statement(good, "x", StatementValues(), "USD")
    assert statement.transactions is not None  # its rows reconcile, so they land too
    landed = len(statement.chunks) + len(statement.transactions.rows)
    assert report.indexed == landed > len(statement.chunks) > 0


def test_text_search_falls_back_to_keywords_when_knn_fails(
    es_sample: ElasticsearchBackend, embedder: LocalEmbedder
):
    plan = IntentPlan(intent=Intent.text_qa, text="overdraft fee per item")
    wrong_dims = np.ones(embedder.dims + 3, dtype=np.float32)
    result = es_sample.text_qa(SAMPLE_USER, plan, wrong_dims)
    assert result.keyword_only and result.note == VECTOR_FAILED_NOTE
    assert any("Overdraft fee: $35.00" in hit.text for hit in result.hits)
