"""Resource limits and faults in the app: pages drawn within a pixel budget and a time limit,
uploads capped by size and pages, imports run in the background with truthful progress, a
question sent while another is answered kept in order, and failures shown as one line."""

from __future__ import annotations

import io
import math
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fpdf import FPDF
from PIL import Image
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Button

from elastic.backend import WriteCounts
from elastic.engines.sqlite.backend import DB_FILE, EmbeddedBackend
from elastic.errors import BackendUnavailable
from elastic.ingest.landing import WRITE_BATCH, FileDefaults, Progress, ingest_file
from elastic.model.records import IngestReport, Transaction
from elastic.statement_store import StatementStore
from llm import pdf_pages
from llm.answering.wording import money
from llm.embeddings import LocalEmbedder
from llm.ingest_jobs import FileToIngest, IngestJobs, JobRunning, JobState
from llm.pdf_pages import (
    MAX_RENDER_PIXELS,
    MAX_RENDER_SIDE,
    RENDER_SCALE,
    PageNotDrawn,
    bounded_page_png,
    page_png,
    render_scale,
)
from scripts.sample_data import SampleSet
from settings import Settings
from tests.app_server import (
    APP,
    UPLOAD_CSV,
    copy_data_dir,
    ingest_sample_into,
    sample_transactions,
    spent,
)
from tests.reliability import record
from tests.test_ui_apptest import (
    TIMEOUT_S,
    ask,
    page,
    report_shown,
    started,
    use_data_dir,
)
from ui.answer_text import plain_markdown
from ui.chat_history import MAX_WAITING, WaitingQuestion

GIANT_POINTS = 14_400  # 200 inches: the largest page side the PDF format allows
ACCOUNT_NO = "4402718831"
BUSY = "The local store is busy with another import; try again when it has finished."


# --- PDFs for the limits -------------------------------------------------------------------------


def statement_pdf(path: Path, side: float, pages: int = 1) -> Path:
    """A statement of ``pages`` square pages of ``side`` points, with text to cite."""
    pdf = FPDF(unit="pt", format=(side, side))
    pdf.set_font("helvetica", size=12)
    for number in range(1, pages + 1):
        pdf.add_page()
        pdf.text(40, 60, "Northwind Bank  Account Statement")
        pdf.text(40, 80, f"Account number: {ACCOUNT_NO}")
        pdf.text(40, 100, "Statement period: 1 March 2025 to 31 March 2025")
        pdf.text(40, 120, f"Overdraft fee: $35.00 per item. Page {number} of {pages}")
    pdf.output(str(path))
    return path


def slow_pdf(path: Path) -> Path:
    """A small page that takes pdfium minutes to draw: its background is a tiling pattern of
    cells a hundredth of a point apart, each drawn one by one (written by hand: fpdf2 has no
    tiling patterns)."""
    content = (
        b"BT /F1 12 Tf 40 780 Td (Overdraft fee: $35.00 per item.) Tj ET "
        b"/Pattern cs /P1 scn 0 0 595 842 re f"
    )
    cell = b"0 0 0.005 0.005 re f"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> /Pattern << /P1 6 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 1 1] "
        b"/XStep 0.01 /YStep 0.01 /Resources << >> /Length %d >>\nstream\n%s\nendstream"
        % (len(cell), cell),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))
    return path


def image_size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


