"""One user never sees another's data, on either backend.

The sample user's own questions are asked again by a user with no data, and every plan they
produced, every citation's rows and every statement id is tried as that user: anything found
is a leak.
"""

from __future__ import annotations

from datetime import date

import pytest

from elastic.backend import SearchBackend
from elastic.model.plan import Intent, IntentPlan
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    ChangesResult,
    ListingResult,
    PeakResult,
    RecurringResult,
    ShareResult,
    TextQAResult,
    TrendResult,
)
from llm.answering.answer import Answer
from llm.embeddings import LocalEmbedder
from llm.executor import execute
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from tests.conftest import SAMPLE_USER
from tests.reliability import record

AS_OF = date(2025, 7, 15)
INTRUDERS = ("intruder", f"{SAMPLE_USER}:", SAMPLE_USER.upper(), f" {SAMPLE_USER}")
"""A stranger, and ids that differ from the owner's only by case, padding or a separator."""


def _questions(backend: SearchBackend) -> list[str]:
    vocabulary = backend.vocabulary(SAMPLE_USER)
    asked = [
        "What is the overdraft fee?",
        "What was my closing balance?",
        "What is my minimum payment due?",
        "List my 10 largest purchases",
        "Show monthly spending for 2024",
        "How much did I spend by category in 2024?",
        # the kinds beyond totals
        "List my recurring payments",
        "Did anything charge me twice?",
        "Any unusual charges?",
        "What was my lowest balance in 2024?",
        "Chart my checking balance in 2025",
        "What % of my spending went to dining in 2024?",
        "What was my savings rate in 2024?",
        "Which month did I spend the most in 2024?",
        "Which categories grew the most between 2024 and 2025?",
        "When did I first pay Netflix?",
        "What's my median grocery bill?",
    ]
    for merchant in vocabulary.merchants[:12]:
        asked += [f"How much did I spend at {merchant}?", f"List transactions at {merchant}"]
    for category in vocabulary.categories[:6]:
        asked.append(f"Show monthly {category} spending for 2024")
    for account in vocabulary.accounts:
        asked.append(f"How much did I spend from {account.account_name} in 2024?")
    return asked


def _found(answer_result: object) -> int:
    """How many of the owner's rows, buckets, pages or facts a result carries."""
    if isinstance(answer_result, AggregateResult):
        return answer_result.count + len(answer_result.groups)
    if isinstance(answer_result, TrendResult):
        return sum(b.count for b in answer_result.series) + len(answer_result.splits)
    if isinstance(answer_result, ListingResult):
        return answer_result.total + len(answer_result.rows)
    if isinstance(answer_result, TextQAResult):
        return len(answer_result.hits) + len(answer_result.facts)
    if isinstance(answer_result, ShareResult):
        return answer_result.part.count + answer_result.whole.count
    if isinstance(answer_result, PeakResult):
        return _found(answer_result.trend)
    if isinstance(answer_result, ChangesResult):
        return len(answer_result.rows) + sum(s.result.count for s in answer_result.sides)
    if isinstance(answer_result, BalanceResult):
        return sum(a.rows + a.stated + len(a.daily) for a in answer_result.accounts)
    if isinstance(answer_result, RecurringResult):
        return len(answer_result.series) + answer_result.rows
    if isinstance(answer_result, AnomalyResult):
        return answer_result.rows + len(answer_result.doubles) + len(answer_result.high)
    return 0


@pytest.fixture(scope="module")
def owner_answers(sample_backend: SearchBackend, embedder: LocalEmbedder) -> list[Answer]:
    pipeline = ChatPipeline(sample_backend, embedder, OfflineRouter)
    answers = [pipeline.ask(q, SAMPLE_USER, AS_OF) for q in _questions(sample_backend)]
    assert sum(_found(a.result) > 0 for a in answers) >= len(answers) * 0.8, "owner sees data"
    return answers


@pytest.mark.reliability
@pytest.mark.parametrize("intruder", INTRUDERS)
def test_another_user_finds_nothing_of_the_owners(
    sample_backend: SearchBackend,
    embedder: LocalEmbedder,
    owner_answers: list[Answer],
    intruder: str,
):
    pipeline = ChatPipeline(sample_backend, embedder, OfflineRouter)
    leaks: list[str] = []
    for answer in owner_answers:
        plan = answer.plan
        if plan.intent is not Intent.clarify:
            vector = pipeline._query_vector(plan) if plan.intent is Intent.text_qa else None
            if _found(execute(sample_backend, intruder, plan, vector)):
                leaks.append(f"plan of {plan.intent.value}")
        for citation in answer.citations:
            if citation.rows_plan is not None and pipeline.rows_behind(intruder, citation).rows:
                leaks.append(f"rows behind [{citation.n}]")
            if citation.statement_id and sample_backend.statement_chunks(
                intruder, citation.statement_id
            ):
                leaks.append(f"pages of {citation.statement_id}")
    for question in {a.plan.text or "" for a in owner_answers} | set(_questions(sample_backend)):
        if question and _found(pipeline.ask(question, intruder, AS_OF).result):
            leaks.append(f"question {question!r}")
    vocabulary = sample_backend.vocabulary(intruder)
    leaks += [f"vocabulary {m}" for m in vocabulary.merchants + vocabulary.categories]
    leaks += [f"statement {s.statement_id}" for s in sample_backend.statements(intruder)]
    leaks += [f"file {f}" for f in sample_backend.source_files(intruder)]
    if sample_backend.recurring(intruder, IntentPlan(intent=Intent.listing, recurring=True)).rows:
        leaks.append("rows read for recurring series")
    # What an import reads of the store: the categories it remembers, the rows it may pair.
    memory = sample_backend.category_memory(intruder)
    leaks += [f"category memory of {m}" for m in {**memory.history, **memory.overrides}]
    every_day = (date(1900, 1, 1), date(2100, 12, 31))
    leaks += [
        f"pair candidate {r.transaction_id}"
        for r in sample_backend.pair_candidates(intruder, *every_day)
    ]

    assert leaks == []
    record(
        "isolation",
        f"user {intruder!r} replays {len(owner_answers)} of the owner's questions, their plans, "
        "citations and statement ids",
        "nothing found",
        backend=sample_backend.name,
        leaks=len(leaks),
    )
