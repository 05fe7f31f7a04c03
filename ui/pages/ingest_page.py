"""Upload bank exports and statement PDFs: each file's format, a preview of its rows as they will
land, and a form for what the file does not say; askable as soon as the report shows."""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from elastic.ingest import bank_csv
from elastic.ingest.formats import is_pdf
from elastic.ingest.parsed import UnreadableFile
from elastic.ingest.pdf.statement import PDF_FORMAT
from elastic.model.records import IngestReport
from llm.answering.wording import Wording, wording
from llm.ingest_jobs import JOBS, FileToIngest, IngestWork, JobKey, JobRunning, JobView
from llm.ingesting import FileDefaults, Progress, safe_file_name
from llm.pdf_pages import readable_page_count
from settings import Settings
from ui.answer_text import plain_markdown
from ui.context import AppContext, app_context, data_changed, ui_language
from ui.faults import show_fault
from ui.tables import transactions_table

_UPLOAD_DIR = "ingest-upload-dir"
POLL_S = 1.0  # how often the page looks at a running import
MIB = 1024 * 1024
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
Mappings = dict[str, bank_csv.ColumnMapping | None]  # upload key → the mapping chosen by hand
MISSING_FIELDS = ("account_name", "account_no", "bank_name", "currency")
"""The form's fields for what a file may not say (``FileDefaults``), labelled from the templates
(``ingest_form.<field>``)."""
# The importer's notes name the command's flags (``give --bank``); the page names its fields.
_FLAG_FIELDS = {
    "--account-name": "account_name",
    "--account-no": "account_no",
    "--bank": "bank_name",
    "--currency": "currency",
}
_GIVE_FLAG = re.compile(r"give (--[a-z-]+)")
_IMPORTED = "ingest-imported"  # the uploads (by content digest) the shown report is about


@dataclass(frozen=True)
class _Upload:
    name: str
    path: Path
    key: str  # widget keys of this file's form


def _upload_dir(context: AppContext) -> Path:
    """A directory per browser session in the user's own upload folder, so a file previewed is
    the file ingested."""
    return context.importer.upload_folder(_session_uploads())


def _session_uploads() -> str:
    """This browser session's name among the user's upload folders."""
    session: str = st.session_state.setdefault(_UPLOAD_DIR, uuid.uuid4().hex)
    return session


def _save(context: AppContext, upload: UploadedFile) -> _Upload:
    data = upload.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:16]
    target = _upload_dir(context) / digest / safe_file_name(upload.name)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return _Upload(upload.name, target, digest)


def _too_large(upload: UploadedFile, settings: Settings) -> str | None:
    """Why the page refuses a file by its size, before anything is read or stored."""
    if upload.size <= settings.max_upload_mb * MIB:
        return None
    return (
        f"{plain_markdown(upload.name)} is {upload.size / MIB:,.1f} MB; the Ingest page takes "
        f"files of up to {settings.max_upload_mb} MB. Split it, or ask whoever runs FinSync to "
        "ingest it with `finsync ingest`."
    )


def _too_many_pages(upload: _Upload, settings: Settings) -> str | None:
    """Why the page refuses a PDF by its pages, before it is previewed or ingested. A PDF pdfium
    cannot open passes: the import reports why it cannot be read."""
    with upload.path.open("rb") as file:
        if not is_pdf(file.read(1024)):
            return None
    pages = readable_page_count(upload.path)
    if pages is None or pages <= settings.max_upload_pages:
        return None
    return (
        f"{plain_markdown(upload.name)} has {pages:,} pages; the Ingest page takes PDFs of "
        f"up to {settings.max_upload_pages:,} pages. Split it, or ask whoever runs FinSync to "
        "ingest it with `finsync ingest`."
    )


def _accepted(context: AppContext, files: list[UploadedFile]) -> list[_Upload]:
    """The uploads within the limits; each refused one gets a message naming the limit."""
    settings = context.settings
    uploads = []
    for file in files:
        try:
            reason = _too_large(file, settings)
            upload = None if reason else _save(context, file)
            if upload is not None:
                reason = _too_many_pages(upload, settings)
        except OSError as exc:
            show_fault(
                f"{plain_markdown(file.name)} could not be stored for the import",
                exc,
                "Remove it and upload it again; if that fails too, the server's disk may be full.",
            )
            continue
        if reason:
            st.error(reason, icon=":material/block:")
        elif upload is not None and all(u.key != upload.key for u in uploads):
            uploads.append(upload)  # the same content twice is one file
    context.importer.keep_previews(_session_uploads(), {u.key for u in uploads})
    return uploads


