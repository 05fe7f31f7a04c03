"""A large CSV lands streamed: every row stored, memory bounded by the batch rather than the
file, and progress that counts the rows actually stored."""

from __future__ import annotations

import csv
import gc
import sqlite3
import tracemalloc
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.backend import SearchBackend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite.backend import TX_INSERT_COLUMNS, EmbeddedBackend, transaction_values
from elastic.ingest import bank_csv, landing
from elastic.ingest.landing import ingest_file, preview_export, read_export
from elastic.model.plan import Direction, Intent, IntentPlan, Metric
from elastic.model.records import Transaction
from llm.embeddings import LocalEmbedder
from scripts.bench.data import write_transactions_csv
from settings import Settings
from tests.conftest import empty_backend

ROWS = 100_000
USER = "u"
HEADER = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"


def _backend(tmp_path: Path) -> EmbeddedBackend:
    backend = EmbeddedBackend(Settings(data_dir=tmp_path / "data"))
    backend.prepare(4, "test")
    return backend


def _stored(backend: EmbeddedBackend) -> int:
    plan = IntentPlan(intent=Intent.aggregate, direction=Direction.any, metric=Metric.count)
    return backend.aggregate(USER, plan).count


def _peak_bytes(work: object) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = work()  # type: ignore[operator]
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_large_csv_lands_every_row_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    assert write_transactions_csv(path, ROWS) == ROWS
    # What holding the file takes: its rows as read, before any cleaning.
    held, held_peak = _peak_bytes(lambda: bank_csv.read(path))
    assert len(held.rows) == ROWS  # type: ignore[attr-defined]
    del held
    backend = _backend(tmp_path)
    report, streamed_peak = _peak_bytes(lambda: ingest_file(backend, path, USER))
    assert (report.indexed, report.skipped, report.problems) == (ROWS, 0, [])  # type: ignore[attr-defined]
    assert _stored(backend) == ROWS
    backend.close()
    # Measured: about 37 MB to land 100,000 rows streamed (a batch and the values written from
    # it, and about 280 bytes per row for ids and their occurrence keys), 77 MB to hold the
    # rows as read. What grows with the file is that small entry per row: the margin stays.
    assert streamed_peak * 2 < held_peak, (streamed_peak, held_peak)


