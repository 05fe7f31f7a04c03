"""What an answer offers next, on the sample in a real SQLite file: two to four next steps fitted
to the answer and worded in its language, each answering exactly what pandas computes; the rows
behind a point of a chart; an answer as text to copy; and the conversation kept across reloads
with the user's data, forgotten with it."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from elastic.chat_store import CHAT_FILE, ChatStore
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.model.plan import GroupBy, Intent
from elastic.model.results import CompareResult
from elastic.statement_store import StatementStore
from elastic.user_ids import storage_key
from llm.answering.copying import copy_text
from llm.answering.next_steps import Point, next_steps, rows_behind_point
from llm.conversation import KeptTurn
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from settings import Settings
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER
from tests.test_sample_days import _check_numbers

AS_OF = date(2025, 7, 15)
FIRST_DAY = date(2024, 1, 1)


@pytest.fixture(scope="module")
def pipeline(embedded_sample: EmbeddedBackend, embedder: LocalEmbedder) -> ChatPipeline:
    return ChatPipeline(embedded_sample, embedder, OfflineRouter)


@pytest.fixture(scope="module")
def frame(sample_set: SampleSet) -> pd.DataFrame:
    return ref.load(sample_set.transactions_csv)


QUESTIONS = {
    "How much did I spend on groceries in 2025?": [
        "By month",
        "By merchant",
        "Compared with last year",
        "Show the transactions",
    ],
    "How much did I spend in 2024 by category?": [
        "By month",
        "By merchant",
        "Show the transactions",
    ],
    "Show monthly dining spending for 2025": [
        "By merchant",
        "Compared with last year",
        "Show the transactions",
    ],
    "List the five largest card payments in March 2025": ["The total", "By category", "By week"],
    "How much did I spend in June 2025 vs May 2025?": [
        "By month",
        "By category",
        "Show the transactions",
    ],
    "What is the closing balance of my Platinum Card?": ["Show the transactions", "By category"],
}


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_each_answer_offers_next_steps_that_answer_exactly(
    pipeline: ChatPipeline, frame: pd.DataFrame, question: str
) -> None:
    answer = pipeline.ask(question, SAMPLE_USER, AS_OF)
    steps = next_steps(answer, FIRST_DAY)
    assert [s.text for s in steps] == QUESTIONS[question]
    assert 2 <= len(steps) <= 4
    for step in steps:
        then = pipeline.ask(step.text, SAMPLE_USER, AS_OF, planned=step.plan, language="en")
        _check_numbers(frame, step.plan, then.result)
        if step.text == "Compared with last year":
            assert isinstance(then.result, CompareResult)
            earlier, now = step.plan.compare
            assert (now.date_from, now.date_to) == (answer.plan.date_from, answer.plan.date_to)
            assert earlier.date_from == date(2024, 1, 1) and earlier.date_to == date(2024, 12, 31)


def test_next_steps_speak_the_answers_language(pipeline: ChatPipeline) -> None:
    german = pipeline.ask("Wie viel habe ich 2025 für Groceries ausgegeben?", SAMPLE_USER, AS_OF)
    assert [s.text for s in next_steps(german, FIRST_DAY)] == [
        "Nach Monat",
        "Nach Händler",
        "Im Vergleich zum Vorjahr",
        "Umsätze anzeigen",
    ]
    then = pipeline.ask(
        "Nach Monat", SAMPLE_USER, AS_OF, planned=next_steps(german)[0].plan, language="de"
    )
    assert then.language == "de" and then.intent is Intent.trend


def test_a_clarification_or_nothing_found_offers_no_next_step(pipeline: ChatPipeline) -> None:
    for question in ("Transfer $500 to savings", "How much did I spend at Zephyr Kites in 2024?"):
        assert next_steps(pipeline.ask(question, SAMPLE_USER, AS_OF), FIRST_DAY) == []


def test_a_year_before_the_data_is_not_offered(pipeline: ChatPipeline) -> None:
    answer = pipeline.ask("How much did I spend on groceries in 2024?", SAMPLE_USER, AS_OF)
    assert "Compared with last year" not in [s.text for s in next_steps(answer, FIRST_DAY)]


def test_a_chart_point_opens_the_rows_behind_it(
    pipeline: ChatPipeline, frame: pd.DataFrame
) -> None:
    trend = pipeline.ask("Show monthly grocery spending for 2024", SAMPLE_USER, AS_OF)
    march = rows_behind_point(trend, Point("2024-03-01"))
    assert march is not None and march.rows_plan is not None
    rows = pipeline.rows_behind(SAMPLE_USER, march)
    want = ref.select(frame, march.rows_plan)
    assert rows.total == len(want) and {r.date.month for r in rows.rows} == {3}
    assert {r.category for r in rows.rows} == {"Groceries"}

    groups = pipeline.ask("How much did I spend in 2024 by category?", SAMPLE_USER, AS_OF)
    assert groups.plan.group_by is GroupBy.category
    dining = rows_behind_point(groups, Point("Dining"))
    assert dining is not None
    count = next(g.count for g in groups.result.groups if g.key == "Dining")
    assert pipeline.rows_behind(SAMPLE_USER, dining).total == count
    assert "Dining" in dining.source

    sides = pipeline.ask("How much did I spend in June 2025 vs May 2025?", SAMPLE_USER, AS_OF)
    june = rows_behind_point(sides, Point("1"))
    assert june is not None and june.rows_plan is not None
    assert (june.rows_plan.date_from, june.rows_plan.date_to) == (
        date(2025, 6, 1),
        date(2025, 6, 30),
    )
    assert rows_behind_point(sides, Point("7")) is None
    assert rows_behind_point(trend, Point("1999-01-01")) is None


def test_an_answer_copies_as_text_and_numbers(pipeline: ChatPipeline) -> None:
    answer = pipeline.ask("How much did I spend in 2024 by category?", SAMPLE_USER, AS_OF)
    text = copy_text(answer)
    assert "**" not in text and "\\$" not in text
    assert "Category\tSum\tTransactions" in text
    dining = next(g for g in answer.result.groups if g.key == "Dining")
    assert f"Dining\t${dining.value:,.2f}\t{dining.count}" in text
    assert "[1] " in text.splitlines()[-1]
    trend = pipeline.ask("Show monthly grocery spending for 2024", SAMPLE_USER, AS_OF)
    rows = [line for line in copy_text(trend).splitlines() if line.count("\t") == 2]
    assert rows[0] == "Period\tUSD\tTransactions" and len(rows) == 13
    assert rows[3].startswith("March 2024\t$")


def test_the_conversation_is_kept_per_user_and_answered_again(
    tmp_path: Path, embedded_sample: EmbeddedBackend, embedder: LocalEmbedder
) -> None:
    chats = ChatStore(tmp_path / "chats")
    pipeline = ChatPipeline(embedded_sample, embedder, OfflineRouter, chats=chats)
    answer = pipeline.ask("How much did I spend on groceries in 2024?", SAMPLE_USER, AS_OF)
    turn = KeptTurn(
        "How much did I spend on groceries in 2024?",
        answer.plan,
        answer.follow_up_basis,
        "en",
        AS_OF,
    )
    failed = KeptTurn("broken", None, None, "en", AS_OF, error="Sorry, something went wrong")
    assert pipeline.keep_conversation(SAMPLE_USER, [turn, failed])
    assert pipeline.kept_conversation(SAMPLE_USER) == [turn, failed]
    assert pipeline.kept_conversation("someone-else") == []
    again = pipeline.answer_again(SAMPLE_USER, turn)
    assert again.text == answer.text and again.follow_up_basis == answer.follow_up_basis

    # Kept with the user's own data: a folder named by the hash of the id, owned by it.
    kept = tmp_path / "chats" / storage_key(SAMPLE_USER) / CHAT_FILE
    assert json.loads(kept.read_text())[0]["question"] == turn.question
    (kept.parent / "OWNER").write_text("someone-else")
    assert pipeline.kept_conversation(SAMPLE_USER) == []
    (kept.parent / "OWNER").write_text(SAMPLE_USER)
    kept.write_text("{not json")
    assert pipeline.kept_conversation(SAMPLE_USER) == []  # damaged: nothing, no crash
    assert pipeline.keep_conversation(SAMPLE_USER, [turn])
    assert pipeline.kept_conversation(SAMPLE_USER) == [turn]


def test_forgetting_everything_forgets_the_conversation(
    tmp_path: Path, embedder: LocalEmbedder, sample_set: SampleSet
) -> None:
    backend = EmbeddedBackend(Settings(data_dir=tmp_path / "data", es_url=None))
    backend.prepare(embedder.dims, embedder.model_name)
    pipeline = ChatPipeline(backend, embedder, OfflineRouter, chats=ChatStore(tmp_path / "chats"))
    turn = KeptTurn("hi", None, None, "en", AS_OF, error="x")
    store = StatementStore(tmp_path / "kept")
    try:
        pipeline.keep_conversation("alice", [turn])
        pipeline.keep_conversation("bob", [turn])
        pipeline.forget("alice", store, ["nothing.csv"])  # one file: the conversation stays
        assert pipeline.kept_conversation("alice") == [turn]
        pipeline.forget("alice", store)
        assert pipeline.kept_conversation("alice") == []
        assert pipeline.kept_conversation("bob") == [turn]
    finally:
        backend.close()
