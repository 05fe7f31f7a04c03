"""Misspelt question words put right by edit distance: "hw much did i spnd on groceris".

A word is left alone when it is right somewhere: in the local model's English vocabulary, in
any lexicon, or among the user's own names (a merchant "Starbux" stays Starbux). Any other word
is corrected to the one word of its language's lexicon within one edit (two for words of eight
letters or more; a swap of two letters is one edit); when several are as close, the one with
the same first letter and then the most letters in common, and none when that leaves a tie.
Shorthand too short to correct by distance ("hw", "wat") is a table of the lexicons. Names of
the user's data are corrected separately, against the names (``vocabulary.VocabMatcher``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from functools import cache
from typing import Any

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from llm.embeddings import model_words
from llm.understanding import lexicon
from llm.understanding.text_norm import strip_accents

_TOKEN = re.compile(r"(?<![\w'])[^\W\d_]+(?![\w'])")
_LETTERS = re.compile(r"[^\W\d_]+")
_LONG = 8  # from this length, two edits


def _tokens(value: Any) -> Iterator[str]:
    """The words written in a lexicon value: its lists, its tables' keys and values."""
    if isinstance(value, str):
        yield from (strip_accents(w) for w in _LETTERS.findall(value.casefold()))
    elif isinstance(value, list):
        for item in value:
            yield from _tokens(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _tokens(key)
            yield from _tokens(item)


@cache
def lexicon_words() -> frozenset[str]:
    """Every word written in the lexicons, of every language."""
    return frozenset(w for language in lexicon.languages() for w in _tokens(language.tables))


@cache
def _right() -> frozenset[str]:
    """Words that are right as they are: the model's vocabulary and every lexicon's words."""
    return model_words() | lexicon_words()


@cache
def _targets(code: str) -> tuple[str, ...]:
    """The words a misspelling in language ``code`` is corrected to: the language's lexicon
    words that are real words (three letters or more)."""
    language = lexicon.language(code)
    if language is None:
        return ()
    listed = set(_tokens(language.get("typos.words") or []))
    words = {w for w in _tokens(language.tables) if len(w) >= 3}
    if code == lexicon.FIRST:  # English lexicon words spelled as patterns are not words
        words = {w for w in words if w in model_words()} | listed
    return tuple(sorted(words))


def _shorthand(code: str) -> dict[str, str]:
    language = lexicon.language(code)
    return dict(language.get("typos.shorthand") or {}) if language else {}


def _fix(word: str, targets: tuple[str, ...]) -> str | None:
    edits = 2 if len(word) >= _LONG else 1
    found = process.extract(word, targets, scorer=OSA.distance, score_cutoff=edits, limit=8)
    if not found:
        return None
    best = min(distance for _, distance, _ in found)
    closest = [target for target, distance, _ in found if distance == best]
    ranked = sorted(
        ((target[0] == word[0], fuzz.ratio(word, target), target) for target in closest),
        reverse=True,
    )
    if len(ranked) > 1 and ranked[0][:2] == ranked[1][:2]:
        return None  # as close to two words: no telling which was meant
    return ranked[0][2]


def corrected(
    text: str, known: Collection[str] = frozenset(), language: str = lexicon.FIRST
) -> tuple[str, list[tuple[str, str]]]:
    """``text`` (lower case) with its misspelt words put right, and what was changed."""
    targets, shorthand = _targets(language), _shorthand(language)
    changes: list[tuple[str, str]] = []

    def fix(match: re.Match[str]) -> str:
        word = match.group()
        right = shorthand.get(word)
        if right is None and len(word) >= 3 and word not in known and word not in _right():
            right = _fix(word, targets)
        if right is None:
            return word
        changes.append((word, right))
        return right

    return _TOKEN.sub(fix, text), changes