def children_drawing_pages() -> list[int]:
    """Processes of ours still running ``python -m llm.pdf_pages``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"llm.pdf_pages" in command:
            pids.append(int(entry.name))
    return pids


@pytest.fixture(autouse=True)
def _no_page_drawing_left_behind() -> Iterator[None]:
    yield
    assert children_drawing_pages() == []


# --- pages drawn within a pixel budget and a time limit ------------------------------------------


@pytest.mark.parametrize(
    ("width", "height"),
    [(612, 792), (595, 842), (GIANT_POINTS, GIANT_POINTS), (GIANT_POINTS, 10), (3_000, 50_000)],
)
def test_every_drawable_page_fits_the_pixel_budget(width: float, height: float) -> None:
    scale = render_scale(width, height)
    assert scale is not None
    pixels_wide, pixels_high = math.ceil(width * scale), math.ceil(height * scale)
    assert pixels_wide * pixels_high <= MAX_RENDER_PIXELS
    assert max(pixels_wide, pixels_high) <= MAX_RENDER_SIDE
    letter = render_scale(612, 792)
    assert letter == RENDER_SCALE  # a statement page keeps its usual sharpness


def test_a_page_no_scale_can_fit_is_not_drawn() -> None:
    assert render_scale(200_000, 200_000) is None
    assert render_scale(0, 792) is None


@pytest.mark.reliability
def test_a_giant_page_is_drawn_within_the_pixel_budget(tmp_path: Path) -> None:
    giant = statement_pdf(tmp_path / "giant.pdf", GIANT_POINTS)
    width, height = image_size(bounded_page_png(giant, 1, ACCOUNT_NO))
    assert width * height <= MAX_RENDER_PIXELS
    scale = render_scale(GIANT_POINTS, GIANT_POINTS)
    assert scale is not None
    assert (width, height) == (math.ceil(GIANT_POINTS * scale),) * 2
    record(
        "limits",
        f"statement page of {GIANT_POINTS:,} x {GIANT_POINTS:,} points in the source viewer",
        f"drawn at {width:,} x {height:,} px ({width * height / 1e6:.1f} of "
        f"{MAX_RENDER_PIXELS / 1e6:.0f} megapixels allowed)",
        tracebacks_shown=0,
    )


def test_normal_pages_are_drawn_as_before(sample_set: SampleSet) -> None:
    pdf = sample_set.statement_pdfs[0]
    in_child = bounded_page_png(pdf, 1, ACCOUNT_NO, passage="Overdraft fee")
    assert in_child == page_png(pdf, 1, ACCOUNT_NO, passage="Overdraft fee")
    assert image_size(in_child) == (math.ceil(612 * RENDER_SCALE), math.ceil(792 * RENDER_SCALE))


@pytest.mark.reliability
def test_a_page_that_draws_too_slowly_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_pages, "RENDER_TIMEOUT_S", 1.0)
    slow = slow_pdf(tmp_path / "slow.pdf")
    started_at = time.monotonic()
    with pytest.raises(PageNotDrawn, match="longer than 1 seconds"):
        bounded_page_png(slow, 1, ACCOUNT_NO)
    waited = time.monotonic() - started_at
    assert waited < 30  # the child was stopped, not waited for (it would take minutes)
    assert children_drawing_pages() == []
    record(
        "limits",
        "statement page whose tiling pattern takes pdfium minutes to draw",
        f"drawing stopped after the time limit ({waited:.1f} s); text view with a note",
        tracebacks_shown=0,
    )


def test_a_page_too_large_to_draw_says_why(tmp_path: Path) -> None:
    huge = statement_pdf(tmp_path / "huge.pdf", 200_000)
    with pytest.raises(PageNotDrawn, match=r"at 2,778 × 2,778 inches the page is too large"):
        bounded_page_png(huge, 1, ACCOUNT_NO)


# --- the source viewer in the app ---------------------------------------------------------------


def _stored_statement(data_dir: Path, pdf: Path, embedder: LocalEmbedder) -> str:
    """``pdf`` ingested into a fresh store at ``data_dir``; its statement id."""
    settings = Settings(data_dir=data_dir, es_url=None)
    backend = EmbeddedBackend(settings)
    try:
        backend.prepare(embedder.dims, embedder.model_name)
        report = ingest_file(
            backend,
            pdf,
            settings.user,
            embedder,
            StatementStore(settings.statements_dir),
            FileDefaults(bank_name="Northwind Bank", currency="USD"),
        )
        assert report.indexed, report.problems
        (statement,) = backend.statements(settings.user)
    finally:
        backend.close()
    return statement.statement_id


def viewer(statement_id: str) -> AppTest:
    script = (
        "from ui.context import app_context\n"
        "from ui.source_viewer import statement_page\n"
        f"statement_page(app_context(), {statement_id!r}, 1, 'Overdraft fee')\n"
    )
    return AppTest.from_string(script, default_timeout=TIMEOUT_S)


@pytest.mark.parametrize(
    ("side", "timeout_s", "note"),
    [
        (GIANT_POINTS, None, None),
        (200_000, None, "at 2,778 × 2,778 inches the page is too large to draw"),
        (None, 1.0, "drawing it takes longer than 1 seconds"),
    ],
    ids=["giant", "too-large", "too-slow"],
)
def test_the_viewer_shows_the_page_or_its_text_with_a_note(
    side: float | None,
    timeout_s: float | None,
    note: str | None,
    tmp_path: Path,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pdf = (
        statement_pdf(tmp_path / "statement.pdf", side)
        if side
        else slow_pdf(tmp_path / "statement.pdf")
    )
    if timeout_s is not None:
        monkeypatch.setattr(pdf_pages, "RENDER_TIMEOUT_S", timeout_s)
    statement_id = _stored_statement(tmp_path / "data", pdf, embedder)
    use_data_dir(monkeypatch, tmp_path / "data")
    at = started(viewer(statement_id))
    page_text = " ".join(h.value for h in at.html)
    assert '<mark id="fs-cited">Overdraft fee' in page_text  # the text view is always there
    images = page_text.count('<img src="data:image/png;base64,')
    if note is None:
        assert images == 1 and not at.info
    else:
        assert not images
        (info,) = at.info
        assert info.value == f"This page is not shown as an image: {note}. Its text is beside."


# --- upload caps ---------------------------------------------------------------------------------


@pytest.fixture
def empty_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data_dir = tmp_path / "data"
    use_data_dir(monkeypatch, data_dir)
    return data_dir


def ingest_button(at: AppTest) -> Button:
    return next(b for b in at.button if b.label.startswith("Ingest"))


@pytest.mark.reliability
def test_a_file_over_the_size_limit_is_refused_with_the_limit_named(
    empty_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FINSYNC_MAX_UPLOAD_MB", "1")
    big = UPLOAD_CSV + (UPLOAD_CSV.splitlines()[1] + "\n") * 20_000
    assert len(big) > 1024 * 1024
    megabytes = f"{len(big) / 1024 / 1024:.1f}"
    at = started(page("ingest_page", "ui.pages.ingest_page"))
    uploader = at.file_uploader(key="uploads")
    uploader.upload("big.csv", big.encode(), "text/csv")
    uploader.upload("kites.csv", UPLOAD_CSV.encode(), "text/csv").run()
    assert not at.exception, at.exception
    (refusal,) = at.error
    assert refusal.value.startswith(
        f"big\\.csv is {megabytes} MB; the Ingest page takes files of up to 1 MB."
    )
    assert ingest_button(at).label == "Ingest 1 file"  # the other file is still taken
    assert not any(p.name == "big.csv" for p in empty_store.rglob("*"))
    record(
        "limits",
        "upload over the size limit",
        "refused before it is stored or read, limit named",
        tracebacks_shown=0,
    )


@pytest.mark.reliability
def test_a_pdf_over_the_page_limit_is_refused_before_any_work(
    empty_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FINSYNC_MAX_UPLOAD_PAGES", "3")
    long_pdf = statement_pdf(tmp_path / "long.pdf", 612, pages=4).read_bytes()
    short_pdf = statement_pdf(tmp_path / "short.pdf", 612, pages=3).read_bytes()
    at = started(page("ingest_page", "ui.pages.ingest_page"))
    at.file_uploader(key="uploads").upload("long.pdf", long_pdf, "application/pdf").run()
    assert not at.exception, at.exception
    (refusal,) = at.error
    assert refusal.value.startswith(
        "long\\.pdf has 4 pages; the Ingest page takes PDFs of up to 3 pages."
    )
    assert ingest_button(at).disabled
    assert not any(c.value.startswith("statement PDF:") for c in at.caption)  # not even previewed

    at.file_uploader(key="uploads").upload("short.pdf", short_pdf, "application/pdf").run()
    assert not at.exception, at.exception
    assert any(c.value.startswith("statement PDF:") for c in at.caption)
    assert not ingest_button(at).disabled
    record("limits", "PDF over the page limit on the Ingest page", "refused before any work")


# --- imports in the background -------------------------------------------------------------------


def _files(*names: str) -> list[FileToIngest]:
    return [FileToIngest(name, Path(name), FileDefaults()) for name in names]


class Gate:
    """Holds a job's work at a point until released."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()

    def hold(self) -> None:
        self.reached.set()
        assert self.release.wait(30)


