"""Write docs/RELIABILITY.md from the outcomes the hostile-input and fault suite recorded.

``make reliability`` runs ``pytest -m reliability`` with ``FINSYNC_RELIABILITY_LOG`` set, then
this script. Each line of the log is one input or fault tried (``tests/reliability.py``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

TOTALS = ("rows_lost", "leaks", "outside_requests", "tracebacks_shown")
COLUMNS = ("rows_in", "rows_stored", "rows_reported", "rows_lost")


def _rows_lost(outcome: dict[str, Any]) -> int | None:
    counts = [outcome.get(name) for name in COLUMNS[:3]]
    if any(count is None for count in counts):
        return None
    rows_in, stored, reported = counts
    return rows_in - stored - reported


def _total(outcomes: list[dict[str, Any]], name: str) -> str:
    """The sum over the cases that measured ``name``, saying how many did."""
    measured = [o[name] for o in outcomes if o.get(name) is not None]
    if not measured:
        return "not measured"
    return f"{sum(measured)} (in {len(measured)} case{'' if len(measured) == 1 else 's'})"


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def render(outcomes: list[dict[str, Any]], commit: str, day: date) -> str:
    """The report: totals first, then one table per area."""
    for outcome in outcomes:
        outcome["rows_lost"] = _rows_lost(outcome)
    totals = {name: _total(outcomes, name) for name in TOTALS}
    lines = [
        "# FinSync Chat: reliability report",
        "",
        "Every hostile input and fault the reliability suite tries, with what happened. "
        "Regenerate with `make reliability` (runs `pytest -m reliability`, then "
        "`scripts/reliability_report.py`).",
        "",
        f"Run of {day.isoformat()} at commit `{commit}`: {len(outcomes)} cases.",
        "",
        "| rows lost | leaks between users | outside requests | tracebacks shown to a user |",
        "|---|---|---|---|",
        "| " + " | ".join(totals[name] for name in TOTALS) + " |",
        "",
    ]
    by_area: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for outcome in outcomes:
        by_area[outcome["area"]].append(outcome)
    for area in sorted(by_area):
        rows = sorted(by_area[area], key=lambda o: (o["case"], o.get("backend") or ""))
        extra = [
            name for name in (*COLUMNS, *TOTALS[1:]) if any(o.get(name) is not None for o in rows)
        ]
        header = ["case", "backend", "result", *(name.replace("_", " ") for name in extra)]
        lines += [f"## {area[0].upper()}{area[1:]}", "", "| " + " | ".join(header) + " |"]
        lines.append("|" + "---|" * len(header))
        for o in rows:
            cells = [o["case"], o.get("backend") or "", o["result"], *(o.get(n) for n in extra)]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path, help="the JSON lines the suite wrote")
    parser.add_argument("report", type=Path, help="the markdown file to write")
    args = parser.parse_args()
    outcomes = [json.loads(line) for line in args.log.read_text("utf-8").splitlines() if line]
    if not outcomes:
        raise SystemExit(f"{args.log} holds no outcomes: did the reliability suite run?")
    args.report.write_text(render(outcomes, _commit(), date.today()), encoding="utf-8")
    print(f"wrote {args.report}: {len(outcomes)} cases")


if __name__ == "__main__":
    main()
