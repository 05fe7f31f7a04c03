"""Account numbers show only their last four digits: in answers, the UI, prompts and logs.

A number is taken for an account or card number by its shape and the words before it, never
for being long: dates ("20240315"), references, amounts and phone numbers keep their digits.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

# Words that name an account or card number, in the languages of the supported banks, also in
# compounds and field names ("Girokonto", "account_no", "Kontonummer"); then labels and
# punctuation up to the number.
_ACCOUNT_WORD = (
    r"(?<![^\W_])(?:master|credit|debit|kredit|giro|spar)?"
    r"(?:acct|account|a/c|card|karte|carte|tarjeta|kaart|iban|konto|kto|compte|cuenta|rekening)"
    r"[sn]?(?:_?(?:no|nr|num|number|nummer|id))?(?![^\W\d])"
)
_LABEL = r"(?:[\s:#=.'\"-]|(?:no|nr|num|number|nummer|numero|número|numéro|n[º°])(?![^\W\d]))"
# Digits in a row, or in groups after a short first one ("4402 7188 31", "12-3456-7890123");
# a date printed after the number ("2024-03-15") is not one of its groups.
_DIGITS = r"\d{8,19}|\d{1,6}(?:[ -](?!\d{4}-\d\d-\d\d)\d{1,7})+"
_END = r"(?!\w|[.,]\d)"  # not followed by more of a word or by decimals

_AFTER_WORD = re.compile(rf"(?i:{_ACCOUNT_WORD}{_LABEL}{{0,8}})(?P<number>{_DIGITS}){_END}")
_CARD_SHAPES = (
    re.compile(rf"(?<![\w*])\d{{4}}([ -])\d{{4}}\1\d{{4}}\1\d{{4}}(?:\1\d{{1,3}})?{_END}"),
    re.compile(rf"(?<![\w*])\d{{4}}([ -])\d{{6}}\1\d{{5}}{_END}"),  # American Express
)
# A card number written without separators: 13 to 19 digits that pass the Luhn check.
_BARE_CARD = re.compile(rf"(?<![\w*])\d{{13,19}}{_END}")
# An IBAN, in one piece or in groups of four; a last short group holds a digit, so a word
# after it ("... 7034 EUR") stays out.
_IBAN = re.compile(
    r"(?<![\w*])[A-Z]{2}\d{2}"
    r"(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: (?=[A-Z]{0,2}\d)[A-Z0-9]{1,3})?)"
    rf"{_END}"
)
_CONTEXT_DIGITS = range(8, 20)
_MIN_IBAN_DIGITS = 8
_MIN_KNOWN_DIGITS = 5  # four digits or fewer show in full anyway ("****1234" as printed)


def mask_account(account_no: str) -> str:
    """Show only the last four digits of an account number: ``***1234``."""
    digits = "".join(ch for ch in account_no if ch.isalnum())
    return f"***{digits[-4:]}" if digits else ""


def _digit_count(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def _luhn_valid(digits: str) -> bool:
    total = 0
    for position, ch in enumerate(reversed(digits)):
        doubled = int(ch) * (2 if position % 2 else 1)
        total += doubled - 9 if doubled > 9 else doubled
    return total % 10 == 0


def _known_pattern(known: Iterable[str]) -> re.Pattern[str] | None:
    """The user's own numbers however they are written (spaces, dashes), alone or at the end
    of a longer number (leading zeros, a branch code)."""
    numbers = {"".join(ch for ch in number if ch.isdigit()) for number in known}
    spelled = [
        r"[ -]?".join(number)
        for number in sorted(numbers, key=len, reverse=True)
        if len(number) >= _MIN_KNOWN_DIGITS
    ]
    return re.compile(rf"(?<![\w*])(?:\d+-?)?(?:{'|'.join(spelled)}){_END}") if spelled else None


def account_number_spans(text: str, known: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Where account and card numbers stand in ``text``: the ``known`` ones, 8 to 19 digits
    after a word naming an account or card, card-shaped numbers and IBANs."""
    spans = [
        match.span("number")
        for match in _AFTER_WORD.finditer(text)
        if _digit_count(match["number"]) in _CONTEXT_DIGITS
    ]
    spans += [match.span() for shape in _CARD_SHAPES for match in shape.finditer(text)]
    spans += [match.span() for match in _BARE_CARD.finditer(text) if _luhn_valid(match[0])]
    spans += [
        match.span() for match in _IBAN.finditer(text) if _digit_count(match[0]) >= _MIN_IBAN_DIGITS
    ]
    if own := _known_pattern(known):
        spans += [match.span() for match in own.finditer(text)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


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
