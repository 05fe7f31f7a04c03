"""Nothing a file holds can drive the terminal ``finsync`` prints to: control characters and
bidi overrides in merchant names come out as visible escapes, in text and JSON alike, and the
JSON still reads back to the names as stored."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scripts.cli import terminal_safe
from tests.reliability import record
from tests.test_cli import finsync

pytestmark = pytest.mark.reliability

HOSTILE_NAMES = {
    "OSC 52 clipboard write": "Evil\x1b]52;c;cm0gLXJmIH4=\x07 Store",
    "cursor movement and erase": "Shop\x1b[2J\x1b[H Cleared",
    "bell and backspace": "Bell\x07\x08\x08\x08 Mart",
    "C1 control (CSI)": "Csi\x9b31m Red",
    "DEL": "Del\x7f Deli",
}
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_terminal_safe_escapes_controls_and_keeps_the_rest() -> None:
    assert terminal_safe("a\x1b]52;c;x\x07b\tc\nd") == "a\\u001b]52;c;x\\u0007b\tc\nd"
    assert terminal_safe("Café 7-Eleven ½") == "Café 7-Eleven ½"
    assert terminal_safe("\u202eevil") == "\\u202eevil"
    encoded = json.dumps({"merchant": "x\x85y\x7f"}, ensure_ascii=False)
    assert json.loads(terminal_safe(encoded)) == {"merchant": "x\x85y\x7f"}


def test_the_command_prints_hostile_names_inert(tmp_path: Path) -> None:
    header = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name"
    lines = [header] + [
        f"2024-06-0{n},CARD PURCHASE {n},-{n}.00,USD,Shopping,{name},500011112222,Everyday,Bank"
        for n, name in enumerate(HOSTILE_NAMES.values(), start=1)
    ]
    export = tmp_path / "hostile.csv"
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {"FINSYNC_DATA_DIR": str(tmp_path / "data")}
    landed = finsync("ingest", str(export), env=env, cwd=tmp_path)
    assert landed.returncode == 0, landed.stderr

    by_merchant = "How much did I spend by merchant in June 2024?"
    text = finsync("ask", by_merchant, "--as-of", "2024-07-15", env=env, cwd=tmp_path)
    listing = "List my transactions in June 2024"
    as_json = finsync("ask", listing, "--as-of", "2024-07-15", "--json", env=env, cwd=tmp_path)
    for result in (text, as_json, landed):
        assert result.returncode == 0, result.stderr
        assert not RAW_CONTROLS.search(result.stdout + result.stderr)
    assert "Evil\\u001b]52;c;cm0gLXJmIH4=\\u0007 Store" in text.stdout
    (answer,) = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert {row["merchant"] for row in answer["data"]["rows"]} == set(HOSTILE_NAMES.values())
    for case in HOSTILE_NAMES:
        record(
            "terminal",
            f"a merchant name with {case} (finsync ask, text and --json)",
            "printed as visible escapes; the JSON reads back to the stored name",
            backend="embedded",
            tracebacks_shown=0,
        )
