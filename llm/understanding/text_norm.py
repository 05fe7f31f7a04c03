"""Question normalisation shared by the offline router's phrase finders."""

from __future__ import annotations

import calendar
import re
import unicodedata

from rapidfuzz import fuzz, process

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

# A few Arabic time phrases, rewritten to the English the date finder understands.
_ARABIC_PHRASES = {
    "الشهر الماضي": "last month",
    "هذا الشهر": "this month",
    "السنة الماضية": "last year",
    "العام الماضي": "last year",
    "هذه السنة": "this year",
    "هذا العام": "this year",
    "الأسبوع الماضي": "last week",
}

_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
_MONTHS = [name.casefold() for name in calendar.month_name if name]
_WORD = re.compile(r"[a-z]{5,}")

NUMBER_WORDS = {word: n for n, word in enumerate(_WORDS.split())}
# A regex alternative matching a small count written in digits or as a word.
COUNT = r"(?:\d{1,3}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"


def normalize(question: str) -> str:
    """Lower-cased, ASCII digits, straight quotes and single spaces; offsets are not preserved."""
    text = unicodedata.normalize("NFKC", question).translate(_ASCII).casefold()
    for arabic, english in _ARABIC_PHRASES.items():
        text = text.replace(arabic, english)
    text = _WORD.sub(_fix_month, text)
    return re.sub(r"\s+", " ", text).strip()


def _fix_month(match: re.Match[str]) -> str:
    """Correct a misspelt month name ("janurary", "febuary"); other words stay as they are."""
    word = match.group()
    candidates = [month for month in _MONTHS if month[0] == word[0]]
    found = process.extractOne(word, candidates, scorer=fuzz.ratio, score_cutoff=88)
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