def page_words(note: str, w: Wording) -> str:
    """An importer's note as the page says it: "fill in “Bank” below", never a command's
    flag."""

    def field(match: re.Match[str]) -> str:
        name = _FLAG_FIELDS.get(match[1])
        if name is None:
            return match[0]
        return w.text("ingest_form.fill_in", field=w.text(f"ingest_form.{name}"))

    return _GIVE_FLAG.sub(field, note)


def _defaults(upload: _Upload) -> FileDefaults:
    values = {
        name: (st.session_state.get(f"{upload.key}-{name}") or "").strip() or None
        for name in MISSING_FIELDS
    }
    if values["currency"]:
        values["currency"] = values["currency"].upper()
    return FileDefaults(**values)


def _missing_form(upload: _Upload, lacking: list[str], w: Wording) -> None:
    """Inputs for what a file does not state, always in the same place: the note of what the
    file lacks is about the file, so it stays while the form is filled in, and so do the
    fields. Filled values win over what the file says."""
    with st.container(border=True, key=f"{upload.key}-form"):
        st.markdown(f"**{w.text('ingest_form.title')}**")
        if lacking:
            notes = "; ".join(page_words(note, w) for note in lacking)
            st.warning(
                w.text("ingest_form.lacking", notes=plain_markdown(notes)),
                icon=":material/edit_note:",
            )
        else:
            st.caption(w.text("ingest_form.says_all"))
        columns = st.columns(len(MISSING_FIELDS))
        for column, name in zip(columns, MISSING_FIELDS, strict=True):
            column.text_input(
                w.text(f"ingest_form.{name}"),
                key=f"{upload.key}-{name}",
                placeholder=w.text("ingest_form.from_file"),
            )


def _mapping_form(upload: _Upload, problem: str) -> bank_csv.ColumnMapping | None:
    """A guided mapping for a CSV whose layout no profile knows."""
    st.error(plain_markdown(problem), icon=":material/table_view:")
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


def _lacking(
    context: AppContext,
    upload: _Upload,
    assumed: list[str],
    mapping: bank_csv.ColumnMapping | None,
) -> list[str]:
    """What the file itself does not say: what its preview assumed before anything was filled
    in, kept for the file, so the note stays while the form is filled in."""
    key = f"{upload.key}-lacking"
    if key not in st.session_state:
        if _defaults(upload) != FileDefaults():  # filled in already: read the file as it is
            parsed = context.importer.read(upload.path, mapping)
            if parsed is not None:
                assumed = context.importer.preview(parsed, upload.name, FileDefaults()).assumed
        st.session_state[key] = assumed
    lacking: list[str] = st.session_state[key]
    return lacking


def _file_card(context: AppContext, upload: _Upload) -> bank_csv.ColumnMapping | None:
    """One uploaded file: its format and its rows as they will land. Returns the mapping
    chosen for a CSV no profile knows."""
    st.markdown(f"**{plain_markdown(upload.name)}**")
    importer = context.importer
    mapping = None
    try:
        parsed = importer.read(upload.path)
    except UnreadableFile as exc:
        if not bank_csv.sniff(upload.path.read_bytes()[:4096]):
            st.error(plain_markdown(str(exc)), icon=":material/block:")
            return None
        mapping = _mapping_form(upload, str(exc))
        if mapping is None:
            return None
        try:
            parsed = importer.read(upload.path, mapping)
        except UnreadableFile as again:
            st.error(plain_markdown(str(again)), icon=":material/block:")
            return None
    if parsed is None:
        st.caption(
            f"{PDF_FORMAT}: its pages become searchable, its transactions land when they reconcile."
        )
        return None
    preview = importer.preview(parsed, upload.name, _defaults(upload))
    pending = f", {preview.pending:,} pending (not landed)" if preview.pending else ""
    detected = plain_markdown(preview.format)
    st.caption(f"Detected **{detected}**: {preview.row_count:,} transactions{pending}.")
    _missing_form(
        upload, _lacking(context, upload, preview.assumed, mapping), wording(ui_language())
    )
    if preview.problems:
        count = len(preview.problems)
        rows = "row cannot" if count == 1 else "rows cannot"
        st.caption(f"{count:,} {rows} be read; the report will list them.")
    transactions_table(preview.rows, key=f"{upload.key}-preview", file_name="preview.csv")
    return mapping


