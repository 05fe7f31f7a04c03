"""The JSON API and the MCP server, driven for real: ``finsync api`` and ``finsync mcp`` run as
subprocesses over the sample set on each backend, and are talked to over loopback with httpx
and the MCP SDK's stdio client. A token's answer is the CLI's answer; another token's user
reaches none of it."""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from PIL import Image

from api.tokens import TokenStore
from elastic.model.plan import IntentPlan
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from settings import Settings
from tests import pandas_reference as ref
from tests.api_server import ApiServer, start_api, store_env
from tests.conftest import SAMPLE_USER, empty_backend, ingest_sample
from tests.reliability import record
from tests.test_cli import finsync

AS_OF = "2025-07-15"
INTRUDER = "intruder"
CONVERSATION = [
    "How much did I spend on groceries in 2024?",
    "and in 2025?",
    "Show monthly dining spending for the first half of 2025",
    "List the five largest card payments in March 2025",
    "What is the overdraft fee on my checking account?",
    "What was my closing balance?",
]


@dataclass
class Served:
    """``finsync api`` over the sample set of one backend."""

    kind: str
    server: ApiServer
    env: dict[str, str]
    data_dir: Path
    tokens: TokenStore

    @property
    def url(self) -> str:
        return self.server.url

    def token(self, user_id: str) -> dict[str, str]:
        """The headers of a new token of ``user_id`` (each test its own: the rate is per token)."""
        return {"Authorization": f"Bearer {self.tokens.create(user_id)[1]}"}


@pytest.fixture(scope="module", params=["embedded", "elasticsearch"])
def served(
    request: pytest.FixtureRequest,
    sample_set: SampleSet,
    embedder: LocalEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Served]:
    kind = request.param
    data_dir = tmp_path_factory.mktemp(f"api-{kind}") / "data"
    with empty_backend(kind, request, data_dir, embedder) as backend:
        store = StatementStore(Settings(data_dir=data_dir).statements_dir)
        tx, st = ingest_sample(backend, sample_set, embedder, store)
        assert not tx.problems and not st.problems
        env = store_env(data_dir, backend, FINSYNC_API_REQUESTS_PER_MINUTE="600")
        server = start_api(env, data_dir.parent, f"api-{kind}.log")
        try:
            yield Served(kind, server, env, data_dir, TokenStore(data_dir / "api-tokens.sqlite3"))
        finally:
            server.stop()


def _ask(served: Served, headers: dict[str, str], question: str, **body: Any) -> httpx.Response:
    return httpx.post(
        f"{served.url}/query",
        json={"question": question, "as_of": AS_OF, **body},
        headers=headers,
        timeout=120,
    )


def _without_timings(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k not in ("timings_ms", "conversation_id")}


def _conversation(served: Served, headers: dict[str, str]) -> list[dict[str, Any]]:
    """The questions of ``CONVERSATION`` asked in one conversation, each answer checked 200."""
    answers, conversation = [], None
    for question in CONVERSATION:
        extra = {"conversation_id": conversation} if conversation else {}
        response = _ask(served, headers, question, **extra)
        assert response.status_code == 200, response.text
        answers.append(response.json())
        conversation = answers[-1]["conversation_id"]
    return answers


