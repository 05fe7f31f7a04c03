"""The pipeline on a real embedded store: sidebar scope, follow-ups, stages, bad backends."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import date

import pandas as pd
import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.errors import BackendUnavailable
from elastic.model.plan import Direction, Intent, IntentPlan, Metric
from llm.answering.answer import Answer, Prose
from llm.answering.composer import compose
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline, Scope
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER

AS_OF = date(2025, 7, 15)


@pytest.fixture(scope="module")
def pipeline(embedded_sample: EmbeddedBackend, embedder: LocalEmbedder) -> ChatPipeline:
    return ChatPipeline(embedded_sample, embedder, OfflineRouter)


@pytest.fixture(scope="module")
def frame(sample_set: SampleSet) -> pd.DataFrame:
    return ref.load(sample_set.transactions_csv)


def test_scope_narrows_every_question(pipeline: ChatPipeline, frame: pd.DataFrame):
    scope = Scope(accounts=("Platinum Card",), date_from=date(2025, 1, 1))
    answer = pipeline.ask("How much did I spend on dining?", SAMPLE_USER, AS_OF, scope=scope)
    assert answer.plan.accounts == ["Platinum Card"]
    assert answer.plan.date_from == date(2025, 1, 1)
    assert answer.result.value == ref.aggregate(frame, answer.plan)["value"]


def test_question_outside_the_scope_is_explained_not_widened(pipeline: ChatPipeline):
    scope = Scope(accounts=("Platinum Card",))
    answer = pipeline.ask("How much did I spend from checking?", SAMPLE_USER, AS_OF, scope=scope)
    assert answer.intent is Intent.clarify
    assert "Everyday Checking is outside the accounts selected" in answer.text
    dated = Scope(date_from=date(2025, 1, 1))
    answer = pipeline.ask("How much did I spend in March 2024?", SAMPLE_USER, AS_OF, scope=dated)
    assert answer.intent is Intent.clarify and "date range" in answer.text


def test_stages_are_announced_in_order(pipeline: ChatPipeline):
    heard: list[str] = []
    pipeline.ask("List my 3 largest purchases", SAMPLE_USER, AS_OF, on_stage=heard.append)
    assert heard == ["route", "search", "compose"]


def test_follow_up_reuses_the_previous_plan(pipeline: ChatPipeline, frame: pd.DataFrame):
    first = pipeline.ask("How much did I spend on groceries in 2024?", SAMPLE_USER, AS_OF)
    second = pipeline.ask("and in March 2025?", SAMPLE_USER, AS_OF, previous=first.plan)
    assert second.plan.categories == ["Groceries"]
    assert (second.plan.date_from, second.plan.date_to) == (date(2025, 3, 1), date(2025, 3, 31))
    assert second.result.value == ref.aggregate(frame, second.plan)["value"]
    rows = pipeline.ask("show me those transactions", SAMPLE_USER, AS_OF, previous=second.plan)
    assert rows.intent is Intent.listing
    assert rows.result.total == second.result.count


def test_rows_behind_a_number_are_exactly_its_rows(pipeline: ChatPipeline):
    answer = pipeline.ask("How much did I spend at Starbucks in 2024?", SAMPLE_USER, AS_OF)
    citation = answer.citations[0]
    assert citation.kind == "transactions"
    rows, after = [], None
    while True:
        page = pipeline.rows_behind(SAMPLE_USER, citation, after)
        rows += page.rows
        if page.next_after is None:
            break
        after = page.next_after
    assert len(rows) == answer.result.count
    assert -sum(r.amount for r in rows) == answer.result.value


def test_unreachable_elasticsearch_is_a_clear_answer(embedder: LocalEmbedder):
    from elastic.engines.elasticsearch.backend import ElasticsearchBackend
    from settings import Settings

    backend = ElasticsearchBackend(Settings(es_url="http://127.0.0.1:9", es_timeout_s=1))
    pipeline = ChatPipeline(backend, embedder, OfflineRouter)
    # An outage, not a clarification: nothing is wrong with the question.
    with pytest.raises(BackendUnavailable, match=r"not answering; check .*127\.0\.0\.1:9"):
        pipeline.ask("How much did I spend?", "u", AS_OF)


def test_a_question_whose_dates_cannot_hold_is_clarified(pipeline: ChatPipeline):
    answer = pipeline.ask("List transactions after today", SAMPLE_USER, AS_OF)
    assert answer.intent is Intent.clarify
    assert "in the future" in answer.text


def test_count_trends_are_counted_not_priced(embedded_sample: EmbeddedBackend, frame: pd.DataFrame):
    plan = IntentPlan(
        intent=Intent.trend,
        metric=Metric.count,
        direction=Direction.any,
        date_from=date(2025, 1, 1),
        date_to=date(2025, 6, 30),
    )
    text, _ = compose(plan, embedded_sample.trend(SAMPLE_USER, plan))
    total = sum(count for _, _, count in ref.trend(frame, plan))
    assert f"**{total:,} transactions**" in text and "$" not in text


def test_a_failing_embedder_still_quotes_a_passage(embedded_sample: EmbeddedBackend):
    class Broken:
        model_name, dims = "broken", 384

        def embed(self, texts: list[str]):
            raise ConnectionError("Vertex AI is unreachable")

    pipeline = ChatPipeline(embedded_sample, Broken(), OfflineRouter)
    answer = pipeline.ask("What is the overdraft fee on my checking account?", SAMPLE_USER, AS_OF)
    assert answer.result.keyword_only
    assert "$35.00" in answer.text and answer.citations[0].kind == "statement"


def test_scope_narrows_every_side_of_a_comparison(pipeline: ChatPipeline, frame: pd.DataFrame):
    scope = Scope(accounts=("Platinum Card",), date_from=date(2025, 2, 1))
    answer = pipeline.ask(
        "Did I spend more on dining in Q1 2025 or Q2 2025?", SAMPLE_USER, AS_OF, scope=scope
    )
    assert answer.plan.accounts == ["Platinum Card"]
    first, second = answer.plan.compare
    assert (first.date_from, first.date_to) == (date(2025, 2, 1), date(2025, 3, 31))
    assert (second.date_from, second.date_to) == (date(2025, 4, 1), date(2025, 6, 30))
    expected = ref.compare(frame, answer.plan)
    assert [s.result.value for s in answer.result.sides] == [s["value"] for s in expected["sides"]]


def test_a_side_outside_the_scope_is_explained(pipeline: ChatPipeline):
    scope = Scope(date_from=date(2025, 1, 1))
    answer = pipeline.ask(
        "Did I spend more on dining in Q4 2024 or Q1 2025?", SAMPLE_USER, AS_OF, scope=scope
    )
    assert answer.intent is Intent.clarify and "date range" in answer.text


class _Streamed:
    """A composer that writes its wording in pieces, as Gemini's does."""

    def __init__(self, answer: Answer, pieces: list[str]) -> None:
        self.answer = answer
        self._pieces = pieces

    def __iter__(self) -> Iterator[str]:
        yield from self._pieces
        text = "".join(self._pieces)
        self.answer = replace(self.answer, text=text, parts=[Prose(text)])


