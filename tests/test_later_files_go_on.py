"""A file whose reading fails where it should have reported never stops the files after it: in
``finsync ingest`` and in the app's upload jobs it is that file's one problem, without a
traceback, and the good files still land."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest import bank_csv, formats
from elastic.ingest.formats import EXPORT_FORMATS, Format
from elastic.ingest.landing import ingest_file
from elastic.ingest.parsed import ParsedFile, ParsedRow
from llm.embeddings import LocalEmbedder
from llm.ingest_jobs import FileToIngest, IngestJobs
from llm.ingesting import FileDefaults, Importer
from llm.pipeline import ChatPipeline
from llm.services import statement_store
from llm.understanding.offline_router import OfflineRouter
from settings import Settings
from tests.reliability import record
from tests.test_cli import finsync

pytestmark = pytest.mark.reliability

FORMATS = Path(__file__).parent / "fixtures" / "formats"
GOOD = """date,description,amount,currency,category,merchant,account_no,account_name,bank_name
2025-05-03,ZEPHYR KITES CA,-123.45,USD,Hobbies,Zephyr Kites,9900112233,Kite Card,Test Bank
2025-05-17,ZEPHYR KITES CA,-76.55,USD,Hobbies,Zephyr Kites,9900112233,Kite Card,Test Bank
"""


AMOUNTS = ["Infinity", "NaN", "1E+26", "-1E+400"]


@pytest.fixture(params=AMOUNTS)
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, list[Path]]:
    """An amount no ledger can hold, and three files: a good export, a CAMT statement with that
    amount, another good one."""
    camt = (FORMATS / "camt053_v02.xml").read_text(encoding="utf-8")
    changed = camt.replace('<Amt Ccy="EUR">45.90</Amt>', f'<Amt Ccy="EUR">{request.param}</Amt>')
    assert changed != camt
    (tmp_path / "march.xml").write_text(changed, encoding="utf-8")
    (tmp_path / "kites.csv").write_text(GOOD, encoding="utf-8")
    shutil.copy(tmp_path / "kites.csv", tmp_path / "kites-again.csv")
    return request.param, [
        tmp_path / "kites.csv",
        tmp_path / "march.xml",
        tmp_path / "kites-again.csv",
    ]


def test_the_command_goes_on_after_a_file_it_cannot_hold(
    hostile: tuple[str, list[Path]], tmp_path: Path
) -> None:
    amount, files = hostile
    env = {"FINSYNC_DATA_DIR": str(tmp_path / "data")}
    result = finsync("ingest", *map(str, files), env=env, cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    assert "march.xml" in result.stderr  # its problem is named
    assert "kites.csv: finsync-csv: 2 indexed" in result.stdout
    assert "kites-again.csv: finsync-csv: 0 indexed, 2 skipped" in result.stdout
    record(
        "hostile-values",
        f"a CAMT amount of {amount} between two good files (finsync ingest)",
        "exit 1; the later file landed; the amount reported; no traceback",
        backend="embedded",
        tracebacks_shown=0,
    )


def test_an_upload_job_goes_on_after_a_file_it_cannot_hold(
    hostile: tuple[str, list[Path]], tmp_path: Path, embedder: LocalEmbedder
) -> None:
    _, files = hostile
    settings = Settings(data_dir=tmp_path / "data", es_url=None)
    backend = EmbeddedBackend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    try:
        importer = Importer(
            ChatPipeline(backend, embedder, OfflineRouter), settings, statement_store(settings), "u"
        )
        uploads = [FileToIngest(f.name, f, FileDefaults()) for f in files]
        job = IngestJobs().start(
            ("store", "u"),
            uploads,
            lambda upload, progress: importer.land(upload.path, upload.defaults, None, progress),
            lambda: None,
        )
        assert job.wait(120)
        view = job.view()
        assert view.failure is None and view.files_done == 3
        first, hostile, last = view.reports
        assert (first.indexed, last.indexed, last.skipped) == (2, 0, 2)
        assert hostile.problems  # the amount it cannot hold is reported, in the file or its row
    finally:
        backend.close()


# -- a reader's own bug, which no real file triggers on demand: injected into the readers ------
def _failing_readers(after_rows: int | None) -> tuple[Format, ...]:
    """The readers, with the CSV stream raising a bug of its own after ``after_rows`` rows (or
    at once, before any row, when None)."""

    def read(path: Path) -> ParsedFile:
        if after_rows is None:
            raise KeyError("a reader's bug")
        parsed = bank_csv.stream(path)

        def rows() -> Iterator[ParsedRow]:
            for n, row in enumerate(parsed.rows):
                if n == after_rows:
                    raise KeyError("a reader's bug")
                yield row

        return replace(parsed, rows=rows())

    return tuple(Format(f.name, f.sniff, read) if f.name == "csv" else f for f in EXPORT_FORMATS)


@pytest.mark.parametrize("after_rows", [None, 1])
def test_a_readers_own_failure_is_its_files_problem_and_what_it_read_lands(
    after_rows: int | None, tmp_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(formats, "EXPORT_FORMATS", _failing_readers(after_rows))
    export = tmp_path / "kites.csv"
    export.write_text(GOOD, encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data", es_url=None)
    backend = EmbeddedBackend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    try:
        report = ingest_file(backend, export, "u", defaults=FileDefaults())
        (problem,) = report.problems
        assert "could not finish reading this file (KeyError" in str(problem)
        assert report.indexed == (after_rows or 0)  # the rows read before the failure landed
    finally:
        backend.close()
