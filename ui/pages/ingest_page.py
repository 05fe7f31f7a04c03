"""Upload transaction CSVs and statement PDFs; they are askable as soon as the report shows."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.uploaded_file_manager import UploadedFile

from elastic.ingest import ingest_statements, ingest_transactions
from elastic.records import IngestReport
from ui.context import AppContext, app_context, data_changed
from ui.formatting import safe_file_name
from ui.sidebar import engine_panel

log = logging.getLogger(__name__)

_OUTCOME = "ingest-outcome"
CSV_COLUMNS_HELP = (
    "**Transactions CSV** — a header row and the columns `date` (YYYY-MM-DD), `description`, "
    "`amount` (negative = money out), `currency`, `category`, `merchant`, `account_no`, "
    "`account_name`, `bank_name`; optional `transaction_id` and `balance`.  \n"
    "**Statement PDF** — text PDFs with the bank, account name and number and the statement "
    "period in the page header. The original is kept so citations can show the page."
)


@dataclass
class IngestOutcome:
    files: list[str]
    transactions: IngestReport | None = None  # None: no CSV was uploaded
    statements: IngestReport | None = None  # None: no PDF was uploaded
    failure: str | None = None  # the whole run stopped (e.g. the backend went away)


class _ProgressBar:
    """One bar over all files: each CSV and each PDF is one unit of work."""

    def __init__(self, bar: DeltaGenerator, units: int) -> None:
        self._bar = bar
        self._units = max(units, 1)
        self.finished_units = 0

    def __call__(self, done: int, total: int, label: str) -> None:
        within = done / total if total else 1.0
        fraction = min((self.finished_units + within) / self._units, 1.0)
        self._bar.progress(fraction, text=f"Ingesting {label}…")


def _save(files: Sequence[UploadedFile], directory: Path) -> list[Path]:
    """Write the uploads under ``directory``, keeping their names (made unique and safe)."""
    paths: list[Path] = []
    for number, upload in enumerate(files):
        name = safe_file_name(upload.name)
        target = directory / name
        if target.exists():
            target = directory / f"{number}-{name}"
        target.write_bytes(upload.getvalue())
        paths.append(target)
    return paths


def _ingest_files(
    context: AppContext,
    csvs: list[Path],
    pdfs: list[Path],
    progress: _ProgressBar,
    outcome: IngestOutcome,
) -> None:
    """Transactions first, then statements; each report lands in ``outcome`` as it grows."""
    backend = context.pipeline.backend
    if csvs:
        outcome.transactions = transactions = IngestReport()
        for csv_path in csvs:
            transactions.merge(ingest_transactions(backend, csv_path, context.user_id, progress))
            progress.finished_units += 1
    if pdfs:
        embedder, store = context.pipeline.embedder, context.store
        outcome.statements = ingest_statements(
            backend, pdfs, context.user_id, embedder, store, progress
        )


def _ingest(context: AppContext, files: Sequence[UploadedFile]) -> IngestOutcome:
    outcome = IngestOutcome(files=[f.name for f in files])
    bar = st.progress(0.0, text="Saving the uploads…")
    with tempfile.TemporaryDirectory(prefix="finsync-upload-") as tmp:
        paths = _save(files, Path(tmp))
        csvs = [p for p in paths if p.suffix.lower() == ".csv"]
        pdfs = [p for p in paths if p.suffix.lower() == ".pdf"]
        try:
            _ingest_files(context, csvs, pdfs, _ProgressBar(bar, len(paths)), outcome)
        except Exception as exc:
            log.exception("ingesting uploads failed")
            outcome.failure = f"{type(exc).__name__}: {exc}"
    bar.progress(1.0, text="Done")
    data_changed(context)
    return outcome


def _report_metrics(title: str, unit: str, report: IngestReport) -> None:
    st.markdown(f"**{title}**")
    indexed, skipped, errors = st.columns(3)
    indexed.metric(f"{unit} indexed", f"{report.indexed:,}", border=True)
    skipped.metric(
        "Already present", f"{report.skipped:,}", border=True, help="Skipped: ingested before"
    )
    errors.metric("Errors", f"{len(report.problems):,}", border=True)


def _show_outcome(outcome: IngestOutcome) -> None:
    st.subheader("Report", anchor=False)
    st.caption("Files: " + ", ".join(outcome.files))
    if outcome.failure:
        st.error(f"Ingestion stopped: {outcome.failure}", icon=":material/error:")
    reports = [
        (title, unit, report)
        for title, unit, report in (
            ("Transactions", "Rows", outcome.transactions),
            ("Statements", "Page chunks", outcome.statements),
        )
        if report is not None
    ]
    for title, unit, report in reports:
        _report_metrics(title, unit, report)
    problems = [problem for _, _, report in reports for problem in report.problems]
    if problems:
        st.markdown("**Rows and pages that were not ingested**")
        st.dataframe(
            pd.DataFrame(
                {
                    "Source": [p.source for p in problems],
                    "Location": [p.location for p in problems],
                    "Reason": [p.reason for p in problems],
                }
            ),
            hide_index=True,
            key="ingest-problems",
        )
    elif not outcome.failure:
        st.success(
            "Everything landed. Ask about it on the **Chat** page.", icon=":material/check_circle:"
        )


def ingest_page() -> None:
    context = app_context()
    engine_panel(context)
    st.title("Ingest", anchor=False)
    st.caption(
        "Add bank exports and statements. Uploading the same file again adds nothing; bad rows "
        "and pages are reported, good ones are kept."
    )
    with st.expander("What the files should look like", icon=":material/help:"):
        st.markdown(CSV_COLUMNS_HELP)
    files = st.file_uploader(
        "Transaction CSVs and statement PDFs",
        type=["csv", "pdf"],
        accept_multiple_files=True,
        key="uploads",
    )
    count = len(files or [])
    label = f"Ingest {count} file{'s' if count != 1 else ''}" if count else "Ingest"
    if st.button(label, type="primary", disabled=not files, icon=":material/upload:"):
        st.session_state[_OUTCOME] = _ingest(context, files or [])
    outcome: IngestOutcome | None = st.session_state.get(_OUTCOME)
    if outcome is not None:
        _show_outcome(outcome)
