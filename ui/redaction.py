"""Account numbers in statement text and page images: only the last four digits are ever shown."""

from __future__ import annotations

import re

from elastic.records import mask_account

VISIBLE_DIGITS = 4
_CARD_LIKE = r"\d(?:[ -]?\d){11,18}"  # 12-19 digits: card and long account numbers


def _pattern(account_no: str) -> re.Pattern[str]:
    digits = [ch for ch in account_no if ch.isdigit()]
    alternatives = [_CARD_LIKE]
    if len(digits) > VISIBLE_DIGITS:
        alternatives.insert(0, r"[ -]?".join(digits))
    return re.compile(rf"(?<!\d)(?:{'|'.join(alternatives)})(?!\d)")


def hidden_spans(text: str, account_no: str) -> list[tuple[int, int]]:
    """Spans of ``text`` to hide: each account number except its last four digits."""
    spans = []
    for match in _pattern(account_no).finditer(text):
        digit_positions = [i for i, ch in enumerate(match.group()) if ch.isdigit()]
        keep_from = digit_positions[-VISIBLE_DIGITS]
        spans.append((match.start(), match.start() + keep_from))
    return spans


def mask_numbers(text: str, account_no: str) -> str:
    """``text`` with the statement's account number (and card-like numbers) masked."""
    return _pattern(account_no).sub(lambda m: mask_account(m.group()), text)