class _Writer:
    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces

    def compose(self, question: str, answer: Answer) -> Answer:
        text = "".join(self.pieces)
        return replace(answer, text=text, parts=[Prose(text)])

    def stream(self, question: str, answer: Answer) -> _Streamed:
        return _Streamed(answer, self.pieces)


def test_the_writing_stage_hands_its_pieces_to_the_page(
    embedded_sample: EmbeddedBackend, embedder: LocalEmbedder
):
    pieces = ["Groceries cost ", "a lot [1]."]
    pipeline = ChatPipeline(embedded_sample, embedder, OfflineRouter, _Writer(pieces))
    computed = pipeline.ask(
        "How much did I spend on groceries in 2024?", SAMPLE_USER, AS_OF, rewrite=False
    )
    assert pipeline.rewrites(computed) and computed.text.startswith("You spent")
    heard: list[str] = []
    written = pipeline.write("How much…?", computed, heard.append)
    assert heard == pieces
    assert written.text == "Groceries cost a lot [1]." and written.parts == [Prose(written.text)]
    assert set(written.timings_ms) == {"route", "search", "compose", "write"}
    clarified = pipeline.ask("asdf qwerty", SAMPLE_USER, AS_OF, rewrite=False)
    assert not pipeline.rewrites(clarified)
    assert pipeline.write("asdf qwerty", clarified, heard.append) is clarified
    assert heard == pieces


def test_what_the_pages_browse_is_the_users_own(pipeline: ChatPipeline):
    (statement, *_) = pipeline.statements(SAMPLE_USER)
    pages = pipeline.statement_pages(SAMPLE_USER, statement.statement_id)
    assert {page.statement_id for page in pages} == {statement.statement_id}
    plan = IntentPlan(intent=Intent.listing, limit=5)
    first = pipeline.transactions(SAMPLE_USER, plan)
    assert len(first.rows) == 5 and first.next_after is not None
    second = pipeline.transactions(SAMPLE_USER, plan, first.next_after)
    assert not {r.transaction_id for r in first.rows} & {r.transaction_id for r in second.rows}
    assert pipeline.source_files(SAMPLE_USER) and pipeline.vocabulary(SAMPLE_USER).accounts
    intruder = "someone-else"
    assert pipeline.statements(intruder) == [] and pipeline.source_files(intruder) == []
    assert pipeline.statement_pages(intruder, statement.statement_id) == []
    assert pipeline.transactions(intruder, plan).rows == []
    with pytest.raises(ValueError, match="listing plan"):
        pipeline.transactions(SAMPLE_USER, IntentPlan(intent=Intent.aggregate))
