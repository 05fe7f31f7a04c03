"""Question normalisation shared by the offline router's phrase finders."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from rapidfuzz import fuzz, process

from llm.understanding import lexicon

# Arabic-Indic (U+0660..) and Extended Arabic-Indic / Persian (U+06F0..) digits, plus Arabic
# punctuation, mapped to their ASCII counterparts.
_ASCII = str.maketrans(
    {
        **{chr(0x0660 + i): str(i) for i in range(10)},
        **{chr(0x06F0 + i): str(i) for i in range(10)},
        "٫": ".",
        "٬": ",",
        "،": ",",
        "؟": "?",
        "’": "'",
        "‘": "'",
        "“": '"',
        "”": '"',
    }
)

# Arabic harakat (U+064B..U+0652) and the tatweel: "حوّل" is read as "حول".
_DIACRITICS = re.compile("[\u064b-\u0652\u0640]")
# A year written with two digits: "in '24".
_SHORT_YEAR = re.compile(r"(?<![\w'])'(?P<yy>\d{2})(?![\w'])")


def _whole(phrases: Iterable[str]) -> re.Pattern[str]:
    """Any of ``phrases`` standing as words of their own, longest first."""
    alternatives = sorted(map(re.escape, phrases), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)")


@dataclass(frozen=True)
class _Rewrite:
    """Phrases read as their English twins, and the pattern finding them."""

    table: dict[str, str]
    pattern: re.Pattern[str]

    def apply(self, text: str) -> str:
        return self.pattern.sub(lambda m: self.table[m.group()], text) if self.table else text


def _rewrite(table: dict[str, str]) -> _Rewrite:
    return _Rewrite(table, _whole(table) if table else re.compile(r"(?!)"))


def _month_rewrites() -> dict[str, str]:
    """Month names of every language as the English full name of their month."""
    english = {number: names[0] for number, names in lexicon.languages()[0].get("months").items()}
    found: dict[str, str] = {}
    for language in lexicon.languages()[1:]:
        joined = language.get("language.joined_and")
        for number, names in (language.get("months") or {}).items():
            found |= dict.fromkeys(names, english[number])
            if joined:
                found |= {joined + name: f"and {english[number]}" for name in names}
    return found


def _everywhere() -> _Rewrite:
    """Rewrites applied to every question: month names, and the phrases of languages whose
    phrases English never uses (``rewrite_everywhere``, true unless said otherwise)."""
    found = _month_rewrites()
    for language in lexicon.languages()[1:]:
        if language.get("language.rewrite_everywhere") is not False:
            found |= {k: v for k, v in (language.get("rewrite") or {}).items() if k not in found}
    return _rewrite(found)


@cache
def _own(code: str) -> _Rewrite:
    """The rewrites a language applies to its own questions only, accents optional."""
    language = lexicon.language(code)
    if language is None or language.get("language.rewrite_everywhere") is not False:
        return _rewrite({})
    table: dict[str, str] = {}
    for phrase, english in (language.get("rewrite") or {}).items():
        table[phrase] = english
        table.setdefault(strip_accents(phrase), english)
    return _rewrite(table)


def _splits_elisions(code: str | None) -> bool:
    language = lexicon.language(code)
    return bool(language and language.get("language.elisions"))


_EVERYWHERE = _everywhere()
# "l'année", "j'ai": the elided word set apart, "l' année".
_ELISION = re.compile(r"(?<![\w'])(qu|[cdjlmnst])'(?=\w)")
_INVERTED = str.maketrans({"¿": " ", "¡": " "})
# "and" joined to a number: "و٢٠٢٥" is "and 2025".
_JOINED_AND = re.compile(
    "|".join(
        rf"(?<!\w){re.escape(joined)}(?=\d)"
        for language in lexicon.languages()
        if (joined := language.get("language.joined_and"))
    )
    or r"(?!)"
)

_MONTHS = [names[0] for names in lexicon.languages()[0].get("months").values()]
# A day written with a dot before its month ("am 3. März", "le 3. mars" after rewriting):
# the day of that month, as "3 march".
_MONTH_WORDS = sorted(
    {n for names in lexicon.languages()[0].get("months").values() for n in names},
    key=len,
    reverse=True,
)
_DAY_DOT = re.compile(rf"\b(\d{{1,2}})\.\s*(?=(?:{'|'.join(_MONTH_WORDS)})\b)")
_WORD = re.compile(r"[a-z]{5,}")

# Counts written as words, in English; other languages' number words are rewritten to these.
NUMBER_WORDS = {word: n for n, word in enumerate(lexicon.languages()[0].get("numbers.words"))}
# A regex alternative matching a small count written in digits or as a word.
COUNT = r"(?:\d{1,3}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"


def normalize(
    question: str,
    known: Collection[str] = frozenset(),
    corrections: list[tuple[str, str]] | None = None,
    language: str | None = None,
) -> str:
    """Lower-cased, ASCII digits, straight quotes and single spaces, other languages' words
    in English (the phrases of the question's ``language`` too when it is given), "'24" as
    2024; offsets are not preserved. Misspelt month names are corrected unless they are among
    the ``known`` words (lower-cased words of the user's merchants, categories and accounts:
    the merchant "Augusta" stays), and noted in ``corrections`` when it is given."""
    text = unicodedata.normalize("NFKC", question).translate(_ASCII).casefold()
    text = _DIACRITICS.sub("", text).translate(_INVERTED)
    text = _JOINED_AND.sub("and ", text)
    if _splits_elisions(language):
        text = _ELISION.sub(r"\1' ", text)
    own = _own(language) if language else None
    if own and own.table:
        text = own.apply(strip_accents(text))
    text = _EVERYWHERE.apply(text)
    text = _SHORT_YEAR.sub(lambda m: str(_full_year(m.group("yy"))), text)
    noted = corrections if corrections is not None else []
    text = _WORD.sub(lambda m: _fix_month(m, known, noted), text)
    text = _DAY_DOT.sub(r"\1 ", text)
    return re.sub(r"\s+", " ", text).strip()


def _full_year(yy: str) -> int:
    """A two-digit year as ``strptime`` reads it: "24" is 2024, "99" is 1999."""
    return datetime.strptime(yy, "%y").year


def _fix_month(
    match: re.Match[str], known: Collection[str], corrections: list[tuple[str, str]]
) -> str:
    """Correct a misspelt month name ("janurary", "febuary"); other words stay as they are."""
    word = match.group()
    if word in known:
        return word
    candidates = [month for month in _MONTHS if month[0] == word[0]]
    found = process.extractOne(word, candidates, scorer=fuzz.ratio, score_cutoff=88)
    if found and found[0] != word:
        corrections.append((word, found[0]))
    return found[0] if found else word


def strip_accents(text: str) -> str:
    """``text`` without combining accents: "Madrileña" -> "Madrilena"."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    )


def parse_count(token: str) -> int | None:
    """``"5"`` or ``"five"`` -> 5; anything else -> None."""
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token)


def blank(text: str, spans: list[tuple[int, int]]) -> str:
    """Replace each span with spaces so later finders skip it while offsets stay valid."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)
