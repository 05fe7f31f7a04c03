"""Account numbers in statement text and page images: only the last four digits are ever shown."""

from __future__ import annotations

from elastic.masking import account_number_spans

VISIBLE_DIGITS = 4


def hidden_spans(text: str, account_no: str) -> list[tuple[int, int]]:
    """Spans of ``text`` to black out on a page image: each account number but its last four
    digits."""
    spans = []
    for start, end in account_number_spans(text, [account_no]):
        digit_positions = [i for i in range(start, end) if text[i].isdigit()]
        spans.append((start, digit_positions[-VISIBLE_DIGITS]))
    return spans
