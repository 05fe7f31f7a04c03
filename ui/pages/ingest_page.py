"""Upload bank exports and statement PDFs: each file's format, a preview of its rows as they will
land, and a form for what the file does not say; askable as soon as the report shows."""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from elastic.ingest import bank_csv
from elastic.ingest.formats import is_pdf
from elastic.ingest.parsed import UnreadableFile
from elastic.ingest.pdf.statement import PDF_FORMAT
from elastic.masking import mask_account
from elastic.model.records import IngestReport
from llm.answering.wording import Wording, wording
from llm.ingest_jobs import JOBS, FileToIngest, IngestWork, JobKey, JobRunning, JobView
from llm.ingesting import FileDefaults, PageText, Progress, StatementPreview, safe_file_name
from llm.pdf_pages import PageNotDrawn, bounded_page_png, readable_page_count
from settings import Settings
from ui.answer_text import plain_markdown
from ui.context import AppContext, app_context, data_changed, ui_language
from ui.faults import show_fault
from ui.frames import reconciliation_mark
from ui.source_viewer import page_figure
from ui.tables import transactions_table

_UPLOAD_DIR = "ingest-upload-dir"
POLL_S = 1.0  # how often the page looks at a running import
SHOWN_PROBLEMS = 5  # rows and pages a statement's preview names as not read
MIB = 1024 * 1024
UPLOAD_TYPES = [
    *("csv", "txt", "tab", "xls", "xlsx", "ods"),
    *("ofx", "qfx", "qif", "xml", "sta", "mt940", "940", "942", "pdf"),
]
FORMATS_HELP = (
    "**Bank exports**: your bank's download as CSV, XLS, XLSX or ODS (any bank: columns are "
    "read by what they hold, their names in many languages help, and you can change any "
    "reading below the preview), OFX/QFX, QIF, CAMT.052/053/054 (ISO 20022 XML) and "
    "MT940/MT942. FinSync's own CSV (`date`, `description`, `amount`, `currency`, "
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
    """What the person importing said about the file: the fields of a bank export's form, or of
    a statement's preview."""
    state = st.session_state
    values = {
        name: (state.get(f"{upload.key}-{name}") or "").strip() or None for name in MISSING_FIELDS
    }
    if values["currency"]:
        values["currency"] = values["currency"].upper()
    start, end = state.get(f"{upload.key}-period-from"), state.get(f"{upload.key}-period-to")
    return FileDefaults(
        **values,
        period=(start, end) if isinstance(start, date) and isinstance(end, date) else None,
        opening_balance=_decimal(state.get(f"{upload.key}-opening")),
        closing_balance=_decimal(state.get(f"{upload.key}-closing")),
    )


def _decimal(text: object) -> Decimal | None:
    """A balance typed in the preview ("1,234.56", "-12.50"); None when blank or not a number."""
    cleaned = str(text or "").replace(",", "").replace(" ", "").strip()
    try:
        return Decimal(cleaned).quantize(Decimal("0.01")) if cleaned else None
    except InvalidOperation:
        return None


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


# The roles a person can set on the page, with their labels, in the order shown.
ROLE_LABELS = (
    ("date", "Date"),
    ("description", "Description"),
    ("amount", "Amount (signed)"),
    ("debit", "…or money out"),
    ("credit", "…and money in"),
    ("merchant", "Payee / merchant"),
    ("balance", "Balance"),
    ("currency", "Currency"),
)
SIGNS = {
    "signed": "Negative = money out",
    "spend_positive": "Positive = money out (card spend)",
    "balance_steps": "Unsigned: the balance going down = money out",
}


def _readings(layout: bank_csv.CsvLayout) -> None:
    """How each column is read, with its evidence; unsure readings stand out."""
    unsure = [r for r in layout.readings if not r.sure]
    if unsure:
        st.warning(
            "Some columns could be read more than one way — check them: "
            + plain_markdown("; ".join(r.sentence() for r in unsure)),
            icon=":material/help:",
        )
    for note in layout.notes:
        st.caption(plain_markdown(note))


def _columns_form(
    upload: _Upload, layout: bank_csv.CsvLayout, problem: str | None
) -> bank_csv.ColumnMapping | None:
    """Which column holds what, prefilled with the current reading; the mapping chosen when
    it differs from that reading (or when the file cannot be read without one)."""
    if problem:
        st.error(plain_markdown(problem), icon=":material/table_view:")
    current = _shown_reading(layout)
    with st.expander("How the columns are read", expanded=bool(problem) or _unsure(layout)):
        _readings(layout)
        headers = ["", *layout.headers]
        chosen: dict[str, str] = {}
        columns = st.columns(4)
        for index, (role, label) in enumerate(ROLE_LABELS):
            value = current.get(role, "")
            chosen[role] = columns[index % 4].selectbox(
                label,
                headers,
                index=headers.index(value) if value in headers else 0,
                key=f"{upload.key}-map-{role}",
            )
        sign = layout.mapping.sign if layout.mapping else "signed"
        sign_choice = st.radio(
            "Amounts",
            list(SIGNS),
            format_func=SIGNS.__getitem__,
            index=list(SIGNS).index(sign) if sign in SIGNS else 0,
            horizontal=True,
            key=f"{upload.key}-map-sign",
            disabled=bool(chosen["debit"] and chosen["credit"] and not chosen["amount"]),
        )
    if not (chosen["date"] and chosen["description"]):
        return None
    if not (chosen["amount"] or (chosen["debit"] and chosen["credit"])):
        return None
    mapping = bank_csv.ColumnMapping.from_roles({k: v for k, v in chosen.items() if v})
    if mapping.sign == "signed" and sign_choice == "spend_positive":
        mapping = replace(mapping, sign="spend_positive")
    elif mapping.sign == "signed" and sign_choice == "balance_steps" and mapping.balance:
        mapping = replace(mapping, sign="balance_steps")
    sign = layout.mapping.sign if layout.mapping else "signed"
    same_sign = mapping.sign == sign or sign not in SIGNS
    if (
        layout.mapping is not None
        and same_sign
        and {k: v for k, v in chosen.items() if v} == {k: v for k, v in current.items() if v}
    ):
        return None
    st.caption("Your reading is used for this file and remembered for files of this layout.")
    return mapping


def _unsure(layout: bank_csv.CsvLayout) -> bool:
    return any(not r.sure for r in layout.readings)


def _shown_reading(layout: bank_csv.CsvLayout) -> dict[str, str]:
    """The current reading of the roles the page shows, as the file's own header names."""
    if layout.mapping is None:
        return {}
    by_name = {" ".join(h.casefold().split()): h for h in layout.headers}
    shown = {role for role, _ in ROLE_LABELS}
    found = {}
    for role, value in layout.mapping.columns().items():
        name = value[0] if isinstance(value, tuple) else value
        header = by_name.get(" ".join(name.casefold().split()))
        if role in shown and header:
            found[role] = header
    return found


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
    with upload.path.open("rb") as head:
        tabular = bank_csv.sniff(head.read(4096))
    problem = None
    try:
        parsed = importer.read(upload.path)
    except UnreadableFile as exc:
        if not tabular:
            st.error(plain_markdown(str(exc)), icon=":material/block:")
            return None
        parsed, problem = None, str(exc)
    mapping = None
    if tabular:
        try:
            layout = bank_csv.inspect(upload.path)
        except UnreadableFile:
            st.error(plain_markdown(problem or "no columns found"), icon=":material/block:")
            return None
        remembered = importer.reading(upload.path, None)
        if remembered is not None:
            layout = replace(layout, mapping=remembered, readings=())
        mapping = _columns_form(upload, layout, problem)
        if mapping is not None:
            try:
                parsed = importer.read(upload.path, mapping)
            except UnreadableFile as again:
                st.error(plain_markdown(str(again)), icon=":material/block:")
                return None
        elif parsed is None:
            return None
    if parsed is None:
        _statement_card(context, upload)
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
    if not tabular:
        for note in preview.notes:
            st.caption(plain_markdown(note))
    transactions_table(preview.rows, key=f"{upload.key}-preview", file_name="preview.csv")
    return mapping


@st.cache_data(max_entries=16, show_spinner="Reading the statement…")
def _statement_pages(_context: AppContext, path: str, digest: str) -> list[PageText]:
    """A statement's words, read once per upload (``digest``) while its preview is edited."""
    return _context.importer.statement_pages(Path(path))


@st.cache_data(max_entries=16, show_spinner=False)
def _thumbnail(path: str, account_no: str) -> bytes | None:
    """The statement's first page, account numbers masked; None when it cannot be drawn."""
    try:
        return bounded_page_png(Path(path), 1, account_no)
    except PageNotDrawn:
        return None


def _statement_fields(upload: _Upload, preview: StatementPreview) -> None:
    """Every field the preview read, editable; what is typed wins when the file lands."""
    key, state = upload.key, st.session_state
    start, end = preview.period
    read = {
        f"{key}-bank_name": preview.bank_name,
        f"{key}-account_name": preview.account_name,
        f"{key}-currency": preview.currency,
        f"{key}-period-from": start,
        f"{key}-period-to": end,
        f"{key}-opening": "" if preview.opening_balance is None else str(preview.opening_balance),
        f"{key}-closing": "" if preview.closing_balance is None else str(preview.closing_balance),
    }
    for name, value in read.items():
        state.setdefault(name, value)
    bank, account, number, currency = st.columns(4)
    bank.text_input("Bank", key=f"{key}-bank_name")
    account.text_input("Account", key=f"{key}-account_name")
    number.text_input(
        "Account number",
        key=f"{key}-account_no",
        placeholder=mask_account(preview.account_no) or "not printed",
        help="Leave blank to keep the number the statement prints (shown masked).",
    )
    currency.text_input("Currency (ISO code)", key=f"{key}-currency")
    first, last, opening, closing = st.columns(4)
    first.date_input("Period from", key=f"{key}-period-from", format="YYYY-MM-DD")
    last.date_input("Period to", key=f"{key}-period-to", format="YYYY-MM-DD")
    opening.text_input("Opening balance", key=f"{key}-opening")
    closing.text_input("Closing balance", key=f"{key}-closing")
    for name, label in ((f"{key}-opening", "opening"), (f"{key}-closing", "closing")):
        if str(state.get(name) or "").strip() and _decimal(state.get(name)) is None:
            st.error(f"The {label} balance is not a number.", icon=":material/error:")


def _statement_card(context: AppContext, upload: _Upload) -> None:
    """A statement PDF before it lands: bank, account, period, balances (every field editable),
    the rows read and whether they reconcile, a thumbnail of its first page, its first rows."""
    try:
        pages = _statement_pages(context, str(upload.path), upload.key)
        preview = context.importer.preview_statement(upload.path, _defaults(upload), pages)
    except UnreadableFile as exc:
        st.error(plain_markdown(str(exc)), icon=":material/block:")
        return
    thumbnail, fields = st.columns([1, 4], gap="medium")
    with thumbnail:
        image = _thumbnail(str(upload.path), preview.account_no)
        if image is not None:
            st.html(page_figure(image, 1))
    with fields:
        _statement_fields(upload, preview)
    check = preview.reconciliation
    rows, status = st.columns([1, 3])
    rows.metric("Rows read", f"{preview.row_count:,}", border=True)
    status.metric(
        "Reconciliation",
        reconciliation_mark(check),
        border=True,
        help=plain_markdown(check.describe()),
    )
    st.caption(f"{PDF_FORMAT}: {plain_markdown(check.describe())}")
    for note in [*preview.assumed, *preview.notes]:
        st.caption(f"Note — {plain_markdown(note)}")
    for problem in preview.problems[:SHOWN_PROBLEMS]:
        st.caption(f"Not read — {plain_markdown(f'{problem.location}: {problem.reason}')}")
    if len(preview.problems) > SHOWN_PROBLEMS:
        more = len(preview.problems) - SHOWN_PROBLEMS
        st.caption(f"…and {more:,} more; the report will list them.")
    transactions_table(preview.rows, key=f"{upload.key}-preview", file_name="preview.csv")


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
    for upload in uploads:  # a reading chosen by hand holds for the layout's next files too
        if (chosen := mappings.get(upload.key)) is not None:
            importer.remember(upload.path, chosen)
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
    for report in outcome.reports:
        for note in report.notes:
            st.caption(f"{plain_markdown(report.source)} — {plain_markdown(note)}")
    if problems:
        st.markdown("**Rows and pages that were not ingested, statements that do not reconcile**")
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
