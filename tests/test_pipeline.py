"""The pipeline on a real embedded store: sidebar scope, follow-ups, stages, bad backends."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.errors import BackendUnavailable
from elastic.model.plan import Direction, Intent, IntentPlan, Metric
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
