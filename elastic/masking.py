"""Account numbers show only their last four digits: in answers, the UI, prompts and logs."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable


def mask_account(account_no: str) -> str:
    """Show only the last four digits of an account number: ``***1234``."""
    digits = "".join(ch for ch in account_no if ch.isalnum())
    return f"***{digits[-4:]}" if digits else ""


# Shaped like an account number: card-style groups of four, or eight or more digits in a row.
# Dates (2024-01-31), amounts (1,234.56) and phone numbers keep their shape.
_NUMBER_SHAPE = r"\d{4}(?:[ -]\d{4}){2,4}|\d{8,}"


def account_number_spans(text: str, known: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Where account numbers stand in ``text``: the ``known`` ones (even written with spaces or
    dashes) and anything shaped like one."""
    spelled = [
        r"[ -]?".join(d for d in number if d.isdigit())
        for number in sorted({k for k in known if k}, key=len, reverse=True)
    ]
    pattern = re.compile(rf"(?<![\w*])(?:{'|'.join([*spelled, _NUMBER_SHAPE])})(?!\w|[.,]\d)")
    return [match.span() for match in pattern.finditer(text)]


def mask_account_numbers(text: str, known: Iterable[str] = ()) -> str:
    """``text`` with every account number in it reduced to its last four digits."""
    for start, end in reversed(account_number_spans(text, known)):
        text = text[:start] + mask_account(text[start:end]) + text[end:]
    return text


class MaskAccountNumbers(logging.Filter):
    """A logging filter that masks account numbers in every record it passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_account_numbers(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info:  # tracebacks quote values too
            traceback = record.exc_text or logging.Formatter().formatException(record.exc_info)
            record.exc_text = mask_account_numbers(traceback)
        return True


def mask_logs() -> None:
    """Mask account numbers in everything the root logger's handlers write (idempotent)."""
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    for handler in root.handlers:
        if not any(isinstance(f, MaskAccountNumbers) for f in handler.filters):
            handler.addFilter(MaskAccountNumbers())