def _job_key(context: AppContext) -> JobKey:
    return (context.fingerprint, context.user_id)


def _work(context: AppContext) -> IngestWork:
    """How the job lands each file: into this user's data, as the CLI would."""
    importer = context.importer

    def land(upload: FileToIngest, progress: Progress) -> IngestReport:
        return importer.land(upload.path, upload.defaults, upload.mapping, progress)

    return land


def _start(context: AppContext, uploads: list[_Upload], mappings: Mappings) -> None:
    importer = context.importer
    st.session_state[_IMPORTED] = {u.key for u in uploads}
    files = [
        FileToIngest(u.name, importer.for_import(u.path), _defaults(u), mappings.get(u.key))
        for u in uploads
    ]
    try:
        JOBS.start(_job_key(context), files, _work(context), lambda: data_changed(context))
    except JobRunning:
        for file in files:
            importer.discard(file.path)
        st.warning(
            "An import of yours is still running: wait for its report, then press Ingest again.",
            icon=":material/hourglass_top:",
        )


@st.fragment(run_every=POLL_S)
def _progress(key: JobKey) -> None:
    """The running import's bar, redrawn every ``POLL_S``; the whole page reruns once it is
    done, so the report replaces the bar and the polling stops."""
    job = JOBS.get(key)
    view = job.view() if job is not None else None
    if view is None or view.finished:
        st.rerun()
    st.progress(view.fraction, text=plain_markdown(view.label))
    st.caption("You can leave this page: the import goes on, and its report waits here.")


def _show_outcome(outcome: JobView) -> None:
    st.subheader("Report", anchor=False)
    if outcome.failure:
        st.error(plain_markdown(outcome.failure), icon=":material/error:")
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
    w = wording(ui_language())
    assumed = [f"{r.source}: {page_words(note, w)}" for r in outcome.reports for note in r.assumed]
    for note in assumed:
        st.caption(f"Assumed — {plain_markdown(note)}")
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


def _previews(context: AppContext, uploads: list[_Upload]) -> Mappings:
    """Each file's card; the column mappings chosen on them."""
    mappings: Mappings = {}
    for upload in uploads:
        with st.container(border=True):
            try:
                mappings[upload.key] = _file_card(context, upload)
            except Exception as exc:
                show_fault(
                    f"{upload.name} cannot be previewed",
                    exc,
                    "Remove it and upload it again; if that fails too, ingest it with "
                    "`finsync ingest`.",
                )
    return mappings


def _new_upload_replaces_report(key: JobKey, uploads: list[_Upload]) -> None:
    """A file that was not part of the import the report is about makes the report go: the
    page then shows the new file's preview, and its report once it is ingested."""
    job = JOBS.get(key)
    view = job.view() if job is not None else None
    if view is None or not view.finished:
        return
    imported: set[str] = st.session_state.get(_IMPORTED, set())
    if any(upload.key not in imported for upload in uploads):
        JOBS.dismiss(key)


def ingest_page() -> None:
    context = app_context()
    settings = context.settings
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
        help=f"Files of up to {settings.max_upload_mb} MB; PDFs of up to "
        f"{settings.max_upload_pages:,} pages.",
    )
    uploads = _accepted(context, files or [])
    key = _job_key(context)
    _new_upload_replaces_report(key, uploads)
    mappings = _previews(context, uploads)
    job = JOBS.get(key)
    view = job.view() if job is not None else None
    running = view is not None and not view.finished
    count = len(uploads)
    label = f"Ingest {count} file{'s' if count != 1 else ''}" if count else "Ingest"
    if st.button(label, type="primary", disabled=not uploads or running, icon=":material/upload:"):
        _start(context, uploads, mappings)
        job = JOBS.get(key)
        view = job.view() if job is not None else None
    if view is None:
        return
    if not view.finished:
        _progress(key)
        return
    _show_outcome(view)
    st.button(
        "Clear the report",
        icon=":material/close:",
        key="ingest-dismiss",
        on_click=JOBS.dismiss,
        args=(key,),
    )