def test_a_token_gets_exactly_the_cli_answer(served: Served, tmp_path: Path):
    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(CONVERSATION) + "\n")
    cli = finsync(
        "ask", "--file", str(questions), "--json", "--as-of", AS_OF, "--user", SAMPLE_USER,
        env=served.env, cwd=tmp_path,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr[-2000:]
    expected = [json.loads(line) for line in cli.stdout.splitlines() if line.strip()]

    answers = _conversation(served, served.token(SAMPLE_USER))

    for question, answer, printed in zip(CONVERSATION, answers, expected, strict=True):
        differ = {k for k in printed if k != "timings_ms" and answer[k] != printed[k]}
        assert not differ, (question, {k: (answer[k], printed[k]) for k in differ})
    assert len({a["conversation_id"] for a in answers}) == 1
    assert set(answers[0]["timings_ms"]) >= {"route", "search", "compose"}
    # The follow-up continued the conversation: the same question about 2025.
    first, follow_up = (IntentPlan.model_validate(a["plan"]) for a in answers[:2])
    assert first.categories == follow_up.categories == ["Groceries"]
    assert (first.date_from.year, follow_up.date_from.year) == (2024, 2025)
    assert [a["intent"] for a in answers] == [
        "aggregate", "aggregate", "trend", "listing", "text_qa", "text_qa",
    ]  # fmt: skip


def test_filters_narrow_the_question_as_the_sidebar_does(served: Served, sample_set: SampleSet):
    headers = served.token(SAMPLE_USER)
    question = "How much did I spend in 2024?"
    everything = _ask(served, headers, question).json()
    filters = {"accounts": ["Platinum Card"], "date_from": "2024-03-01", "date_to": "2024-05-31"}
    narrowed = _ask(served, headers, question, filters=filters).json()

    plan = IntentPlan.model_validate(narrowed["plan"])
    assert plan.accounts == ["Platinum Card"]
    assert (plan.date_from.isoformat(), plan.date_to.isoformat()) == ("2024-03-01", "2024-05-31")
    truth = ref.aggregate(ref.load(sample_set.transactions_csv), plan)
    assert narrowed["data"]["value"] == float(truth["value"])
    assert narrowed["data"]["count"] == truth["count"] < everything["data"]["count"]


def _holds_nothing(answer: dict[str, Any]) -> bool:
    """Whether an answer carries none of anyone's rows, buckets, passages or facts."""
    data = answer["data"]
    counted = data.get("count", 0) + sum(b.get("count", 0) for b in data.get("series", []))
    found = len(data.get("rows", [])) + len(data.get("hits", [])) + len(data.get("facts", []))
    return counted == 0 and found == 0 and data.get("total", 0) == 0


@pytest.mark.reliability
def test_another_tokens_user_reaches_none_of_it(served: Served):
    owner, intruder = served.token(SAMPLE_USER), served.token(INTRUDER)
    owned = httpx.get(f"{served.url}/sources", headers=owner, timeout=60).json()["sources"]
    statement = next(s for s in owned if s["kind"] == "statement")
    statement_id = statement["statements"][0]["statement_id"]
    owner_answers = _conversation(served, owner)
    assert not any(_holds_nothing(a) for a in owner_answers if a["intent"] != "clarify")

    leaks: list[str] = []
    for question in CONVERSATION:
        for params in ({}, {"user": SAMPLE_USER}):  # a query string names no one
            answer = httpx.post(
                f"{served.url}/query",
                params=params,
                json={"question": question, "as_of": AS_OF},
                headers=intruder,
                timeout=120,
            ).json()
            if not _holds_nothing(answer) or statement_id in json.dumps(answer):
                leaks.append(f"{question} {params}: {answer['answer'][:80]}")
    named = _ask(served, intruder, CONVERSATION[0], user=SAMPLE_USER)
    theirs = owner_answers[0]["conversation_id"]
    continued = _ask(served, intruder, "and in 2025?", conversation_id=theirs)
    page = f"{served.url}/statements/{statement_id}/pages/1"
    their_page = httpx.get(page, headers=intruder, timeout=60)
    own_page = httpx.get(page, headers=owner, timeout=60)
    deleted = httpx.delete(f"{served.url}/sources/{statement['file']}", headers=intruder)

    assert not leaks, leaks
    assert named.status_code == 422 and "token" in named.json()["detail"]
    assert continued.status_code == 404
    assert their_page.status_code == 404 and their_page.headers["content-type"].startswith(
        "application/json"
    )
    assert own_page.status_code == 200 and own_page.headers["content-type"] == "image/png"
    with Image.open(io.BytesIO(own_page.content)) as image:
        assert image.format == "PNG" and image.width > 500
    assert deleted.status_code == 404
    for other in ("sources", "accounts"):
        assert httpx.get(f"{served.url}/{other}", headers=intruder).json()[other] == []
    assert httpx.get(f"{served.url}/sources", headers=owner).json()["sources"] == owned
    record(
        "API",
        "another user's token: questions, ?user=, a user field, a conversation id, a page, "
        "a delete",
        "none of the owner's data reached; 422 for the field, 404 for the rest",
        backend=served.kind,
        leaks=len(leaks),
    )


def _big_export(path: Path, rows: int) -> Path:
    """FinSync's own CSV of ``rows`` transactions, for an import that takes a few seconds."""
    lines = ["date,description,amount,currency,category,merchant,account_no,account_name,bank_name"]
    for n in range(rows):
        day = f"2023-{n % 12 + 1:02d}-{n % 28 + 1:02d}"
        lines.append(
            f"{day},KITE SHOP {n},-{n % 500 + 1}.{n % 100:02d},USD,Hobbies,Kite Shop,"
            "5500112233,Kite Card,Test Bank"
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_import_runs_in_the_background_with_progress_and_its_report(
    served: Served, sample_set: SampleSet, tmp_path: Path
):
    importer, intruder = served.token("importer"), served.token(INTRUDER)
    big = _big_export(tmp_path / "kites.csv", 60_000)
    lloyds = sample_set.exports[0].parent / "lloyds_current.csv"
    notes = tmp_path / "notes.bin"
    notes.write_bytes(bytes(range(256)))
    pdf = sample_set.statement_pdfs[0]
    files = [
        ("files", (p.name, p.read_bytes(), "application/octet-stream"))
        for p in (big, lloyds, notes, pdf)
    ]
    form = {"bank": "Lloyds Bank", "currency": "gbp", "account_name": "Lloyds Current"}
    started = httpx.post(
        f"{served.url}/ingest", files=files, data=form, headers=importer, timeout=120
    )
    again = httpx.post(
        f"{served.url}/ingest", files=files[:1], data=form, headers=importer, timeout=120
    )
    assert started.status_code == 202, started.text
    job = started.json()["job"]
    assert started.headers["location"] == f"/ingest/{job}"
    assert again.status_code == 409 and "still running" in again.json()["detail"]

    views = [started.json()]
    deadline = time.monotonic() + 300
    while views[-1]["state"] != "finished" and time.monotonic() < deadline:
        time.sleep(0.2)
        views.append(httpx.get(f"{served.url}/ingest/{job}", headers=importer).json())
    assert views[-1]["state"] == "finished", views[-1]
    assert all(v["rows_done"] <= v["rows_total"] or not v["rows_total"] for v in views)
    assert [v["files_done"] for v in views] == sorted(v["files_done"] for v in views)
    progress = [v["progress"] for v in views]
    assert progress == sorted(progress) and progress[-1] == 1.0
    assert any(0 < v["rows_done"] < v["rows_total"] for v in views), "progress within a file"

    reports = {r["source"]: r for r in views[-1]["reports"]}
    assert views[-1]["failure"] is None
    assert list(reports) == ["kites.csv", lloyds.name, "notes.bin", pdf.name]
    assert reports["kites.csv"]["indexed"] == 60_000 and not reports["kites.csv"]["problems"]
    assert reports[lloyds.name]["summary"] == "21 indexed, 0 skipped, 0 errors"
    assert reports[lloyds.name]["format"] == "bank-csv (Lloyds (UK))"
    assert reports["notes.bin"]["format"] == "unreadable"
    assert "not a format FinSync reads" in reports["notes.bin"]["problems"][0]["reason"]
    assert reports[pdf.name]["format"] == "statement PDF" and reports[pdf.name]["indexed"] > 0
    assert httpx.get(f"{served.url}/ingest/{job}", headers=intruder).status_code == 404

    sources = httpx.get(f"{served.url}/sources", headers=importer).json()["sources"]
    assert {"kites.csv", lloyds.name} <= {s["file"] for s in sources}
    assert [s["kind"] for s in sources].count("statement") == 1
    spent = _ask(served, importer, "How much did I spend at Kite Shop in 2023?").json()
    assert spent["data"]["count"] == 60_000
    forgot = httpx.delete(f"{served.url}/sources/kites.csv", headers=importer, timeout=300)
    assert forgot.status_code == 200 and forgot.json()["documents"] >= 60_000
    after = _ask(served, importer, "How much did I spend at Kite Shop in 2023?").json()
    assert after["data"].get("count", 0) == 0


async def _mcp_session(
    env: dict[str, str], cwd: Path, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[set[str], list[Any]]:
    """``finsync mcp`` started by the SDK's stdio client: its tools, and each call's result;
    each ``ask`` continues the conversation of the one before."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "scripts.cli", "mcp"], env=env, cwd=str(cwd)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        results, conversation = [], None
        for name, arguments in calls:
            if name == "ask" and conversation is not None:
                arguments = {**arguments, "conversation_id": conversation}
            result = await session.call_tool(name, arguments)
            if name == "ask" and not result.is_error:
                conversation = result.structured_content["conversation_id"]
            results.append(result)
        return tools, results


def test_an_mcp_client_asks_as_the_tokens_user(served: Served, tmp_path: Path):
    owner = served.tokens.create(SAMPLE_USER, "assistant")[1]
    env = served.env | {"FINSYNC_API_TOKEN": owner}
    calls = [
        ("ask", {"question": CONVERSATION[0], "as_of": AS_OF}),
        ("ask", {"question": CONVERSATION[1], "as_of": AS_OF}),
        ("ask", {"question": "x", "as_of": "2025-02-30"}),
        ("list_accounts", {}),
        ("list_sources", {}),
    ]
    tools, results = anyio.run(_mcp_session, env, tmp_path, calls)

    assert tools == {"ask", "list_accounts", "list_sources"}
    http = served.token(SAMPLE_USER)
    over_http = _conversation(served, http)[:2]
    asked = [r.structured_content for r in results[:2]]
    assert [_without_timings(a) for a in asked] == [_without_timings(a) for a in over_http]
    assert asked[0]["conversation_id"] == asked[1]["conversation_id"]
    assert results[2].is_error and "not a date" in results[2].content[0].text
    accounts = httpx.get(f"{served.url}/accounts", headers=http).json()
    assert results[3].structured_content == accounts and len(accounts["accounts"]) == 3
    assert all(a["account_no"].startswith("***") for a in accounts["accounts"])
    sources = httpx.get(f"{served.url}/sources", headers=http).json()
    assert results[4].structured_content == sources

    stranger = served.env | {"FINSYNC_API_TOKEN": served.tokens.create(INTRUDER)[1]}
    _, theirs = anyio.run(
        _mcp_session, stranger, tmp_path, [("ask", {"question": CONVERSATION[0], "as_of": AS_OF})]
    )
    assert _holds_nothing(theirs[0].structured_content)