def test_progress_is_files_done_and_rows_written() -> None:
    gate = Gate()
    done = threading.Event()

    def work(upload: FileToIngest, progress: Progress) -> IngestReport:
        if upload.name == "b.csv":
            progress(2_000, 5_000, upload.name)
            gate.hold()
        return IngestReport(source=upload.name, format="bank-csv", indexed=5)

    jobs = IngestJobs()
    job = jobs.start(("store", "ann"), _files("a.csv", "b.csv"), work, done.set)
    assert gate.reached.wait(30)
    view = job.view()
    assert view.state is JobState.running and not done.is_set()
    assert view.fraction == pytest.approx((1 + 2_000 / 5_000) / 2)
    assert view.label == "Ingesting b.csv (file 2 of 2): 2,000 of 5,000 rows written"
    with pytest.raises(JobRunning):
        jobs.start(("store", "ann"), _files("c.csv"), work, done.set)
    gate.release.set()
    assert job.wait(30) and done.is_set()
    view = job.view()
    assert [r.source for r in view.reports] == ["a.csv", "b.csv"] and view.failure is None
    jobs.dismiss(("store", "ann"))
    assert jobs.get(("store", "ann")) is None


def test_a_job_waits_for_a_free_slot() -> None:
    gate = Gate()

    def held(upload: FileToIngest, progress: Progress) -> IngestReport:
        gate.hold()
        return IngestReport(source=upload.name)

    def quick(upload: FileToIngest, progress: Progress) -> IngestReport:
        return IngestReport(source=upload.name)

    jobs = IngestJobs(running=1)
    first = jobs.start(("store", "ann"), _files("a.pdf"), held, lambda: None)
    assert gate.reached.wait(30)
    second = jobs.start(("store", "bob"), _files("b.csv"), quick, lambda: None)
    assert not second.wait(0.3)
    assert second.view().label == "Waiting for other imports on this server to finish…"
    assert second.view().fraction == 0
    gate.release.set()
    assert first.wait(30) and second.wait(30)


