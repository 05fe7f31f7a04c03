"""A full disk is named as one, and questions keep working from the intact store.

The store lives on a real, small tmpfs that is then filled to the last byte: mounted in a
mount namespace of the test's own (``unshare --user --map-root-user --mount``), so no
privilege is needed and nothing outside the test sees it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.sample_data import SampleSet
from tests.app_server import app_environment, sample_transactions, spent
from tests.reliability import record

pytestmark = pytest.mark.reliability

SCRIPT = """
set -u
mount -t tmpfs -o size=16m tmpfs "$DATA"
"$PY" -m scripts.cli ingest "$CSV" > "$OUT/first.out" 2>&1 || exit 3
dd if=/dev/zero of="$DATA/filler" bs=1M count=64 2>/dev/null
df -k "$DATA" > "$OUT/df.out"
"$PY" -m scripts.cli ask --json --as-of 2025-07-15 "How much did I spend on groceries in 2024?" \
  > "$OUT/ask.out" 2> "$OUT/ask.err"; echo $? > "$OUT/ask.rc"
"$PY" -m scripts.cli ingest "$MORE" > "$OUT/more.out" 2> "$OUT/more.err"; echo $? > "$OUT/more.rc"
"""


def test_a_full_disk_is_named_and_questions_still_answer(
    tmp_path: Path, sample_set: SampleSet
) -> None:
    if shutil.which("unshare") is None:
        pytest.skip("util-linux's unshare is not installed: no private tmpfs to fill")
    data, out = tmp_path / "data", tmp_path / "out"
    data.mkdir()
    out.mkdir()
    more = tmp_path / "more.csv"
    more.write_text(
        "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"
        "2025-05-03,ZEPHYR KITES,-1.00,USD,Hobbies,Zephyr Kites,9900112233,Kite Card,Test\n",
        encoding="utf-8",
    )
    env = app_environment(data) | {
        "DATA": str(data),
        "OUT": str(out),
        "PY": sys.executable,
        "CSV": str(sample_set.transactions_csv),
        "MORE": str(more),
    }
    namespace = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", SCRIPT]
    ran = subprocess.run(namespace, env=env, cwd=Path(__file__).parent.parent, timeout=600)
    if ran.returncode == 1 and not (out / "first.out").exists():
        pytest.skip("this kernel refuses unprivileged user namespaces: no private tmpfs to fill")
    assert ran.returncode == 0, (out / "first.out").read_text()
    assert " 100% " in (out / "df.out").read_text()  # the disk really is full

    assert (out / "ask.rc").read_text().strip() == "0", (out / "ask.err").read_text()
    (answer,) = [json.loads(line) for line in (out / "ask.out").read_text().splitlines()]
    total, count = spent(
        sample_transactions(sample_set), "2024-01-01", "2024-12-31", category="Groceries"
    )
    assert answer["data"]["value"] == pytest.approx(float(total))
    assert answer["data"]["count"] == count

    refused = (out / "more.err").read_text()
    assert (out / "more.rc").read_text().strip() == "1"
    assert "disk holding the local store" in refused and "is full" in refused
    assert "Traceback" not in refused + (out / "ask.err").read_text()
    assert "is full: questions are answered from what it holds" in (out / "ask.err").read_text()
    record(
        "faults",
        "the disk holding the store full (a filled tmpfs)",
        "questions answered read-only; an import says the disk is full",
        backend="embedded",
        tracebacks_shown=0,
    )
