"""A demo on any day: the sample generated for other end months (today's default among them)
gives a first screen whose every example question and overview tile answers, non-empty and
exactly as pandas computes it from the sample CSV; the English examples also mean their plans
when typed, and every language offers the same plans."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest import Importer
from elastic.ingest.landing import ingest_file
from elastic.model.plan import Intent, IntentPlan
from elastic.model.results import (
    AggregateResult,
    CompareResult,
    ListingResult,
    TextQAResult,
    TrendResult,
)
from elastic.statement_store import StatementStore
from llm.answering.wording import money
from llm.embeddings import LocalEmbedder
from llm.first_screen import FirstScreen
from llm.pipeline import ChatPipeline
from llm.planned import PlannedQuestion
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import generate_sample, last_full_month
from settings import Settings
from tests import pandas_reference as ref

USER = "demo"
TODAY = date.today()
# (the sample's last month, the day the demo is run): today's default sample on its day, and a
# February sample a few days into March (a short month, a quarter that has not ended).
DAYS = [
    (last_full_month(TODAY), TODAY),
    (date(2026, 2, 1), date(2026, 3, 9)),
]
ROUTED_FIELDS = (
    "intent",
    "date_from",
    "date_to",
    "categories",
    "merchants",
    "accounts",
    "direction",
    "group_by",
    "top",
    "sort",
    "limit",
    "interval",
    "compare",
    "facts",
)


@pytest.fixture(scope="module", params=DAYS, ids=lambda day: f"{day[0]:%Y-%m}")
def demo(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    embedder: LocalEmbedder,
) -> Iterator[tuple[ChatPipeline, pd.DataFrame, date]]:
    end, as_of = request.param
    folder = tmp_path_factory.mktemp(f"sample-{end:%Y-%m}")
    sample = generate_sample(folder / "sample", seed=7, end=end)
    backend = EmbeddedBackend(Settings(data_dir=folder / "data", es_url=None))
    backend.prepare(embedder.dims, embedder.model_name)
    assert not ingest_file(backend, sample.transactions_csv, USER).problems
    store = StatementStore(folder / "data" / "statements")
    assert not Importer(backend, USER, embedder, store).land_all(sample.statement_pdfs).problems
    try:
        yield (
            ChatPipeline(backend, embedder, OfflineRouter),
            ref.load(sample.transactions_csv),
            as_of,
        )
    finally:
        backend.close()


def _check_numbers(frame: pd.DataFrame, plan: IntentPlan, result: object) -> None:
    """``result`` is what pandas computes for ``plan`` on the sample CSV, and not empty."""
    if isinstance(result, CompareResult):
        want = ref.compare(frame, plan)
        assert [s.result.value for s in result.sides] == [s["value"] for s in want["sides"]]
        assert result.difference == want["difference"]
        assert any(s.result.count for s in result.sides)
    elif isinstance(result, AggregateResult):
        want = ref.figure(frame, plan)
        assert (result.value, result.count) == (want["value"], want["count"]), plan
        assert [(g.key, g.value, g.count) for g in result.groups] == want["groups"], plan
        assert result.count > 0
    elif isinstance(result, TrendResult):
        series = [(b.period.isoformat(), b.value, b.count) for b in result.series]
        assert series == ref.trend(frame, plan), plan
        assert sum(b.count for b in result.series) > 0
    elif isinstance(result, ListingResult):
        ids, total = ref.listing(frame, plan)
        assert [r.transaction_id for r in result.rows] == ids and result.total == total
        assert result.rows
    else:
        raise AssertionError(f"unexpected result {result!r}")


def _screen(pipeline: ChatPipeline, as_of: date, language: str = "en") -> FirstScreen:
    return pipeline.first_screen(USER, as_of, language)


def _answered(pipeline: ChatPipeline, asked: PlannedQuestion, as_of: date) -> object:
    answer = pipeline.ask(
        asked.text, USER, as_of, planned=asked.plan, language=asked.language, rewrite=False
    )
    assert answer.intent is asked.plan.intent and answer.text.strip()
    # Its first line gives the figure: no "I found nothing" (the line of what was left out may
    # say "nothing" was).
    first = answer.text.strip().splitlines()[0]
    assert "I found no" not in first and "nothing" not in first, answer.text
    return answer.result


def test_every_example_answers_exactly(demo: tuple[ChatPipeline, pd.DataFrame, date]) -> None:
    pipeline, frame, as_of = demo
    examples = _screen(pipeline, as_of).examples
    assert len(examples) == 4
    kinds = [e.plan.intent for e in examples]
    assert kinds == [Intent.aggregate, Intent.trend, Intent.listing, Intent.aggregate]
    for example in examples:
        _check_numbers(frame, example.plan, _answered(pipeline, example, as_of))


def test_the_examples_cover_the_newest_full_quarter_and_month(
    demo: tuple[ChatPipeline, pd.DataFrame, date],
) -> None:
    pipeline, frame, as_of = demo
    newest = max(frame["day"])
    category, monthly, largest, merchant = _screen(pipeline, as_of).examples
    quarter_end = category.plan.date_to
    assert quarter_end is not None and quarter_end <= newest
    assert newest - quarter_end < timedelta(days=92)  # no later quarter is complete
    assert (category.plan.date_to - category.plan.date_from).days in range(89, 92)
    assert largest.plan.date_to == newest  # the sample's last month ends on its last day
    spent = frame[frame["cents"] < 0]
    assert category.plan.categories[0] in set(spent["category"]) - {"Transfers"}
    assert monthly.plan.categories[0] != category.plan.categories[0]
    assert merchant.plan.merchants[0] in set(spent["merchant"])


def test_the_english_examples_mean_their_plans(
    demo: tuple[ChatPipeline, pd.DataFrame, date],
) -> None:
    """Typed into the chat, an example is routed to the plan its button asks."""
    pipeline, _, as_of = demo
    router = pipeline.router_for(USER)
    screen = _screen(pipeline, as_of)
    for asked in [*screen.examples, *(tile.question for tile in screen.tiles)]:
        routed = router.route(asked.text, as_of)
        assert routed.model_dump(include=set(ROUTED_FIELDS)) == asked.plan.model_dump(
            include=set(ROUTED_FIELDS)
        ), asked.text


@pytest.mark.parametrize("language", ["de", "ar"])
def test_every_language_offers_the_same_questions(
    demo: tuple[ChatPipeline, pd.DataFrame, date], language: str
) -> None:
    pipeline, _, as_of = demo
    english, other = _screen(pipeline, as_of), _screen(pipeline, as_of, language)
    assert [e.plan for e in other.examples] == [e.plan for e in english.examples]
    assert all(e.language == language for e in other.examples)
    assert [e.text for e in other.examples] != [e.text for e in english.examples]
    assert [t.value for t in other.tiles] != [t.value for t in english.tiles]  # worded money
    # The same plans; a statement question carries its words for the text search.
    assert [t.question.plan.model_dump(exclude={"text"}) for t in other.tiles] == [
        t.question.plan.model_dump(exclude={"text"}) for t in english.tiles
    ]


def test_every_tile_is_its_question_answered(
    demo: tuple[ChatPipeline, pd.DataFrame, date],
) -> None:
    """Per account its newest balance, the newest month against the one before, its top
    categories and largest payments: each tile's figures are its question's answer."""
    pipeline, frame, as_of = demo
    tiles = {tile.key: tile for tile in _screen(pipeline, as_of).tiles}
    newest = frame[frame["day"] == max(frame["day"])]
    accounts = sorted(set(frame["account_name"]))
    assert [key for key in tiles if key.startswith("balance-")] == [
        f"balance-{name}" for name in accounts
    ]
    for name in accounts:
        tile = tiles[f"balance-{name}"]
        result = _answered(pipeline, tile.question, as_of)
        assert isinstance(result, TextQAResult)
        last_row = frame[frame["account_name"] == name].iloc[-1]
        assert result.facts[0].amount == Decimal(last_row["balance"])
        assert tile.value == money(result.facts[0].amount)
    assert set(newest["account_name"]) <= set(accounts)
    for key in ("month", "categories", "payments"):
        tile = tiles[key]
        result = _answered(pipeline, tile.question, as_of)
        _check_numbers(frame, tile.question.plan, result)
    month = tiles["month"].question.plan.compare[-1]
    assert month.date_to == max(frame["day"])
    categories = _answered(pipeline, tiles["categories"].question, as_of)
    assert isinstance(categories, AggregateResult)
    assert [line[0] for line in tiles["categories"].lines] == [g.key for g in categories.groups]


def test_a_store_without_data_has_an_empty_first_screen(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    backend = EmbeddedBackend(Settings(data_dir=tmp_path, es_url=None))
    backend.prepare(embedder.dims, embedder.model_name)
    try:
        screen = ChatPipeline(backend, embedder, OfflineRouter).first_screen(USER, TODAY)
        assert screen.tiles == [] and screen.examples == [] and screen.period == ""
    finally:
        backend.close()
