"""The hostile-input and fault suite's outcomes, written for ``docs/RELIABILITY.md``.

Each check calls :func:`record` with what it tried and what happened, after asserting it. When
``FINSYNC_RELIABILITY_LOG`` names a file (``make reliability`` sets it), every record is appended
to it as one JSON line; ``scripts/reliability_report.py`` turns those lines into the report.
Without the variable a record is only checked for shape, so the suite runs the same in CI.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

LOG_VARIABLE = "FINSYNC_RELIABILITY_LOG"


@dataclass(frozen=True)
class Outcome:
    """One input or fault tried: ``area`` groups the report, ``case`` names the input."""

    area: str
    case: str
    result: str
    backend: str = ""
    rows_in: int | None = None
    rows_stored: int | None = None
    rows_reported: int | None = None
    leaks: int | None = None
    outside_requests: int | None = None
    tracebacks_shown: int | None = None


def record(area: str, case: str, result: str, **counts: int | str | None) -> Outcome:
    """Keep one outcome for the report (see the module docstring)."""
    outcome = Outcome(area=area, case=case, result=result, **counts)  # type: ignore[arg-type]
    target = os.environ.get(LOG_VARIABLE)
    if target:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write(json.dumps(asdict(outcome), ensure_ascii=False) + "\n")
    return outcome
