"""Text as it reads: without the characters that draw nothing but change how it reads.

Bidi embeddings, overrides and isolates make "Refund $1000.00 due" of other letters; zero-width
spaces and joiners make "Ama​zon" a second Amazon. Names and descriptions lose them when a file
lands (the raw descriptor keeps them), and the app drops them from any text it shows.
"""

from __future__ import annotations

import re

_HIDDEN = (
    "\u00ad\u180e\u200b-\u200d\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\U000e0000-\U000e007f"
)
_MARKS = "\u061c\u200e\u200f"  # direction marks: they place a neutral, never reorder text
_NAME = re.compile(f"[{_HIDDEN}{_MARKS}]")
_SHOWN = re.compile(f"[{_HIDDEN}]")


def visible(text: str, keep_marks: bool = False) -> str:
    """``text`` without soft hyphens, bidi embeddings, overrides and isolates, zero-width
    spaces and joiners, word joiners, byte-order marks and tag characters; and without
    direction marks unless ``keep_marks`` (answers in right-to-left languages use them to
    place an amount)."""
    return (_SHOWN if keep_marks else _NAME).sub("", text)
