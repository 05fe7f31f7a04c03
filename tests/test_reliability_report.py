"""The reliability report adds up what the suite recorded, and says what it did not measure."""

from __future__ import annotations

from datetime import date

from scripts.reliability_report import render


def test_rows_lost_are_what_neither_landed_nor_was_reported():
    outcomes = [
        {
            "area": "malformed files",
            "case": "a.csv",
            "result": "ok",
            "rows_in": 10,
            "rows_stored": 7,
            "rows_reported": 3,
        },
        {
            "area": "malformed files",
            "case": "b.csv",
            "result": "lost one",
            "rows_in": 5,
            "rows_stored": 3,
            "rows_reported": 1,
        },
        {"area": "faults", "case": "hung node", "result": "message", "tracebacks_shown": 0},
    ]
    report = render(outcomes, "abc123", date(2026, 1, 2))
    assert "| 1 (in 2 cases) | not measured | not measured | 0 (in 1 case) |" in report
    assert "| b.csv |  | lost one | 5 | 3 | 1 | 1 |" in report
    assert report.index("## Faults") < report.index("## Malformed files")
    assert "commit `abc123`" in report
