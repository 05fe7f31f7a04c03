"""Upload bank exports and statement PDFs: each file's format, a preview of its rows as they will
land, and a form for what the file does not say; askable as soon as the report shows."""

from __future__ import annotations

import hashlib
import logging
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.uploaded_file_manager import UploadedFile

from elastic.ingest import bank_csv
from elastic.ingest.landing import (
    FileDefaults,
    ingest_file,
    preview_export,
    read_export,
)
from elastic.ingest.parsed import UnreadableFile
from elastic.ingest.pdf.statement import PDF_FORMAT
from elastic.records import IngestReport
from llm.services import category_fallback
from ui.context import AppContext, app_context, data_changed
from ui.formatting import safe_file_name
from ui.sidebar import engine_panel
from ui.tables import transactions_table

log = logging.getLogger(__name__)

_OUTCOME = "ingest-outcome"
_UPLOAD_DIR = "ingest-upload-dir"
UPLOAD_TYPES = ["csv", "txt", "ofx", "qfx", "xml", "sta", "mt940", "940", "pdf"]
FORMATS_HELP = (
    "**Bank exports**: your bank's CSV download (any bank: columns are recognised by their "
    "names in English, German, French, Spanish, Dutch and Swedish), OFX/QFX, CAMT.053 (ISO "
    "20022 XML) and MT940. FinSync's own CSV (`date`, `description`, `amount`, `currency`, "
    "`category`, `merchant`, `account_no`, `account_name`, `bank_name`) works too.  \n"
    "**Statement PDFs**: text PDFs; every page becomes searchable and the original is kept so "
    "citations can show the page.  \n"
    "Merchants are cleaned from the descriptors, missing categories are inferred, transfers "
    "between your own accounts are recognised, and amounts in different currencies are never "
    "added together."
)
MISSING_FIELDS = (
    ("account_name", "Account name"),
    ("account_no", "Account number"),
    ("bank_name", "Bank"),
    ("currency", "Currency (ISO code)"),
)


@dataclass
class IngestOutcome:
    reports: list[IngestReport] = field(default_factory=list)
    failure: str | None = None  # the whole run stopped (e.g. the backend went away)


@dataclass(frozen=True)
class _Upload:
    name: str
    path: Path
    key: str  # widget keys of this file's form


def _upload_dir() -> Path:
    """A directory per browser session, so a file previewed is the file ingested."""
    if _UPLOAD_DIR not in st.session_state:
        st.session_state[_UPLOAD_DIR] = tempfile.mkdtemp(prefix="finsync-upload-")
    return Path(st.session_state[_UPLOAD_DIR])


def _save(upload: UploadedFile) -> _Upload:
    data = upload.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:16]
    target = _upload_dir() / digest / safe_file_name(upload.name)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return _Upload(upload.name, target, digest)


def _defaults(upload: _Upload) -> FileDefaults:
    values = {
        name: (st.session_state.get(f"{upload.key}-{name}") or "").strip() or None
        for name, _ in MISSING_FIELDS
    }
    if values["currency"]:
        values["currency"] = values["currency"].upper()
    return FileDefaults(**values)


def _missing_form(upload: _Upload, assumed: list[str]) -> None:
    """Inputs for what a file does not state, open when something is missing; filled values
    win over what the file says."""
    if assumed:
        st.warning(
            "The file does not say everything: " + "; ".join(assumed) + ". Fill in below.",
            icon=":material/edit_note:",
        )
    with st.expander("Account, bank and currency", expanded=bool(assumed)):
        columns = st.columns(len(MISSING_FIELDS))
        for column, (name, label) in zip(columns, MISSING_FIELDS, strict=True):
            column.text_input(label, key=f"{upload.key}-{name}", placeholder="from the file")


def _mapping_form(upload: _Upload, problem: str) -> bank_csv.ColumnMapping | None:
    """A guided mapping for a CSV whose layout no profile knows."""
    st.error(problem, icon=":material/table_view:")
    try:
        layout = bank_csv.inspect(upload.path)
    except UnreadableFile:
        return None
    headers = ["", *layout.headers]
    st.markdown("Which columns hold what?")
    date_col, desc_col, amount_col, debit_col, credit_col = st.columns(5)
    chosen = {
        "date": date_col.selectbox("Date", headers, key=f"{upload.key}-map-date"),
        "description": desc_col.selectbox(
            "Description", headers, key=f"{upload.key}-map-description"
        ),
        "amount": amount_col.selectbox("Amount (signed)", headers, key=f"{upload.key}-map-amount"),
        "debit": debit_col.selectbox("…or money out", headers, key=f"{upload.key}-map-debit"),
        "credit": credit_col.selectbox("…and money in", headers, key=f"{upload.key}-map-credit"),
    }
    if not (chosen["date"] and chosen["description"]):
        return None
    if not (chosen["amount"] or (chosen["debit"] and chosen["credit"])):
        return None
    return bank_csv.ColumnMapping.from_roles({k: v for k, v in chosen.items() if v})


