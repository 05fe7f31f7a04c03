"""The ``finsync`` command end to end, in subprocesses, on both backends."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest.pdf.statement import StatementValues, read_statement
from elastic.model.plan import Intent, IntentPlan
from scripts.sample_data import SampleSet
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER
from tests.labeled import load_cases

AS_OF = "2025-07-15"


def finsync(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FINSYNC_")}
    return subprocess.run(
        [sys.executable, "-m", "scripts.cli", *args],
        env=clean | env | {"PYTHONPATH": str(Path(__file__).parent.parent)},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def answers(result: subprocess.CompletedProcess[str]) -> list[dict]:
    assert result.returncode == 0, result.stderr[-2000:]
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_ingest_names_the_format_and_exits_by_what_landed(tmp_path: Path, sample_set: SampleSet):
    env = {"FINSYNC_DATA_DIR": str(tmp_path / "data")}
    lloyds = sample_set.exports[0].parent / "lloyds_current.csv"
    flags = ["--bank", "Lloyds Bank", "--currency", "gbp", "--account-name", "Lloyds Current"]
    first = finsync("ingest", str(lloyds), *flags, env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "lloyds_current.csv: bank-csv (Lloyds (UK)): 21 indexed, 0 skipped, 0 errors" in (
        first.stdout
    )
    again = finsync("ingest", "transactions", str(lloyds), *flags, env=env, cwd=tmp_path)
    assert again.returncode == 0 and "0 indexed, 21 skipped" in again.stdout, again.stdout

    damaged = tmp_path / "damaged.csv"
    lines = lloyds.read_text().splitlines()
    damaged.write_text("\n".join([*lines[:3], lines[3].replace(",DEB,", ",DEB,,"), *lines[4:]]))
    partial = finsync("ingest", str(damaged), *flags, env=env, cwd=tmp_path)
    assert partial.returncode == 1
    assert "damaged.csv, line 4: more values than columns" in partial.stderr

    notes = tmp_path / "notes.bin"
    notes.write_bytes(bytes(range(256)))
    unreadable = finsync("ingest", str(notes), env=env, cwd=tmp_path)
    assert unreadable.returncode == 1 and "not a format FinSync reads" in unreadable.stderr

    assert finsync("ingest", str(tmp_path / "missing.csv"), env=env, cwd=tmp_path).returncode == 2
    bad_flag = finsync("ingest", str(lloyds), "--currency", "EURO", env=env, cwd=tmp_path)
    assert bad_flag.returncode == 2 and "ISO 4217" in bad_flag.stderr


def test_sample_ingest_then_ask_on_the_embedded_default(tmp_path: Path):
    env = {"FINSYNC_DATA_DIR": str(tmp_path / "data")}
    out = str(tmp_path / "sample")
    made = finsync("sample", "--out", out, "--end", "2025-06", "--ingest", env=env, cwd=tmp_path)
    assert made.returncode == 0, made.stderr[-2000:]
    sample = SampleSet(
        tmp_path / "sample" / "transactions.csv",
        sorted((tmp_path / "sample" / "statements").glob("*.pdf")),
        [],
    )
    with sample.transactions_csv.open(newline="") as handle:
        rows = sum(1 for _ in csv.DictReader(handle))
    assert f"transactions.csv: finsync-csv: {rows} indexed, 0 skipped, 0 errors" in made.stdout
    for pdf in sample.statement_pdfs:
        statement = read_statement(pdf, "x", StatementValues(), "USD")
        # The statement's rows are already in from transactions.csv: skipped, not doubled.
        rows = len(statement.transactions.rows) if statement.transactions else 0
        expected = f"{len(statement.chunks)} indexed, {rows} skipped, 0 errors"
        assert f"{pdf.name}: statement PDF: {expected}" in made.stdout

    questions = tmp_path / "questions.txt"
    questions.write_text(
        "How much did I spend on groceries in 2024?\n"
        "Show monthly dining spending for the first half of 2025\n"
        "List the five largest card payments in March 2025\n"
        "What is the overdraft fee on my checking account?\n"
    )
    out = answers(
        finsync("ask", "--file", str(questions), "--json", "--as-of", AS_OF, env=env, cwd=tmp_path)
    )
    assert [a["intent"] for a in out] == ["aggregate", "trend", "listing", "text_qa"]
    for answer in out:
        assert set(answer) == {"intent", "answer", "plan", "data", "citations", "timings_ms"}
        assert set(answer["timings_ms"]) >= {"route", "search", "compose"}
        assert answer["citations"] and answer["citations"][0]["n"] == 1

    frame = ref.load(tmp_path / "sample" / "transactions.csv")
    aggregate = ref.aggregate(frame, IntentPlan.model_validate(out[0]["plan"]))
    assert out[0]["data"]["value"] == float(aggregate["value"])
    assert out[0]["data"]["count"] == aggregate["count"]
    trend = ref.trend(frame, IntentPlan.model_validate(out[1]["plan"]))
    assert [(b["period"], b["value"]) for b in out[1]["data"]["series"]] == [
        (p, float(v)) for p, v, _ in trend
    ]
    ids, _ = ref.listing(frame, IntentPlan.model_validate(out[2]["plan"]))
    assert [r["transaction_id"] for r in out[2]["data"]["rows"]] == ids
    assert all(r["account_no"].startswith("***") for r in out[2]["data"]["rows"])
    assert "$35.00" in out[3]["answer"] and out[3]["citations"][0]["kind"] == "statement"
    assert "4402718831" not in json.dumps(out)


def test_sample_end_month_must_be_a_month(tmp_path: Path):
    made = finsync("sample", "--out", str(tmp_path / "s"), "--end", "2025-13", env={}, cwd=tmp_path)
    assert made.returncode == 2 and "not a month written YYYY-MM" in made.stderr
    assert not (tmp_path / "s").exists()


def test_single_question_prints_answer_and_citations(
    tmp_path: Path, embedded_sample: EmbeddedBackend
):
    env = {"FINSYNC_DATA_DIR": str(embedded_sample.path.parent)}
    result = finsync(
        "ask",
        "How much did I spend at Starbucks in 2024?",
        "--user",
        SAMPLE_USER,
        "--as-of",
        AS_OF,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "You spent **$" in result.stdout and "[1]" in result.stdout


def test_bad_as_of_is_a_clear_error(tmp_path: Path):
    result = finsync("ask", "anything", "--as-of", "15/07/2025", env={}, cwd=tmp_path)
    assert result.returncode != 0
    assert "YYYY-MM-DD" in result.stderr


@pytest.mark.elasticsearch
def test_ask_gives_the_same_data_on_both_backends(
    tmp_path: Path, es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend
):
    cases = [
        c
        for c in load_cases()
        if c["previous"] is None and c["as_of"] == AS_OF and c["expect"]["intent"] != "text_qa"
    ]
    questions = tmp_path / "labeled.txt"
    questions.write_text("\n".join(c["question"] for c in cases) + "\n")
    common = ("ask", "--file", str(questions), "--json", "--as-of", AS_OF, "--user", SAMPLE_USER)
    on_embedded = answers(
        finsync(*common, env={"FINSYNC_DATA_DIR": str(embedded_sample.path.parent)}, cwd=tmp_path)
    )
    on_es = answers(
        finsync(
            *common,
            env={
                "FINSYNC_ES_URL": es_sample.url,
                "FINSYNC_TRANSACTIONS_INDEX": es_sample.tx_index,
                "FINSYNC_STATEMENTS_INDEX": es_sample.st_index,
                "FINSYNC_FACTS_INDEX": es_sample.facts_index,  # balances statements state
                "FINSYNC_DATA_DIR": str(tmp_path / "es-data"),
            },
            cwd=tmp_path,
        )
    )
    assert len(on_es) == len(on_embedded) == len(cases)
    for es_answer, embedded_answer in zip(on_es, on_embedded, strict=True):
        assert es_answer["plan"] == embedded_answer["plan"]
        assert es_answer["data"] == embedded_answer["data"], es_answer["plan"]
        assert es_answer["answer"] == embedded_answer["answer"]
    assert {a["intent"] for a in on_es} >= {
        Intent.aggregate.value,
        Intent.trend.value,
        Intent.listing.value,
    }


def test_serve_listens_beyond_this_machine_only_with_sign_in(tmp_path: Path):
    refused = finsync("serve", "--address", "0.0.0.0", env={}, cwd=tmp_path)
    assert refused.returncode == 2
    assert "no sign-in is configured" in refused.stderr
    # A secrets.toml in the working directory is not the project's: it cannot unlock serving.
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text('[auth]\nredirect_uri = "x"\n')
    again = finsync("serve", "--address", "0.0.0.0", env={}, cwd=tmp_path)
    assert again.returncode == 2 and "no sign-in is configured" in again.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("[auth\n")
    unreadable = finsync(
        "serve", "--address", "0.0.0.0", env={"FINSYNC_CONFIG": str(broken)}, cwd=tmp_path
    )
    assert unreadable.returncode == 2 and "cannot be read" in unreadable.stderr
