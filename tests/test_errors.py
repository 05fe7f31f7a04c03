"""FinSync's error hierarchy at each boundary: the pipeline lets backend errors through wherever
the backend fails (never a clarification), and the CLI and the app word each kind as what it is:
an outage, an internal error, or a store of other vectors with its fix."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from elastic.backend import SearchBackend
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.errors import (
    BackendError,
    BackendUnavailable,
    EmbeddingMismatch,
    FinSyncError,
    IngestError,
    ModelOutputRejected,
    ModelUnavailable,
    QueryRejected,
)
from elastic.ingest import Importer
from elastic.ingest.landing import ingest_file, read_export
from elastic.ingest.parsed import UnreadableFile
from elastic.model.results import Vocabulary
from llm import services
from llm.answering.gemini_composer import Mismatch
from llm.faults import fault_line
from llm.pipeline import ChatPipeline, Router, TextProbe
from llm.understanding.offline_router import OfflineRouter
from scripts.cli import app
from settings import Settings
from tests.gemini_setup import ZeroEmbedder, gemini_routers, loopback_vertex
from tests.reliability import record
from tests.vertex_loopback import Reply, VertexLoopback

pytestmark = pytest.mark.reliability

USER = "errors-user"
AS_OF = date(2025, 7, 15)
ROWS = (
    "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"
    "2025-03-02,TESCO STORES 2231,-42.10,USD,Groceries,Tesco,12345678,Checking,First Bank\n"
    "2025-03-09,PAYPAL *JOHN DOE,-60.00,USD,Transfers,PayPal,12345678,Checking,First Bank\n"
    "2025-04-11,SHELL 0042,-55.00,USD,Transportation,Shell,12345678,Checking,First Bank\n"
)
OUTAGE = BackendUnavailable("The search backend is not answering; check the local store.")
BUG = QueryRejected("Internal error: the local store rejected FinSync's request.")
MISMATCH = EmbeddingMismatch(
    "store.db holds 384-dimensional vectors from model-a, but the embedder is model-b "
    "(768 dimensions). Run `finsync reembed` to embed the stored pages again with it."
)


class Failing:
    """A real store whose ``method`` raises ``error``; everything else it answers itself."""

    def __init__(self, backend: SearchBackend, method: str, error: BackendError) -> None:
        self._backend, self._method, self._error = backend, method, error

    def __getattr__(self, name: str) -> Any:
        if name != self._method:
            return getattr(self._backend, name)

        def fail(*args: object, **kwargs: object) -> object:
            raise self._error

        return fail


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedBackend:
    data = tmp_path_factory.mktemp("errors")
    csv = data / "transactions.csv"
    csv.write_text(ROWS)
    backend = EmbeddedBackend(Settings(data_dir=data / "store"))
    backend.prepare(ZeroEmbedder.dims, ZeroEmbedder.model_name)
    report = Importer(backend, USER).land(csv)
    assert report.indexed == 3 and not report.problems, report
    return backend


# -- the hierarchy -------------------------------------------------------------------------------
def test_every_kind_is_a_finsync_error_and_keeps_its_older_base() -> None:
    kinds = [BackendUnavailable, QueryRejected, EmbeddingMismatch, UnreadableFile, Mismatch]
    assert all(issubclass(kind, FinSyncError) for kind in kinds)
    assert issubclass(BackendError, RuntimeError) and issubclass(EmbeddingMismatch, RuntimeError)
    assert issubclass(UnreadableFile, IngestError) and issubclass(UnreadableFile, ValueError)
    assert issubclass(Mismatch, ModelOutputRejected) and issubclass(Mismatch, ValueError)
    assert not issubclass(ModelUnavailable, BackendError)  # Gemini down is not a search outage


def test_a_file_that_cannot_be_read_is_an_ingest_error_and_its_rows_are_problems(
    store: EmbeddedBackend, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(IngestError, match="the file is empty"):
        read_export(empty)
    report = ingest_file(store, empty, "someone-else")
    assert [(p.location, p.reason) for p in report.problems] == [("file", "the file is empty")]

    bad_row = tmp_path / "bad-row.csv"
    bad_row.write_text(ROWS.splitlines()[0] + "\n2025-03-02,X,not-an-amount,USD,,,1,A,B\n")
    report = ingest_file(store, bad_row, "someone-else")
    assert [p.location for p in report.problems] == ["line 2"]


# -- the pipeline: an outage is an outage, wherever the backend fails ---------------------------
def offline_routers(vocabulary: Vocabulary, probe: TextProbe) -> Router:
    return OfflineRouter(vocabulary, probe)


@pytest.mark.parametrize("error", [OUTAGE, BUG], ids=["unavailable", "rejected"])
@pytest.mark.parametrize(
    ("method", "question", "stage"),
    [
        ("vocabulary", "How much did I spend on groceries in 2025?", "route"),
        ("aggregate", "How much did I pay John Doe?", "route"),  # the router's text probe
        ("aggregate", "How much did I spend on groceries in 2025?", "search"),
        ("listing", "List my 2 largest payments in 2025", "search"),
        ("trend", "Show my spending per month in 2025", "search"),
        ("text_qa", "What is the overdraft fee on my checking account?", "search"),
    ],
)
def test_the_pipeline_lets_a_backend_error_through(
    store: EmbeddedBackend, error: BackendError, method: str, question: str, stage: str
) -> None:
    stages: list[str] = []
    pipeline = ChatPipeline(Failing(store, method, error), ZeroEmbedder(), offline_routers)

    with pytest.raises(type(error)) as raised:
        pipeline.ask(question, USER, AS_OF, on_stage=stages.append)

    assert raised.value is error and stages[-1] == stage
    record(
        "faults",
        f"backend {type(error).__name__} in {method} ({stage})",
        "raised by the pipeline as it is: never a clarification",
        backend="embedded",
        tracebacks_shown=0,
    )


def test_an_outage_under_a_failed_gemini_router_is_still_an_outage(
    store: EmbeddedBackend, server: VertexLoopback
) -> None:
    """Gemini is down, so the offline router answers; its text probe then meets the outage."""
    gemini = gemini_routers(*loopback_vertex(server, vertex_retries=0))

    server.always(Reply.error(500))
    pipeline = ChatPipeline(Failing(store, "aggregate", OUTAGE), ZeroEmbedder(), gemini)

    with pytest.raises(BackendUnavailable) as raised:
        pipeline.ask("How much did I pay John Doe?", USER, AS_OF)

    assert raised.value is OUTAGE and len(server.calls("generateContent")) == 1


def test_a_failing_vertex_embedder_leaves_keywords_and_a_bug_in_one_surfaces(
    store: EmbeddedBackend, caplog: pytest.LogCaptureFixture
) -> None:
    class Embedder(ZeroEmbedder):
        def __init__(self, error: Exception) -> None:
            self.error = error

        def embed(self, texts: list[str]) -> np.ndarray:
            raise self.error

    question = "What is the overdraft fee on my checking account?"
    down = ModelUnavailable("embedding texts: ConnectError: [Errno 111] Connection refused")
    with caplog.at_level(logging.WARNING, logger="llm.pipeline"):
        answer = ChatPipeline(store, Embedder(down), offline_routers).ask(question, USER, AS_OF)
    assert answer.result.keyword_only
    assert "searching by keywords only" in caplog.text and "Connection refused" in caplog.text

    with pytest.raises(AttributeError):
        broken = Embedder(AttributeError("'NoneType' object has no attribute 'embed_content'"))
        ChatPipeline(store, broken, offline_routers).ask(question, USER, AS_OF)


# -- what a person sees --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("error", "shown", "todo_kept"),
    [
        (OUTAGE, "(The search backend is not answering; check the local store). ", True),
        (BUG, "(Internal error: the local store rejected FinSync's request). ", True),
        (
            ModelOutputRejected("not a valid plan: 1 error(s)"),
            "(Internal error: the language model's output could not be used (not a valid "
            "plan: 1 error(s)))",
            True,
        ),
        (
            ModelUnavailable("writing the answer: ServerError: 503 UNAVAILABLE"),
            "(The language model is not answering (writing the answer: ServerError: 503 ",
            True,
        ),
        (
            MISMATCH,
            "(the stored vectors were made by another embedding model). store.db holds "
            "384-dimensional vectors from model-a, but the embedder is model-b (768 dimensions)."
            " Run `finsync reembed` to embed the stored pages again with it.",
            False,
        ),
        (UnreadableFile("the file is empty"), "(the file is empty). ", True),
        (TypeError("secret /home/alice/path"), "(an unexpected TypeError). ", True),
    ],
    ids=["unavailable", "rejected", "model-rejected", "model-down", "mismatch", "file", "bug"],
)
def test_the_app_words_each_kind(error: Exception, shown: str, todo_kept: bool) -> None:
    line = fault_line("Sorry, something went wrong while answering", error, "Try again.")

    assert line.startswith("Sorry, something went wrong while answering " + shown)
    assert line.endswith("Try again.") is todo_kept
    assert "\n" not in line and "/home/alice" not in line
    record(
        "faults",
        f"the app shows a {type(error).__name__}",
        f"one line: {shown.strip('(). ')[:60]!r}",
        tracebacks_shown=0,
    )


class Asking:
    """What ``finsync ask`` needs of a pipeline: answers that fail with ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.asked: list[str] = []
        self.backend = self

    def ask(self, question: str, *args: object, **kwargs: object) -> object:
        self.asked.append(question)
        raise self.error

    def close(self) -> None:
        return None


