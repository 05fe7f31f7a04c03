"""How an import's transactions reach a real Elasticsearch node: several bulk requests of a
batch in flight at once, each row's outcome counted, refusals reported at the row's line; and
how an import reads every row it needs back, one page or many."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch

from elastic.engines.elasticsearch import backend as es_backend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.elasticsearch.mappings import transactions_mapping
from elastic.ingest.landing import ingest_file
from llm.embeddings import LocalEmbedder
from scripts.bench.data import write_transactions_csv
from scripts.es_node import start_node
from tests.conftest import es_settings

pytestmark = pytest.mark.elasticsearch

USER = "u1"
HEADER = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"


def _count(backend: ElasticsearchBackend) -> int:
    backend.es.indices.refresh(index=backend.tx_index)
    return int(backend.es.count(index=backend.tx_index)["count"])


def test_a_row_the_node_refuses_is_reported_at_its_line_and_the_others_land(
    fresh_es: ElasticsearchBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An index whose amounts are 32-bit: the node itself refuses the one row beyond that.
    mapping = transactions_mapping()
    mapping["properties"]["amount_cents"] = {"type": "integer"}
    fresh_es.es.indices.delete(index=fresh_es.tx_index)
    fresh_es.es.indices.create(index=fresh_es.tx_index, mappings=mapping)
    # Two rows a request: the refused row is in the second of three requests sent together.
    monkeypatch.setattr(es_backend, "TX_BULK_CHUNK", 2)
    amounts = ["-4.50", "-12.00", "-7.25", "30000000.00", "-3.10"]
    path = tmp_path / "t.csv"
    path.write_text(
        HEADER
        + "".join(
            f"2025-01-0{n + 1},SHOP {n},{amount},USD,Dining,Cafe,111122223333,Card,Bank\n"
            for n, amount in enumerate(amounts)
        )
    )
    report = ingest_file(fresh_es, path, USER)
    assert (report.indexed, report.skipped) == (4, 0)
    [problem] = report.problems
    assert problem.location == "line 5"
    assert "amount_cents" in problem.reason
    assert _count(fresh_es) == 4

    again = ingest_file(fresh_es, path, USER)
    assert (again.indexed, again.skipped) == (0, 4)
    assert [p.location for p in again.problems] == ["line 5"]
    assert _count(fresh_es) == 4


def test_an_import_reads_back_every_row_it_asks_for_beyond_one_page(
    fresh_es: ElasticsearchBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reads for matching a statement's rows, categories and transfers take one request when
    the rows fit in a page; more rows than that are all read too."""
    path = tmp_path / "t.csv"
    path.write_text(
        HEADER
        + "".join(
            f"2025-01-{day:02d},SHOP {day},-{day}.00,USD,Dining,Cafe,111122223333,Card,Bank\n"
            for day in range(1, 11)
        )
    )
    assert ingest_file(fresh_es, path, USER).indexed == 10
    days = (date(2025, 1, 1), date(2025, 1, 31))
    one_page = sorted(fresh_es.amounts_on_account(USER, "3333", *days))
    monkeypatch.setattr(es_backend, "SCAN_PAGE", 3)
    several_pages = sorted(fresh_es.amounts_on_account(USER, "3333", *days))
    assert one_page == several_pages == [(date(2025, 1, d), -d * 100) for d in range(1, 11)]


def test_rows_a_full_write_queue_turns_away_are_sent_again_until_they_land(
    tmp_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node of its own with one write thread and a queue of one: four requests at once
    overflow it, and the rows it turns away (429) are sent again."""
    rows = 2_000
    path = tmp_path / "t.csv"
    write_transactions_csv(path, rows)
    monkeypatch.setattr(es_backend, "TX_SENDERS", 4)
    monkeypatch.setattr(es_backend, "TX_BULK_CHUNK", 50)
    monkeypatch.setattr(es_backend, "BULK_RETRIES", 10)
    monkeypatch.setattr(es_backend, "BULK_RETRY_BACKOFF_S", 0.05)
    node = start_node(settings={"thread_pool.write.size": 1, "thread_pool.write.queue_size": 1})
    try:
        backend = ElasticsearchBackend(es_settings(node.url, tmp_path / "data"))
        backend.prepare(embedder.dims, embedder.model_name)
        report = ingest_file(backend, path, USER)
        stored = _count(backend)
        backend.close()
        stats = Elasticsearch(node.url).nodes.stats(metric="thread_pool")
        [pools] = [n["thread_pool"] for n in stats["nodes"].values()]
    finally:
        node.stop()
    assert pools["write"]["rejected"] > 0
    assert (report.indexed, report.skipped, report.problems) == (rows, 0, [])
    assert stored == rows
