"""The benchmark at a tiny size on the embedded store: its report, and its exactness check."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest import Importer
from elastic.model.records import Transaction
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from scripts.bench.__main__ import main
from scripts.bench.data import write_transactions_csv
from scripts.bench.questions import (
    QUESTIONS,
    answer_figures,
    compare,
    duckdb_figures,
    load_duckdb,
    load_pandas,
    pandas_figures,
)
from scripts.bench.run import AS_OF, USER
from settings import Settings


def test_a_tiny_run_reports_every_question_exactly(tmp_path: Path):
    output = tmp_path / "BENCHMARK.md"
    args = ["--sizes", "3000", "--pages", "40", "--runs", "2", "--backends", "embedded"]
    assert main([*args, "--output", str(output)]) == 0
    report = output.read_text(encoding="utf-8")
    for question in QUESTIONS:  # its row in the latency table, then in the stages table
        latency, _ = [
            line for line in report.splitlines() if line.startswith(f"| {question.text} |")
        ]
        assert latency.endswith("| exact |"), latency
    ingestion = next(line for line in report.splitlines() if "embedded ingestion (CSV" in line)
    # How far from the goal, and the store's share of the time, in the targets table itself.
    measured = re.fullmatch(
        r"\| .* \| ≥ 50,000 rows/s \| ([\d,]+) rows/s at 3,000, (\d+)% of the goal; "
        r"the store's own writes ([\d.]+) of ([\d.]+) s \(([\d,]+) rows/s alone\) \| .* \|",
        ingestion,
    )
    assert measured, ingestion
    rate, percent, store_s, total_s, store_rate = (
        float(g.replace(",", "")) for g in measured.groups()
    )
    assert percent == round(rate / 500) and store_s <= total_s and rate <= store_rate
    landed = next(line for line in report.splitlines() if line.startswith("| 3,000 | embedded |"))
    cells = [cell.strip().replace(",", "") for cell in landed.strip("|").split("|")]
    rate, store_rate = float(cells[4]), float(cells[8])
    assert 0 < rate <= store_rate, landed  # the store's writes are a part of the import
    pages = next(line for line in report.splitlines() if "statement pages with local" in line)
    assert "| ≥ 10 pages/s |" in pages and "54 PDFs" in pages, pages
    first = next(line for line in report.splitlines() if "first answers in a fresh app" in line)
    assert first.count(" s (") == 2, first  # both questions answered and timed
    assert (tmp_path / "benchmark" / "results.json").is_file()


def test_the_check_finds_a_number_the_references_do_not_have(
    tmp_path: Path, embedder: LocalEmbedder
):
    csv_path = tmp_path / "transactions.csv"
    write_transactions_csv(csv_path, 2000)
    backend = EmbeddedBackend(Settings(data_dir=tmp_path / "store"))
    backend.prepare(embedder.dims, embedder.model_name)
    try:
        assert not Importer(backend, USER).land(csv_path).problems
        pipeline = ChatPipeline(backend, embedder, OfflineRouter)
        frame, pages = load_pandas(csv_path, [])
        con = load_duckdb(csv_path, [])
        groceries = next(q for q in QUESTIONS if q.key == "groceries 2024")

        def verdicts() -> tuple[str, str]:
            found = answer_figures(pipeline.ask(groceries.text, USER, AS_OF))
            return (
                compare(found, pandas_figures(frame, pages, groceries)),
                compare(found, duckdb_figures(con, groceries)),
            )

        assert verdicts() == ("exact", "exact")
        stray = Transaction(
            transaction_id="stray-1",
            date=date(2024, 6, 1),
            description="SAFEWAY #1552 OAKLAND CA",
            amount=Decimal("-12.34"),
            currency="USD",
            category="Groceries",
            merchant="Safeway",
            account_no="4402718831",
            account_name="Everyday Checking",
            bank_name="Cedar Valley Bank",
        )
        backend.add_transactions(USER, [stray])
        for verdict in verdicts():
            assert verdict.startswith("mismatch at row 1:"), verdict
        con.close()
    finally:
        backend.close()