@pytest.mark.reliability
def test_a_failing_import_says_what_landed_in_one_line() -> None:
    done = threading.Event()

    def work(upload: FileToIngest, progress: Progress) -> IngestReport:
        if upload.name == "b.csv":
            progress(3, 10, upload.name)
            raise BackendUnavailable(BUSY)
        return IngestReport(source=upload.name, indexed=4)

    job = IngestJobs().start(("store", "ann"), _files("a.csv", "b.csv", "c.csv"), work, done.set)
    assert job.wait(30) and done.is_set()
    view = job.view()
    assert [r.source for r in view.reports] == ["a.csv"]
    assert view.failure == (
        f"Ingestion stopped at b.csv ({BUSY.rstrip('.')}). 1 of 3 files "
        "landed in full, and 3 of 10 rows of b.csv; what landed is kept. Press Ingest again "
        "once the problem is fixed: nothing is added twice."
    )
    record("faults", "import fails midway (job runner)", "one line naming what landed")


def _stored_rows(data_dir: Path, source: str) -> int:
    with sqlite3.connect(data_dir / DB_FILE) as db:
        (count,) = db.execute(
            "SELECT COUNT(*) FROM transactions WHERE source_file = ?", (source,)
        ).fetchone()
    return int(count)


def _export(rows: int) -> str:
    lines = [UPLOAD_CSV.splitlines()[0]]
    for n in range(rows):
        day = f"2025-0{1 + n % 9}-{1 + n % 28:02d}"
        lines.append(
            f"{day},KITE SHOP {n},-{1 + n % 97}.{n % 100:02d},USD,Hobbies,Kite Shop,"
            "9900112233,Kite Card,Test Bank"
        )
    return "\n".join(lines) + "\n"


