"""Questions about each terms-page fact are answered from the right account's page, cited."""

from __future__ import annotations

from datetime import date

import pytest

from elastic.es_backend import ElasticsearchBackend
from llm.answer_composer import compose
from llm.embeddings import LocalEmbedder
from llm.intent_plan import Intent, IntentPlan
from llm.intent_router import OfflineRouter
from llm.pipeline import ChatPipeline
from tests.conftest import SAMPLE_USER

pytestmark = pytest.mark.elasticsearch

AS_OF = date(2025, 7, 15)
# (question, account whose page must be cited, words the quoted passage must contain)
FACTS = [
    ("What is the overdraft fee on my checking account?", "Everyday Checking", "$35.00 per item"),
    ("What is the monthly service fee on Everyday Checking?", "Everyday Checking", "$12.00"),
    ("How much is the non-network ATM fee on checking?", "Everyday Checking", "$3.00"),
    ("Is there a foreign transaction fee on my checking account?", "Everyday Checking", "3%"),
    ("Can my savings account be overdrawn?", "High-Yield Savings", "cannot be overdrawn"),
    ("How is interest calculated on my savings account?", "High-Yield Savings", "compounded daily"),
    ("What is the APY on the High-Yield Savings account?", "High-Yield Savings", "4.10%"),
    (
        "What minimum balance avoids the savings monthly service fee?",
        "High-Yield Savings",
        "$300.00",
    ),
    ("What is the grace period on the Platinum Card?", "Platinum Card", "25 days"),
    ("What is the purchase APR on my Platinum Card?", "Platinum Card", "24.99%"),
    ("How is interest calculated on the Platinum Card?", "Platinum Card", "average daily balance"),
    ("What is the foreign transaction fee on my credit card?", "Platinum Card", "3%"),
]


@pytest.fixture(scope="module")
def pipeline(es_sample: ElasticsearchBackend, embedder: LocalEmbedder) -> ChatPipeline:
    return ChatPipeline(es_sample, embedder, OfflineRouter)


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
    es_sample: ElasticsearchBackend, embedder: LocalEmbedder
):
    plan = IntentPlan(
        intent=Intent.text_qa, text="What did the branch manager say about mortgage refinancing?"
    )
    result = es_sample.text_qa(SAMPLE_USER, plan, embedder.embed([plan.text])[0])
    text, citations = compose(plan, result, embedder.embed)
    assert "could not find" in text
    assert citations and all(c.kind == "statement" for c in citations)
