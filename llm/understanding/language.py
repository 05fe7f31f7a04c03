"""Which language a question is written in, so its answer can be written in the same one.

The cues are data in the lexicons: a language's ``letters`` (a character class, for scripts
such as Arabic) or its ``markers`` (common words, for languages written in Latin letters, and
the words it ``rewrite``s that are spelled with letters English lacks), and its ``marks``
(letters only it uses: "¿" and "ñ" mark Spanish, "ç" and "è" French), which count as one marker.
Two markers make a question the language's, one in a question of three words or fewer ("et en
2024 ?"); more markers win. English is the default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from llm.understanding import lexicon

DEFAULT = lexicon.FIRST
# How many marker words make a question a language's rather than English.
_MARKERS_NEEDED = 2
_LATIN = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"\w+")


_SHORT = 3  # words: a question this short needs one marker


@dataclass(frozen=True)
class _Markers:
    code: str
    words: frozenset[str]
    marks: re.Pattern[str] | None

    def hits(self, question: str, words: list[str]) -> int:
        marked = bool(self.marks and self.marks.search(question.casefold()))
        return sum(word in self.words for word in words) + marked


@cache
def _cues() -> tuple[list[tuple[str, re.Pattern[str]]], list[_Markers]]:
    by_letters: list[tuple[str, re.Pattern[str]]] = []
    by_markers: list[_Markers] = []
    for language in lexicon.languages():
        letters = language.get("language.letters")
        if letters:
            by_letters.append((language.code, re.compile(letters)))
        markers = language.get("language.markers")
        if markers:
            # Words the router rewrites that are spelled with letters English does not use
            # ("überziehungsgebühr") mark the language too; "saldo" may be a name.
            rewritten = (
                word
                for word in language.get("rewrite") or {}
                if " " not in word and not word.isascii()
            )
            marks = language.get("language.marks")
            words = frozenset([*markers, *rewritten])
            by_markers.append(_Markers(language.code, words, re.compile(marks) if marks else None))
    return by_letters, by_markers


def question_language(question: str) -> str:
    """The code of the language ``question`` is written in ("en", "ar", "de"): the script
    most of its words are written in, else the language two or more of its words mark."""
    by_letters, by_markers = _cues()
    words = [word.casefold() for word in _WORD.findall(question)]
    latin = sum(bool(_LATIN.search(word)) for word in words)
    for code, letters in by_letters:
        if sum(bool(letters.search(word)) for word in words) > latin:
            return code
    counts = [(markers.hits(question, words), markers.code) for markers in by_markers]
    hits, code = max(counts, default=(0, DEFAULT))
    needed = 1 if len(words) <= _SHORT else _MARKERS_NEEDED
    return code if hits >= needed else DEFAULT
