"""Hostile statement PDFs on both backends: each one gets a clear outcome in the report, never a
traceback, and costs nothing else (the user's other data stays as it was)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from elastic.backend import SearchBackend
from elastic.ingest.landing import ingest_file
from elastic.ingest.pdf.page_reader import MAX_PAGES
from elastic.ingest.pdf.statement import OCR_MARK
from elastic.model.plan import Direction, Intent, IntentPlan
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from scripts.cli import app
from tests import hostile_inputs as hostile
from tests.conftest import empty_backend
from tests.reliability import record

GOOD_CSV = Path(__file__).parent / "fixtures" / "hostile" / "csv" / "reexport_original.csv"
GOOD_ROWS = 4
NO_TABLE = "transactions not landed: no transaction table"


@dataclass(frozen=True)
class Case:
    write: Callable[[Path], Path]
    pages: int  # pages that must become searchable
    says: tuple[str, ...]  # what the report's problems must say, each in some problem
    text: str = ""  # text a searchable page must hold


def _truncated(path: Path) -> Path:
    return hostile.truncated_statement(path, hostile.injection_statement(path.with_suffix(".src")))


def _scanned(path: Path) -> Path:
    return hostile.scanned_statement(path, hostile.injection_statement(path.with_suffix(".src")))


CASES = {
    "prompt_injection": Case(hostile.injection_statement, 1, (NO_TABLE,), hostile.REAL_FEE_LINE),
    "markup_links_images": Case(hostile.markup_statement, 1, (NO_TABLE,), "<script>"),
    "render_bomb": Case(
        hostile.render_bomb,
        0,
        (
            "page 1 has no text; it needs OCR, but rendering it at 300 dpi would take "
            "3600 megapixels",
        ),
    ),
    "encrypted": Case(hostile.encrypted_statement, 0, ("the PDF is encrypted",)),
    "truncated": Case(_truncated, 0, ("not a readable PDF",)),
    "corrupt": Case(hostile.corrupt_pdf, 0, ("not a readable PDF",)),
    "scanned_page": Case(_scanned, 1, (NO_TABLE,), hostile.REAL_FEE_LINE),
    "over_500_pages": Case(
        lambda path: hostile.many_pages(path, MAX_PAGES + 1),
        MAX_PAGES,
        (f"the PDF has {MAX_PAGES + 1} pages; only the first {MAX_PAGES} were read", NO_TABLE),
        f"HX-{MAX_PAGES:04d}",
    ),
}


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile-pdfs")
    return {name: case.write(folder / f"{name}.pdf") for name, case in CASES.items()}


@pytest.fixture(scope="module", params=["embedded", "elasticsearch"])
def backend(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    embedder: LocalEmbedder,
) -> Iterator[SearchBackend]:
    data_dir = tmp_path_factory.mktemp(f"hostile-pdf-{request.param}")
    with empty_backend(request.param, request, data_dir, embedder) as backend:
        yield backend


def row_count(backend: SearchBackend, user: str) -> int:
    plan = IntentPlan(intent=Intent.listing, direction=Direction.any, limit=10)
    return backend.listing(user, plan).total


@pytest.mark.reliability
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_hostile_pdf_has_a_clear_outcome_and_costs_nothing_else(
    backend: SearchBackend,
    embedder: LocalEmbedder,
    pdfs: dict[str, Path],
    tmp_path: Path,
    name: str,
) -> None:
    case, user = CASES[name], f"hostile-pdf-{name}"
    store = StatementStore(tmp_path / "statements")
    assert ingest_file(backend, GOOD_CSV, user).indexed == GOOD_ROWS

    report = ingest_file(backend, pdfs[name], user, embedder, store)

    reasons = [f"{p.location}: {p.reason}" for p in report.problems]
    for said in case.says:
        assert any(said in reason for reason in reasons), reasons
    assert not any("Traceback" in r for r in reasons)
    assert report.indexed == case.pages, reasons
    statements = backend.statements(user)
    assert sum(s.pages for s in statements) == case.pages
    if case.text:
        (statement,) = statements
        chunks = backend.statement_chunks(user, statement.statement_id)
        assert any(case.text in chunk.text for chunk in chunks)
        assert max(chunk.page for chunk in chunks) <= MAX_PAGES
    assert row_count(backend, user) == GOOD_ROWS  # the user's other data is untouched
    record(
        "hostile PDFs",
        name,
        "; ".join(reasons) or "landed",
        backend=backend.name,
        tracebacks_shown=sum("Traceback" in r for r in reasons),
    )


def test_a_scanned_page_is_quoted_as_recognised_text(
    backend: SearchBackend, embedder: LocalEmbedder, pdfs: dict[str, Path], tmp_path: Path
) -> None:
    user = "hostile-pdf-scan-mark"
    ingest_file(backend, pdfs["scanned_page"], user, embedder, StatementStore(tmp_path))
    (statement,) = backend.statements(user)
    chunks = backend.statement_chunks(user, statement.statement_id)
    assert chunks and all(chunk.text.startswith(OCR_MARK) for chunk in chunks)


def test_the_command_reports_every_hostile_pdf_without_a_traceback(
    pdfs: dict[str, Path], tmp_path: Path
) -> None:
    files = [pdfs[name] for name in sorted(CASES) if name != "over_500_pages"]
    env = {"FINSYNC_DATA_DIR": str(tmp_path / "data"), "FINSYNC_EMBEDDER": "local"}
    result = CliRunner().invoke(
        app, ["ingest", *map(str, files), "--user", "hostile-cli"], env=env, catch_exceptions=False
    )
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for path in files:
        assert f"{path.name}: statement PDF: " in result.output
