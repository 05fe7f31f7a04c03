"""Which language a question is written in, so its answer can be written in the same one.

The cues are data in the lexicons: a language's ``letters`` (a character class, for scripts
such as Arabic) or its ``markers`` (common words, for languages written in Latin letters, and
the words it ``rewrite``s that are spelled with letters English lacks). English is the default.
"""

from __future__ import annotations

import re
from functools import cache

from llm.understanding import lexicon

DEFAULT = lexicon.FIRST
# How many marker words make a question a language's rather than English.
_MARKERS_NEEDED = 2
_LATIN = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"\w+")


@cache
def _cues() -> tuple[list[tuple[str, re.Pattern[str]]], list[tuple[str, frozenset[str]]]]:
    by_letters, by_markers = [], []
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
            by_markers.append((language.code, frozenset([*markers, *rewritten])))
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
    counts = [(sum(word in markers for word in words), code) for code, markers in by_markers]
    hits, code = max(counts, default=(0, DEFAULT))
    return code if hits >= _MARKERS_NEEDED else DEFAULT