def _file_card(context: AppContext, upload: _Upload) -> bank_csv.ColumnMapping | None:
    """One uploaded file: its format and its rows as they will land. Returns the mapping
    chosen for a CSV no profile knows."""
    st.markdown(f"**{upload.name}**")
    mapping = None
    try:
        parsed = read_export(upload.path)
    except UnreadableFile as exc:
        if not bank_csv.sniff(upload.path.read_bytes()[:4096]):
            st.error(str(exc), icon=":material/block:")
            return None
        mapping = _mapping_form(upload, str(exc))
        if mapping is None:
            return None
        try:
            parsed = read_export(upload.path, mapping)
        except UnreadableFile as again:
            st.error(str(again), icon=":material/block:")
            return None
    if parsed is None:
        st.caption(
            f"{PDF_FORMAT}: its pages become searchable, its transactions land when they reconcile."
        )
        return None
    preview = preview_export(
        context.pipeline.backend,
        parsed,
        context.user_id,
        upload.name,
        _defaults(upload),
        context.settings.default_currency,
    )
    pending = f", {preview.pending:,} pending (not landed)" if preview.pending else ""
    st.caption(f"Detected **{preview.format}**: {preview.row_count:,} transactions{pending}.")
    _missing_form(upload, preview.assumed)
    if preview.problems:
        count = len(preview.problems)
        rows = "row cannot" if count == 1 else "rows cannot"
        st.caption(f"{count:,} {rows} be read; the report will list them.")
    transactions_table(preview.rows, key=f"{upload.key}-preview", file_name="preview.csv")
    return mapping


class _ProgressBar:
    """One bar over all files: each file is one unit of work."""

    def __init__(self, bar: DeltaGenerator, units: int) -> None:
        self._bar = bar
        self._units = max(units, 1)
        self.finished_units = 0

    def __call__(self, done: int, total: int, label: str) -> None:
        within = done / total if total else 1.0
        fraction = min((self.finished_units + within) / self._units, 1.0)
        self._bar.progress(fraction, text=f"Ingesting {label}: {done:,} of {total:,}…")


def _ingest(
    context: AppContext,
    uploads: list[_Upload],
    mappings: dict[str, bank_csv.ColumnMapping | None],
) -> IngestOutcome:
    outcome = IngestOutcome()
    bar = _ProgressBar(st.progress(0.0, text="Starting…"), len(uploads))
    pipeline = context.pipeline
    try:
        for upload in uploads:
            outcome.reports.append(
                ingest_file(
                    pipeline.backend,
                    upload.path,
                    context.user_id,
                    pipeline.embedder,
                    context.store,
                    _defaults(upload),
                    context.settings.default_currency,
                    bar,
                    mappings.get(upload.key),
                    category_fallback(context.settings),
                )
            )
            bar.finished_units += 1
    except Exception as exc:
        log.exception("ingesting uploads failed")
        outcome.failure = f"{type(exc).__name__}: {exc}"
    data_changed(context)
    return outcome


def _show_outcome(outcome: IngestOutcome) -> None:
    st.subheader("Report", anchor=False)
    if outcome.failure:
        st.error(f"Ingestion stopped: {outcome.failure}", icon=":material/error:")
    reports = outcome.reports
    landed, present, pending, problems_count = st.columns(4)
    landed.metric("Landed", f"{sum(r.indexed for r in reports):,}", border=True)
    present.metric(
        "Already present",
        f"{sum(r.skipped for r in reports):,}",
        border=True,
        help="Skipped: ingested before",
    )
    pending.metric(
        "Pending", f"{sum(r.pending for r in reports):,}", border=True, help="Not booked yet"
    )
    problems_count.metric("Problems", f"{sum(len(r.problems) for r in reports):,}", border=True)
    st.dataframe(
        pd.DataFrame(
            {
                "File": [r.source for r in outcome.reports],
                "Format": [r.format or "unreadable" for r in outcome.reports],
                "Landed": [r.indexed for r in outcome.reports],
                "Already present": [r.skipped for r in outcome.reports],
                "Pending": [r.pending for r in outcome.reports],
                "Problems": [len(r.problems) for r in outcome.reports],
            }
        ),
        hide_index=True,
        key="ingest-summary",
    )
    problems = [p for r in outcome.reports for p in r.problems]
    assumed = [f"{r.source}: {note}" for r in outcome.reports for note in r.assumed]
    for note in assumed:
        st.caption(f"Assumed — {note}")
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
    elif not outcome.failure and not any(r.landed_nothing for r in outcome.reports):
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
    with st.expander("Which files FinSync reads", icon=":material/help:"):
        st.markdown(FORMATS_HELP)
    files = st.file_uploader(
        "Bank exports and statement PDFs",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key="uploads",
    )
    uploads = [_save(f) for f in files or []]
    mappings: dict[str, bank_csv.ColumnMapping | None] = {}
    for upload in uploads:
        with st.container(border=True):
            try:
                mappings[upload.key] = _file_card(context, upload)
            except Exception as exc:
                log.exception("previewing %s failed", upload.name)
                st.error(f"Cannot preview {upload.name}: {exc}", icon=":material/error:")
    count = len(uploads)
    label = f"Ingest {count} file{'s' if count != 1 else ''}" if count else "Ingest"
    if st.button(label, type="primary", disabled=not uploads, icon=":material/upload:"):
        st.session_state[_OUTCOME] = _ingest(context, uploads, mappings)
    outcome: IngestOutcome | None = st.session_state.get(_OUTCOME)
    if outcome is not None:
        _show_outcome(outcome)
