"""Listing cursors: the sort values of a page's last row as an opaque, URL-safe token.

Callers only hand a token back; this module alone reads it, so both engines page alike.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence

from elastic.query.spec import SortValue


class InvalidCursor(ValueError):
    """A listing cursor this module did not make (or made for another sort order)."""


def encode(values: Sequence[SortValue]) -> str:
    text = json.dumps(list(values), separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode(token: str, keys: int) -> tuple[SortValue, ...]:
    """The sort values of ``token``, which must hold one per sort key."""
    try:
        padded = token + "=" * (-len(token) % 4)
        values = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (UnicodeError, binascii.Error, ValueError) as exc:
        raise InvalidCursor(f"the listing cursor {token!r} is malformed") from exc
    if (
        not isinstance(values, list)
        or len(values) != keys
        or not all(isinstance(v, str | int) and not isinstance(v, bool) for v in values)
    ):
        raise InvalidCursor(f"the listing cursor {token!r} does not fit a sort of {keys} keys")
    return tuple(values)