def ask_cli(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, build: Callable[[Settings], object]
) -> Any:
    monkeypatch.setattr(services, "build_pipeline", build)
    questions = tmp_path / "questions.txt"
    questions.write_text("How much did I spend?\nList my largest payments\n")
    return CliRunner().invoke(app, ["ask", "--file", str(questions), "--json"])


@pytest.mark.parametrize(
    ("error", "message", "asked"),
    [
        (OUTAGE, str(OUTAGE), 1),  # the rest would meet the same outage
        (BUG, str(BUG), 2),
        (
            ModelOutputRejected("not a valid plan"),
            "Internal error: the language model's output could not be used (not a valid plan)",
            2,
        ),
        (MISMATCH, str(MISMATCH), 2),
    ],
    ids=["unavailable", "rejected", "model-rejected", "mismatch"],
)
def test_finsync_ask_words_each_kind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, error: Exception, message: str, asked: int
) -> None:
    pipeline = Asking(error)

    result = ask_cli(monkeypatch, tmp_path, lambda settings: pipeline)

    assert result.exit_code == 1 and "Traceback" not in result.output
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["error"] for a in answers] == [message, message]
    assert len(pipeline.asked) == asked
    record(
        "faults",
        f"finsync ask meets a {type(error).__name__}",
        "one JSON error per question, exit 1" + (", the rest not asked" if asked == 1 else ""),
        tracebacks_shown=0,
    )


def test_finsync_ask_on_a_store_of_other_vectors_names_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def build(settings: Settings) -> object:
        raise MISMATCH

    result = ask_cli(monkeypatch, tmp_path, build)

    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"error: {MISMATCH}\n"
