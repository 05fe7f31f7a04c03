"""Malformed bank exports (``tests/fixtures/hostile/``) on both backends: every row lands or is
reported with its line, never lost, and the good rows all land.

The counts are written by hand in ``manifest.toml``; the test only ingests and compares.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from elastic.backend import SearchBackend
from elastic.ingest.landing import ingest_file
from elastic.model.plan import Direction, Intent, IntentPlan
from elastic.model.records import IngestReport
from llm.embeddings import LocalEmbedder
from scripts.cli import app
from tests.conftest import empty_backend
from tests.reliability import record

HOSTILE = Path(__file__).parent / "fixtures" / "hostile"
CSV = HOSTILE / "csv"
MANIFEST: dict[str, dict] = tomllib.loads((HOSTILE / "manifest.toml").read_text("utf-8"))["files"]
HEADER = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"
_LINE = re.compile(r"^line (\d+)")


@pytest.fixture(scope="module", params=["embedded", "elasticsearch"])
def backend(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    embedder: LocalEmbedder,
) -> Iterator[SearchBackend]:
    data_dir = tmp_path_factory.mktemp(f"hostile-{request.param}")
    with empty_backend(request.param, request, data_dir, embedder) as backend:
        yield backend


def stored(backend: SearchBackend, user: str) -> list[str]:
    """The descriptions of every row stored for ``user``."""
    plan = IntentPlan(intent=Intent.listing, direction=Direction.any, limit=100)
    descriptions, after = [], None
    while True:
        page = backend.listing(user, plan, after)
        descriptions += [row.description for row in page.rows]
        if page.next_after is None:
            return descriptions
        after = page.next_after


def reported_lines(report: IngestReport) -> list[int]:
    """The data lines the report names (a fee row shares its line)."""
    return [int(m[1]) for p in report.problems if (m := _LINE.match(p.location))]


def check_accounting(
    backend: SearchBackend, report: IngestReport, user: str, case: str, expected: dict
) -> None:
    """rows in = rows stored + rows reported, with the counts the manifest gives by hand."""
    lines = reported_lines(report)
    rows_stored = len(stored(backend, user))
    assert sorted(lines) == sorted(set(lines)) == expected["reported"], report.problems
    assert report.indexed == expected["land"], report.problems
    assert report.skipped == expected.get("present", 0), report.problems
    assert rows_stored == expected["land"] + expected.get("present", 0)
    assert expected["rows"] == report.indexed + report.skipped + len(lines)
    assert all("Traceback" not in p.reason for p in report.problems)
    record(
        "malformed files",
        case,
        "; ".join(str(p) for p in report.problems) or "all rows landed",
        backend=backend.name,
        rows_in=expected["rows"],
        rows_stored=report.indexed + report.skipped,
        rows_reported=len(set(lines)),
    )


@pytest.mark.reliability
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_every_row_lands_or_is_reported_with_its_line(backend: SearchBackend, name: str) -> None:
    expected = MANIFEST[name]
    user = f"hostile-{Path(name).stem}"
    if "after" in expected:
        first = ingest_file(backend, CSV / expected["after"], user)
        assert first.indexed == MANIFEST[expected["after"]]["land"], first.problems
    report = ingest_file(backend, CSV / name, user)
    check_accounting(backend, report, user, name, expected)
    if "file" in expected:
        (problem,) = report.problems
        assert problem.location == "file" and expected["file"] in problem.reason
    descriptions = stored(backend, user)
    for text in expected.get("contains", []):
        assert text in descriptions


@pytest.mark.reliability
def test_a_line_beyond_any_value_length_costs_only_its_row(
    backend: SearchBackend, tmp_path: Path
) -> None:
    """Generated rather than kept: 200,000 characters on one line (what a CSV reader refuses)
    between rows of ordinary and merely long values."""
    row = "2024-03-0{day},{text},-1.00,USD,Dining,Cafe,500011115555,Long Checking,Long Bank\n"
    texts = ["SHORT", "X" * 200_000, "Y" * 5_000, "AFTER"]
    path = tmp_path / "long_line.csv"
    path.write_text(
        HEADER + "".join(row.format(day=day, text=t) for day, t in enumerate(texts, 1)), "utf-8"
    )
    expected = {"rows": 4, "land": 3, "reported": [3]}
    report = ingest_file(backend, path, "hostile-long-line")
    check_accounting(backend, report, "hostile-long-line", "long_line.csv", expected)
    assert "Y" * 5_000 in stored(backend, "hostile-long-line")


def test_the_command_reports_each_problem_and_exits_1(tmp_path: Path) -> None:
    """``finsync ingest`` over the whole corpus: one summary per file, every reported line on
    the error stream, exit 1 because something was reported, and no traceback."""
    names = [n for n in MANIFEST if "after" not in MANIFEST[n]]
    ordered = [*names, *(n for n in MANIFEST if "after" in MANIFEST[n])]
    env = {"FINSYNC_DATA_DIR": str(tmp_path / "data"), "FINSYNC_EMBEDDER": "local"}
    result = CliRunner().invoke(
        app,
        ["ingest", *(str(CSV / n) for n in ordered), "--user", "hostile-cli"],
        env=env,
        catch_exceptions=False,
    )
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for name in ordered:
        expected = MANIFEST[name]
        summary = f"{name}: "
        assert summary in result.output
        for line in expected["reported"]:
            assert f"error: {name}, line {line}: " in result.output, (name, line)
        if "file" in expected:
            assert f"error: {name}, file: " in result.output
