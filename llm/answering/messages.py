"""Clarifications, suggestions and notes worded in the asker's language.

The router, the coverage check, the pipeline and the search say what they mean as a
``Message``: a key of the templates' ``[messages]`` (or a full key such as ``unit_plural.month``
when it holds a dot) and its fields. Only here do they become sentences, each language from its
own pattern; nothing written in English is read back.

A field is worded by its type: a message is worded in turn, a day by the pattern's format
(``{day:d MMM y}`` is a CLDR date pattern, ``{day}`` the language's usual day), a list of names
with the language's separator, a count with its digit grouping; text (a name, the user's own
words) stays as written.
"""

from __future__ import annotations

from datetime import date

from babel.dates import format_date

from elastic.model.plan import Message
from llm.answering.wording import Wording

_Field = str | date | list[str] | int | Message


class _Day:
    """A day filled into a pattern: ``{day:LLLL y}`` formats it with that CLDR pattern in the
    language's locale, ``{day}`` as the language's usual day label."""

    def __init__(self, day: date, w: Wording) -> None:
        self._day, self._w = day, w

    def __format__(self, spec: str) -> str:
        if not spec:
            return self._w.day_label(self._day)
        return format_date(self._day, spec, locale=self._w.locale)


def template_key(key: str) -> str:
    """The templates' key of a message key: ``[messages]`` unless it names its table."""
    return key if "." in key else f"messages.{key}"


def word(message: Message, w: Wording) -> str:
    """``message`` as a sentence of ``w``'s language (English where the language lacks it)."""
    fields = {name: _field(value, w) for name, value in message.fields.items()}
    return w.text(template_key(message.key), **fields)


def _field(value: _Field, w: Wording) -> object:
    if isinstance(value, Message):
        return word(value, w)
    if isinstance(value, date):
        return _Day(value, w)
    if isinstance(value, list):
        return w.names(value)
    if isinstance(value, int):
        return w.number(value)
    return value
