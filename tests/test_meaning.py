"""Words by meaning: everyday words placed among a user's categories and merchants by the local
embedder, with a threshold and margin measured on labeled words (and checked on held-out ones)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from elastic.model.plan import Intent
from elastic.model.results import Vocabulary
from llm.embeddings import LocalEmbedder
from llm.understanding.meaning import MARGIN, THRESHOLD, Meaning, Sense
from llm.understanding.offline_router import OfflineRouter
from tests.labeled import HOUSEHOLD, clarification, suggestions
from tests.test_router import vocabulary  # noqa: F401  (the sample data's vocabulary fixture)

DATA = Path(__file__).parent / "data"
WORDS = DATA / "meaning_words.jsonl"
HELD_OUT = DATA / "meaning_words_holdout.jsonl"
AS_OF = date(2025, 7, 15)
Ranked = list[tuple[dict[str, Any], Sense, Sense]]


def _words(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def meanings(request: pytest.FixtureRequest, embedder: LocalEmbedder) -> dict[str, Meaning]:
    sample: Vocabulary = request.getfixturevalue("vocabulary")
    return {
        "sample": Meaning(sample, embedder.embed),
        "household": Meaning(HOUSEHOLD, embedder.embed),
    }


def _ranked(meanings: dict[str, Meaning], path: Path) -> Ranked:
    ranked = []
    for word in _words(path):
        first, second, *_ = meanings[word["vocabulary"]].rank(word["phrase"])
        ranked.append((word, first, second))
    return ranked


def _right(word: dict[str, Any], sense: Sense) -> bool:
    return f"{sense.kind}:{sense.value}" in word["means"]


def score(ranked: Ranked, threshold: float, margin: float) -> float:
    """The mean score of placing the words with ``threshold`` and ``margin``: +1 right, +1/2
    for offering two that hold the right one, 0 for nothing placed of a word that means
    something, -1 for a wrong sense or any sense of a word that means nothing."""
    total = 0.0
    for word, first, second in ranked:
        if first.score < threshold:
            total += 0 if word["means"] else 1
        elif not word["means"]:
            total -= 1
        elif first.score - second.score < margin:
            total += 0.5 if _right(word, first) or _right(word, second) else -1
        else:
            total += 1 if _right(word, first) else -1
    return total / len(ranked)


def measured(ranked: Ranked) -> tuple[float, float, float]:
    """The best (score, threshold, margin) on a grid of hundredths; among equals the highest
    threshold and then the widest margin."""
    grid = ((t / 100, m / 100) for t in range(20, 90) for m in range(0, 21))
    return max((score(ranked, t, m), t, m) for t, m in grid)


def test_the_threshold_and_margin_are_the_measured_ones(meanings: dict[str, Meaning]) -> None:
    ranked = _ranked(meanings, WORDS)
    assert len(ranked) >= 50 and sum(not word["means"] for word, _, _ in ranked) >= 15
    best, threshold, margin = measured(ranked)
    print(
        f"\nmeasured on {len(ranked)} words: threshold {threshold}, margin {margin}, "
        f"score {best:.3f}"
    )
    assert (threshold, margin) == (THRESHOLD, MARGIN)


def test_words_set_aside_are_placed_as_well(meanings: dict[str, Meaning]) -> None:
    """The held-out words, scored with the measured threshold and margin."""
    ranked = _ranked(meanings, HELD_OUT)
    held_out = score(ranked, THRESHOLD, MARGIN)
    built = score(_ranked(meanings, WORDS), THRESHOLD, MARGIN)
    print(f"\nwords by meaning: built against {built:.3f}, held out {held_out:.3f}")
    assert held_out > 0.5


def test_everyday_words_find_what_they_mean(request: pytest.FixtureRequest) -> None:
    sample: Vocabulary = request.getfixturevalue("vocabulary")
    router = OfflineRouter(sample, meaning=Meaning(sample, LocalEmbedder().embed))
    routed = router.trace("How much did I spend on my dog in 2024?", AS_OF)
    assert "meaning" in routed.rules and routed.plan.categories == ["Pets"]


def test_two_close_meanings_are_asked_about(request: pytest.FixtureRequest) -> None:
    sample: Vocabulary = request.getfixturevalue("vocabulary")
    router = OfflineRouter(sample, meaning=Meaning(sample, LocalEmbedder().embed))
    question = "How much did I spend on the dentist?"
    routed = router.trace(question, AS_OF)
    assert routed.rule == "meaning_close" and routed.plan.intent is Intent.clarify
    assert "“dentist” could mean" in (clarification(routed.plan) or "")
    asked = suggestions(routed.plan)
    assert len(asked) == 2 and all(q.startswith("How much did I spend on the ") for q in asked)
    for question in asked:  # each offer is a question that is answered
        assert router.route(question, AS_OF).intent is Intent.aggregate


def test_nothing_fits_is_said_plainly(request: pytest.FixtureRequest) -> None:
    sample: Vocabulary = request.getfixturevalue("vocabulary")
    router = OfflineRouter(sample, meaning=Meaning(sample, LocalEmbedder().embed))
    routed = router.trace("How much did I spend on unicorn grooming in 2024?", AS_OF)
    assert routed.rule == "unknown_name"
    assert "couldn't find “unicorn grooming”" in (clarification(routed.plan) or "")


def test_proper_names_are_not_read_by_meaning(request: pytest.FixtureRequest) -> None:
    """A name the user has no rows for is a name, not a word: "Blue Bottle Coffee" is no
    Starbucks."""
    sample: Vocabulary = request.getfixturevalue("vocabulary")
    router = OfflineRouter(sample, meaning=Meaning(sample, LocalEmbedder().embed))
    routed = router.trace("How much did I spend at Blue Bottle Coffee?", AS_OF)
    assert routed.rule == "unknown_name" and "meaning" not in routed.rules


def test_a_failing_embedder_leaves_the_word_unknown(
    request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    """Without the embedder the word is asked about like any unknown name, never guessed."""
    sample: Vocabulary = request.getfixturevalue("vocabulary")

    def down(texts: list[str]) -> Any:
        raise ConnectionError("embedding service down")

    router = OfflineRouter(sample, meaning=Meaning(sample, down))
    routed = router.trace("How much did I spend on my dog in 2024?", AS_OF)
    assert (routed.rule, routed.plan.intent) == ("unknown_name", Intent.clarify)
    assert "placing 'dog' by meaning failed" in caplog.text
