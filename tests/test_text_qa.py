"""Questions about each terms-page fact are answered from the right account's page, cited."""

from __future__ import annotations

from datetime import date

import pytest

from elastic.backend import SearchBackend
from elastic.model.plan import Intent, IntentPlan
from llm.answering.composer import compose
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from tests.conftest import SAMPLE_USER
from tests.terms_facts import FACTS

AS_OF = date(2025, 7, 15)


@pytest.fixture(scope="module")
def pipeline(sample_backend: SearchBackend, embedder: LocalEmbedder) -> ChatPipeline:
    return ChatPipeline(sample_backend, embedder, OfflineRouter)


@pytest.mark.parametrize(("question", "account", "words"), FACTS)
def test_terms_fact_is_quoted_from_the_right_page(
    pipeline: ChatPipeline, question: str, account: str, words: str
):
    answer = pipeline.ask(question, SAMPLE_USER, AS_OF)
    assert answer.intent is Intent.text_qa, answer.plan
    first = answer.citations[0]
    assert first.kind == "statement" and first.page is not None
    hit = next(h for h in answer.result.hits if h.statement_id == first.statement_id)
    assert hit.account_name == account
    assert "Terms and Fees" in hit.text or words in hit.text
    assert words in first.passage, first.passage
    assert "[1]" in answer.text and words in answer.text
    assert "4402718831" not in answer.text and "5412750093614321" not in answer.text


def test_unanswerable_question_says_so_and_offers_sources(
    sample_backend: SearchBackend, embedder: LocalEmbedder
):
    plan = IntentPlan(
        intent=Intent.text_qa, text="What did the branch manager say about mortgage refinancing?"
    )
    result = sample_backend.text_qa(SAMPLE_USER, plan, embedder.embed([plan.text])[0])
    text, citations = compose(plan, result, embedder.embed)
    assert "could not find" in text
    assert citations and all(c.kind == "statement" for c in citations)
