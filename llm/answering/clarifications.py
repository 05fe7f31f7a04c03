"""The router's and the pipeline's clarifications and the search's notes, worded again in the
asker's language.

They are written in English where they arise; the ``messages`` patterns of the templates name
each message once (the English pattern is what is matched), so an answer in Arabic or German
gives the same message, with the same names and dates, in its own language.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import cache

from llm.answering.wording import ENGLISH, Wording, wording

_FIELD = re.compile(r"\{(\w+)\}")
_ENGLISH_DAYS = ("%d %B %Y", "%b %d, %Y", "%B %d, %Y")  # "1 January 2024", "Jan 1, 2024"
_ENGLISH_MONTH = "%B %Y"  # "January 2024"


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Each router message key with its English pattern as a regular expression."""
    english = wording(ENGLISH)
    found = []
    for key in english.keys("messages."):
        literal = _FIELD.split(english.text_pattern(key))
        regex = "".join(
            f"(?P<{part}>.*?)" if i % 2 else re.escape(part) for i, part in enumerate(literal)
        )
        found.append((key, re.compile(regex, re.DOTALL)))
    return found


def _parsed(text: str, formats: tuple[str, ...]) -> date | None:
    for form in formats:
        try:
            return datetime.strptime(text, form).date()
        except ValueError:
            continue
    return None


def _field(value: str, w: Wording) -> str:
    """A field of a message: a nested message, a day or a month in ``w``'s words; a name as
    written."""
    if day := _parsed(value, _ENGLISH_DAYS):
        return w.day_label(day)
    if month := _parsed(value, (_ENGLISH_MONTH,)):
        return w.month_label(month)
    return reword(value, w) if value else value


def reword(message: str, w: Wording) -> str:
    """``message`` (English, from the router or the pipeline) in ``w``'s language; as written
    when it is English already or no pattern matches it."""
    if w.code == ENGLISH:
        return message
    for key, pattern in _patterns():
        if match := pattern.fullmatch(message):
            fields = {name: _field(value, w) for name, value in match.groupdict().items()}
            return w.text(key, **fields)
    return message