def test_the_cycle_collector_is_paused_while_rows_are_cleaned_and_resumed_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paused among the rows (progress is called there for each batch written), resumed when
    the last of several imports running at once is done, and left off if it was off."""
    monkeypatch.setattr(landing, "WRITE_BATCH", 10)
    path = tmp_path / "t.csv"
    write_transactions_csv(path, 25)
    backend = _backend(tmp_path)
    during: list[bool] = []
    ingest_file(backend, path, USER, progress=lambda *_: during.append(gc.isenabled()))
    backend.close()
    assert during == [False, False, True, True]  # two full batches, then the rest and the end
    assert gc.isenabled()
    paused = landing._CollectorPause()
    with paused():
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the other import is still running
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("kind", ["embedded", "elasticsearch"])
def test_progress_counts_rows_stored_out_of_the_lines_of_the_file(
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    embedder: LocalEmbedder,
) -> None:
    """Elasticsearch is written behind the cleaning (``background_writes``), the embedded
    store in step with it. Each call counts the rows known to be stored by then: exactly what
    the embedded store holds, and on Elasticsearch never more than it holds nor behind it by
    more than the batches still in flight."""
    monkeypatch.setattr(landing, "WRITE_BATCH", 10)
    rows = [
        f"2025-01-{1 + n % 28:02d},SHOP {n},-{n + 1}.00,USD,Dining,Cafe,1,Card,Bank\n"
        for n in range(35)
    ]
    rows[20] = "2025-01-05,BROKEN,not money,USD,Dining,Cafe,1,Card,Bank\n"
    path = tmp_path / "t.csv"
    path.write_text(HEADER + "".join(rows))
    with empty_backend(kind, request, tmp_path / "data", embedder) as backend:
        calls: list[tuple[int, int, int]] = []

        def progress(done: int, total: int, label: str) -> None:
            if isinstance(backend, ElasticsearchBackend):  # batches written so far, unrefreshed
                backend.es.indices.refresh(index=backend.tx_index)
            calls.append((done, total, _stored_rows(backend, [])[0]))

        report = ingest_file(backend, path, USER, progress=progress)
        assert report.indexed == 34 and [p.location for p in report.problems] == ["line 22"]
        # Rows stored out of the 35 lines below the header, a batch at a time, then the rest.
        assert [call[:2] for call in calls] == [(10, 35), (20, 35), (30, 35), (34, 35), (34, 35)]
        behind = (landing.WRITES_IN_FLIGHT - 1) * 10 if backend.background_writes else 0
        assert all(done <= stored <= done + behind for done, _, stored in calls), calls
        assert calls[-1][2] == 34


def test_a_streamed_preview_counts_every_row_and_reports_bad_ones_past_the_limit(
    tmp_path: Path,
) -> None:
    rows = [f"2025-02-{1 + n % 28:02d},SHOP {n},-{n + 1}.00,USD,,,1,Card,Bank\n" for n in range(30)]
    rows[25] = "2025-02-05,BROKEN,not money,USD,,,1,Card,Bank\n"
    path = tmp_path / "t.csv"
    path.write_text(HEADER + "".join(rows))
    parsed = read_export(path)
    assert parsed is not None and not isinstance(parsed.rows, list)
    backend = _backend(tmp_path)
    preview = preview_export(backend, parsed, USER, path.name, landing.FileDefaults(), limit=5)
    assert (len(preview.rows), preview.row_count, preview.pending) == (5, 29, 0)
    assert [p.location for p in preview.problems] == ["line 27"]
    assert _stored(backend) == 0
    backend.close()


BATCHES_ROWS = 4_500  # with batches of 1,000: four written unsearchable, then the last
SAMPLE_EVERY = 450


def _file_rows(path: Path) -> dict[str, int]:
    """transaction_id → amount in cents, as the file states them."""
    with path.open(newline="") as handle:
        return {
            row["transaction_id"]: int(Decimal(row["amount"]) * 100)
            for row in csv.DictReader(handle)
        }


def _stored_rows(backend: SearchBackend, ids: list[str]) -> tuple[int, int, dict[str, int]]:
    """What the store holds for USER, read past FinSync's query layer: the row count, the sum
    of amounts in cents, and the amounts of ``ids``."""
    if isinstance(backend, EmbeddedBackend):
        with sqlite3.connect(backend.path) as conn:
            count, total = conn.execute(
                "SELECT COUNT(*), SUM(amount_cents) FROM transactions WHERE user_id = ?", (USER,)
            ).fetchone()
            marks = ", ".join("?" * len(ids))
            found = conn.execute(
                "SELECT transaction_id, amount_cents FROM transactions "
                f"WHERE user_id = ? AND transaction_id IN ({marks})",
                (USER, *ids),
            ).fetchall()
        return count, total, dict(found)
    assert isinstance(backend, ElasticsearchBackend)
    user = {"term": {"user_id": USER}}
    totals = backend.es.search(
        index=backend.tx_index,
        query=user,
        size=0,
        track_total_hits=True,
        aggs={"cents": {"sum": {"field": "amount_cents"}}},
    )
    hits = backend.es.search(
        index=backend.tx_index,
        query={"bool": {"filter": [user, {"terms": {"transaction_id": ids}}]}},
        size=len(ids),
    )["hits"]["hits"]
    found = {h["_source"]["transaction_id"]: h["_source"]["amount_cents"] for h in hits}
    return totals["hits"]["total"]["value"], int(totals["aggregations"]["cents"]["value"]), found


def _refresh_interval(backend: ElasticsearchBackend) -> str | None:
    settings = backend.es.indices.get_settings(index=backend.tx_index)
    return settings[backend.tx_index]["settings"]["index"].get("refresh_interval")


def _searchable_as_before(backend: SearchBackend) -> bool:
    """Whether the store is set up for questions as it was before the import: the node
    refreshes the index again, the SQLite file has its transaction indexes."""
    if isinstance(backend, ElasticsearchBackend):
        return _refresh_interval(backend) is None  # the node's default
    assert isinstance(backend, EmbeddedBackend)
    with sqlite3.connect(backend.path) as conn:
        names = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' "
            "AND sql IS NOT NULL ORDER BY name"
        ).fetchall()
    return [n for (n,) in names] == ["tx_account", "tx_category", "tx_magnitude", "tx_merchant"]


@pytest.mark.parametrize("kind", ["embedded", "elasticsearch"])
def test_a_file_over_several_batches_lands_every_row_on_both_backends(
    kind: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(landing, "WRITE_BATCH", 1_000)
    path = tmp_path / "big.csv"
    write_transactions_csv(path, BATCHES_ROWS)
    in_file = _file_rows(path)
    sample = sorted(in_file)[::SAMPLE_EVERY]
    calls: list[tuple[int, int]] = []
    with empty_backend(kind, request, tmp_path / "data", embedder) as backend:
        report = ingest_file(backend, path, USER, progress=lambda d, t, _: calls.append((d, t)))
        assert (report.indexed, report.skipped, report.problems) == (BATCHES_ROWS, 0, [])
        count, total, found = _stored_rows(backend, sample)
        assert (count, total) == (len(in_file), sum(in_file.values()))
        assert found == {tx_id: in_file[tx_id] for tx_id in sample}
        # Progress is told after every write, never goes back, and ends at the file's total.
        done = [d for d, _ in calls]
        assert len(calls) >= 5 and done == sorted(done)
        assert all(d <= t for d, t in calls) and calls[-1] == (BATCHES_ROWS, BATCHES_ROWS)
        assert _searchable_as_before(backend)
        again = ingest_file(backend, path, USER)
        assert (again.indexed, again.skipped) == (0, BATCHES_ROWS)
        assert _stored_rows(backend, sample) == (count, total, found)


@pytest.mark.parametrize("kind", ["embedded", "elasticsearch"])
def test_an_import_that_fails_midway_leaves_what_it_wrote_searchable(
    kind: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(landing, "WRITE_BATCH", 1_000)
    path = tmp_path / "big.csv"
    write_transactions_csv(path, BATCHES_ROWS)

    def progress(done: int, total: int, label: str) -> None:
        if done >= 2_000:
            raise RuntimeError("the import was cancelled")

    with empty_backend(kind, request, tmp_path / "data", embedder) as backend:
        with pytest.raises(RuntimeError, match="cancelled"):
            ingest_file(backend, path, USER, progress=progress)
        assert _searchable_as_before(backend)
        count, _, _ = _stored_rows(backend, [])
        # What was counted, and on Elasticsearch the batches already in flight.
        behind = (landing.WRITES_IN_FLIGHT - 1) * 1_000 if backend.background_writes else 0
        assert 2_000 <= count <= 2_000 + behind


def test_stored_values_are_the_document_form_of_a_transaction() -> None:
    tx = Transaction(
        transaction_id="t-1",
        date=date(2025, 3, 4),
        description="Café Nero",
        amount=Decimal("-12.34"),
        currency="EUR",
        category="Dining",
        merchant="Café Nero",
        account_no="DE89370400440532013000",
        account_name="Giro",
        bank_name="Bank",
        balance=Decimal("1000.05"),
        source_file="a.csv",
        location="line 2",
        raw_description="CAFE NERO",
        category_inferred=True,
        page=2,
        box=(1.0, 2.0, 3.0, 4.0),
    )
    for row in (tx, replace(tx, balance=None, box=None, page=None, amount=Decimal("7.00"))):
        stored = dict(zip(TX_INSERT_COLUMNS, transaction_values(USER, row), strict=True))
        document = row.as_document(USER)
        box = document.pop("box")
        assert stored.pop("box") == (None if box is None else "[1.0, 2.0, 3.0, 4.0]")
        assert stored.pop("description_folded") == row.description.lower()
        assert stored == document