@pytest.fixture
def copied_sample(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = copy_data_dir(data_dir, tmp_path / "data")
    use_data_dir(monkeypatch, copy)
    return copy


@pytest.fixture(scope="module")
def data_dir(
    sample_set: SampleSet, embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return ingest_sample_into(tmp_path_factory.getbasetemp() / "ui-sample", sample_set, embedder)


@pytest.mark.reliability
def test_an_import_interrupted_by_a_fault_keeps_what_landed_and_finishes_later(
    copied_sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = 2 * WRITE_BATCH + 2_000  # three writes: the second one fails
    writes = {"count": 0}
    real_add = EmbeddedBackend.add_transactions

    def failing_second_write(
        self: EmbeddedBackend, user_id: str, batch: list[Transaction], visible: bool = True
    ) -> WriteCounts:
        writes["count"] += 1
        if writes["count"] == 2:
            raise BackendUnavailable(BUSY)
        return real_add(self, user_id, batch, visible)

    ingest = started(page("ingest_page", "ui.pages.ingest_page"))
    ingest.file_uploader(key="uploads").upload("many.csv", _export(rows).encode(), "text/csv")
    ingest.run()
    with monkeypatch.context() as patch:
        patch.setattr(EmbeddedBackend, "add_transactions", failing_second_write)
        ingest_button(ingest).click().run()
        report_shown(ingest)
    (failure,) = ingest.error
    assert failure.value.startswith(
        plain_markdown("Ingestion stopped at many.csv (The local store is busy")
    )
    landed = plain_markdown(
        f"0 of 1 files landed in full, and {WRITE_BATCH:,} of {rows:,} rows of many.csv"
    )
    assert landed in failure.value
    assert "\n" not in failure.value and "Traceback" not in failure.value
    assert not ingest.exception
    stored = _stored_rows(copied_sample, "many.csv")
    assert stored == WRITE_BATCH
    record(
        "faults",
        "data store fails during an upload's second write",
        "one-line message naming what landed; landed rows kept",
        backend="embedded",
        rows_in=rows,
        rows_stored=stored,
        rows_reported=rows - stored,
        tracebacks_shown=0,
    )

    # Another session of the same person (they left and came back) sees the same report.
    again = started(page("ingest_page", "ui.pages.ingest_page"))
    assert [e.value for e in again.error] == [failure.value]

    ingest_button(ingest).click().run()
    report_shown(ingest)
    # landed, already present
    assert [m.value for m in ingest.metric][:2] == [f"{rows - WRITE_BATCH:,}", f"{WRITE_BATCH:,}"]
    assert _stored_rows(copied_sample, "many.csv") == rows


def test_the_ingest_page_shows_a_running_import_and_its_report_later(
    copied_sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    real_ingest = ingest_file

    def held_after_landing(*args: object, **kwargs: object) -> IngestReport:
        report = real_ingest(*args, **kwargs)
        gate.hold()
        return report

    monkeypatch.setattr("elastic.ingest.importer.ingest_file", held_after_landing)
    ingest = started(page("ingest_page", "ui.pages.ingest_page"))
    ingest.file_uploader(key="uploads").upload("kites.csv", UPLOAD_CSV.encode(), "text/csv")
    ingest.run()
    ingest_button(ingest).click().run()
    assert gate.reached.wait(TIMEOUT_S)
    ingest.run()
    assert not ingest.exception, ingest.exception
    (bar,) = ingest.get("progress")
    # Three rows in the file, two written: the third is reported (its amount is not a number).
    label = "Ingesting kites.csv (file 1 of 1): 2 of 3 rows written"
    assert bar.proto.text == plain_markdown(label)
    assert ingest_button(ingest).disabled  # one import at a time per person
    assert not any(h.value == "Report" for h in ingest.subheader)
    gate.release.set()
    report_shown(ingest)
    assert [m.value for m in ingest.metric][:4] == ["2", "0", "0", "1"]


# --- questions sent while another is answered ----------------------------------------------------


def test_a_question_left_waiting_is_answered_before_the_next(
    copied_sample: Path, sample_set: SampleSet
) -> None:
    """A run stopped by a newer question leaves its question waiting: the next run answers it
    first, and the newer one after it (here a follow-up, which needs the first answer)."""
    transactions = sample_transactions(sample_set)
    chat = started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))
    chat.session_state["chat_waiting_questions"] = [
        WaitingQuestion("How much did I spend on groceries in 2024?")
    ]
    ask(chat, "and in 2025?")
    questions = [m.markdown[0].value for m in chat.chat_message[::2]]
    assert questions == [
        plain_markdown(q) for q in ("How much did I spend on groceries in 2024?", "and in 2025?")
    ]
    in_2024, _ = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
    in_2025, _ = spent(transactions, "2025-01-01", "2025-12-31", category="Groceries")
    assert chat.chat_message[1].metric[0].value == money(in_2024)
    assert chat.chat_message[3].metric[0].value == money(in_2025)
    assert chat.session_state["chat_waiting_questions"] == []


@pytest.mark.reliability
def test_a_question_over_the_waiting_limit_is_refused_with_a_message(
    copied_sample: Path,
) -> None:
    chat = started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))
    chat.session_state["chat_waiting_questions"] = [
        WaitingQuestion(f"How much did I spend in {2020 + n}?") for n in range(MAX_WAITING)
    ]
    ask(chat, "How much did I spend on travel in 2024?")
    (toast,) = chat.toast
    assert toast.value.startswith(f"{MAX_WAITING} questions are waiting already")
    questions = [m.markdown[0].value for m in chat.chat_message[::2]]
    assert questions == [
        plain_markdown(f"How much did I spend in {2020 + n}?") for n in range(MAX_WAITING)
    ]
    record("limits", "question sent while five wait in one session", "refused with a message")
