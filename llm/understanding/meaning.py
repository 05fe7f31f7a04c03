"""Words by meaning: a word no lexicon or name knows ("the dentist", "my dog") is placed among
the user's categories and merchants by the local embedder.

Each category is described by its name and the lexicon's everyday words for it (the synonyms
that lead to it: Health by "pharmacy", "doctor", "chemist" ...), each merchant by its name and
the words its bank descriptor starts with. A phrase gets the best cosine similarity over each
one's descriptions. The best is taken when it reaches ``THRESHOLD`` and leads the next by
``MARGIN`` or more; two that close are both offered; below the threshold nothing fits.

Both numbers are measured, not chosen, on the labeled words of ``tests/data/meaning_words.jsonl``
(everyday words over two users' data with what they mean, and words nothing in them means). A
threshold and margin score each word: +1 for the right sense, +1/2 for offering two that hold
it, 0 for saying nothing fits a word that means something, -1 for a wrong sense or for any sense
of a word that means nothing (a wrong answer given with confidence is worse than asking). The
pair with the best mean score is taken, on a grid of hundredths; among equal pairs the highest
threshold and then the widest margin, since asking beats guessing. ``tests/test_meaning.py``
measures them again and checks these are still the best, and scores the held-out words.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from elastic.ingest.cleaning import descriptor_words
from elastic.model.results import Vocabulary
from llm.embeddings import EMBEDDING_FAILURES
from llm.understanding.vocabulary import CATEGORY_SYNONYMS, Kind, of_kind

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]
# Measured on tests/data/meaning_words.jsonl (see the module's docstring).
THRESHOLD = 0.46
MARGIN = 0.09


@dataclass(frozen=True)
class Sense:
    """A category or merchant a phrase may mean, and how close it is."""

    kind: Kind
    value: str
    score: float


@dataclass(frozen=True)
class Placed:
    """What a phrase means: one sense, two too close to tell apart, or none."""

    senses: tuple[Sense, ...]

    @property
    def found(self) -> Sense | None:
        return self.senses[0] if len(self.senses) == 1 else None


class Meaning:
    """Ranks one user's categories and merchants by what a phrase means."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        embed: Embed,
        threshold: float = THRESHOLD,
        margin: float = MARGIN,
    ) -> None:
        self._embed = embed
        self.threshold, self.margin = threshold, margin
        self._senses: list[tuple[Kind, str]] = []
        self._texts: list[str] = []
        self._owner: list[int] = []
        glosses: dict[str, list[str]] = {}
        for word, targets in CATEGORY_SYNONYMS.items():
            for target in targets:
                for category in of_kind(target, vocabulary.categories):
                    glosses.setdefault(category, []).append(word)
        for category in vocabulary.categories:
            self._describe(Kind.category, category, [category, *glosses.get(category, [])])
        for merchant in vocabulary.merchants:
            described = descriptor_words(vocabulary.descriptors.get(merchant, "")).casefold()
            self._describe(Kind.merchant, merchant, [merchant, *filter(None, [described])])

    def _describe(self, kind: Kind, value: str, texts: list[str]) -> None:
        self._senses.append((kind, value))
        for text in dict.fromkeys(texts):
            self._texts.append(text)
            self._owner.append(len(self._senses) - 1)

    @cached_property
    def _vectors(self) -> np.ndarray:
        return self._embed(self._texts)

    def rank(self, phrase: str) -> list[Sense]:
        """Every category and merchant, closest in meaning first."""
        if not self._senses:
            return []
        scores = self._vectors @ self._embed([phrase])[0]
        best = np.full(len(self._senses), -1.0)
        np.maximum.at(best, np.array(self._owner), scores)
        order = np.argsort(-best)
        return [Sense(*self._senses[i], float(best[i])) for i in order]

    def place(self, phrase: str) -> Placed:
        """The sense of ``phrase``: the best above the threshold, both of two too close to
        tell apart, or none; none also when the embedder fails (the question is then asked
        about as a name nothing knows)."""
        try:
            ranked = self.rank(phrase)
        except EMBEDDING_FAILURES as exc:
            log.warning("placing %r by meaning failed: %r", phrase, exc)
            return Placed(())
        if not ranked or ranked[0].score < self.threshold:
            return Placed(())
        if len(ranked) > 1 and ranked[0].score - ranked[1].score < self.margin:
            return Placed((ranked[0], ranked[1]))
        return Placed((ranked[0],))
