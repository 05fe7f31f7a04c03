"""Ingestion shared by both backends: read, embed in batches, write idempotently, report."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from elastic.backend import SearchBackend, WriteCounts
from elastic.csv_reader import CsvFormatError, read_transactions_csv
from elastic.pdf_reader import read_statement_pdf
from elastic.records import IngestProblem, IngestReport, StatementChunk, Transaction
from elastic.statement_store import StatementStore
from llm.embeddings import Embedder

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
"""``progress(done, total, label)``: the CLI draws a bar, the UI a progress widget."""

WRITE_BATCH = 2000
EMBED_BATCH = 64


def _no_progress(done: int, total: int, label: str) -> None:
    return None


def _account_failures(report: IngestReport, counts: WriteCounts, source: str, where: dict) -> None:
    report.indexed += counts.indexed
    report.skipped += counts.skipped
    for doc_id, reason in counts.failed.items():
        report.problems.append(IngestProblem(source, where.get(doc_id, doc_id), reason))


def ingest_transactions(
    backend: SearchBackend, csv_path: Path, user_id: str, progress: Progress = _no_progress
) -> IngestReport:
    """Land every good row of ``csv_path``; report each bad row by line number."""
    report = IngestReport()
    source = csv_path.name
    try:
        rows = list(read_transactions_csv(csv_path))
    except CsvFormatError as exc:
        report.problems.append(IngestProblem(source, "file", str(exc)))
        return report
    good: list[Transaction] = []
    lines: dict[str, str] = {}
    for row in rows:
        if row.problem:
            report.problems.append(row.problem)
        elif row.transaction:
            good.append(row.transaction)
            lines[row.transaction.transaction_id] = f"line {row.line}"
    for start in range(0, len(good), WRITE_BATCH):
        batch = good[start : start + WRITE_BATCH]
        counts = backend.add_transactions(user_id, batch)
        _account_failures(report, counts, source, lines)
        progress(start + len(batch), len(good), source)
    report.problems.sort(key=lambda p: (p.source, _line_number(p.location)))
    log.info("ingested %s: %s", source, report.summary())
    return report


def _line_number(location: str) -> int:
    digits = "".join(ch for ch in location if ch.isdigit())
    return int(digits) if digits else 0


def _write_chunks(
    backend: SearchBackend,
    embedder: Embedder,
    user_id: str,
    chunks: Sequence[StatementChunk],
    report: IngestReport,
    source: str,
) -> None:
    missing = backend.missing_chunks(user_id, [c.doc_id for c in chunks])
    report.skipped += len(chunks) - len(missing)
    fresh = [c for c in chunks if c.doc_id in missing]
    pages = {c.doc_id: f"page {c.page}" for c in fresh}
    for start in range(0, len(fresh), EMBED_BATCH):
        batch = fresh[start : start + EMBED_BATCH]
        vectors = embedder.embed([c.summary_text for c in batch])
        counts = backend.add_statement_chunks(user_id, batch, vectors, embedder.model_name)
        _account_failures(report, counts, source, pages)


def ingest_statements(
    backend: SearchBackend,
    pdfs: Sequence[Path],
    user_id: str,
    embedder: Embedder,
    store: StatementStore,
    progress: Progress = _no_progress,
) -> IngestReport:
    """Chunk, embed and index every readable page; keep the PDFs; report bad pages and files."""
    report = IngestReport()
    for done, pdf in enumerate(pdfs, start=1):
        try:
            source_file = store.name_for(pdf, user_id)
        except OSError as exc:
            report.problems.append(IngestProblem(pdf.name, "file", f"cannot read ({exc})"))
            continue
        parsed = read_statement_pdf(pdf, source_file)
        report.problems.extend(parsed.problems)
        if parsed.chunks:  # only statements that can be cited are kept
            store.keep(pdf, source_file)
            _write_chunks(backend, embedder, user_id, parsed.chunks, report, pdf.name)
        progress(done, len(pdfs), pdf.name)
    log.info("ingested %d statement file(s): %s", len(pdfs), report.summary())
    return report
