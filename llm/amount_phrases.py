"""Find amount bounds ("over $300", "under $50", "between $20 and $100") in a question.

Bounds are inclusive, so strict comparisons move by one cent: "over $300" is at least 300.01
and "under $50" at most 49.99; "at least"/"at most"/"between" keep the number as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

CENT = Decimal("0.01")

# A money amount: "$1,250.50", "300", "2k", "40 dollars". Not part of a date or a word.
_NUM = r"\$?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?(?:\s?k\b)?(?:\s?(?:dollars|usd|bucks))?"


def _amount(name: str) -> str:
    return rf"(?<![\w./-])(?P<{name}>{_NUM})(?![\w/-])"


# Numbers followed by these count things, not money ("more than 5 transactions").
_NOT_MONEY = re.compile(
    r"\s*(?:days?|weeks?|months?|quarters?|years?|times?|transactions?|purchases?|payments?|"
    r"charges?|items?|orders?|visits?|%|percent)\b"
)
_STRICT_MIN = r"over|more than|above|greater than|larger than|bigger than|higher than|exceeding|>"
_MIN = r"at least|no less than|minimum of|min(?:imum)?|>="
_STRICT_MAX = r"under|less than|below|smaller than|lower than|cheaper than|<"
_MAX = r"at most|no more than|up to|maximum of|max(?:imum)?|<="

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            rf"\b(?:between|from)\s+{_amount('a')}\s*(?:and|to|-)\s*"
            rf"{_amount('b')}"
        ),
        "between",
    ),
    (re.compile(rf"(?<!\w)(?:{_MIN})\s*(?:of\s+)?{_amount('a')}"), "min"),
    (re.compile(rf"(?<!\w)(?:{_MAX})\s*(?:of\s+)?{_amount('a')}"), "max"),
    (re.compile(rf"(?<!\w)(?:{_STRICT_MIN})\s*{_amount('a')}"), "strict_min"),
    (re.compile(rf"(?<!\w)(?:{_STRICT_MAX})\s*{_amount('a')}"), "strict_max"),
    (re.compile(rf"{_amount('a')}\s*(?:or more|and (?:up|above)|\+)"), "min"),
    (re.compile(rf"{_amount('a')}\s*(?:or less|and (?:under|below))"), "max"),
]


@dataclass(frozen=True)
class AmountBounds:
    min_amount: Decimal | None
    max_amount: Decimal | None
    spans: list[tuple[int, int]]


def _money(raw: str) -> Decimal:
    found = re.search(r"(\d[\d,]*(?:\.\d+)?)\s?(k\b)?", raw)
    if found is None:
        raise ValueError(raw)
    value = Decimal(found.group(1).replace(",", ""))
    return value * 1000 if found.group(2) else value


def _is_money(match: re.Match[str], group: str) -> bool:
    raw = match.group(group)
    if "$" in raw or re.search(r"dollars|usd|bucks", raw):
        return True
    return not _NOT_MONEY.match(match.string, match.end(group))


def find_amount_bounds(text: str) -> AmountBounds | None:
    """Amount bounds in a normalised question whose dates are already blanked out."""
    low: Decimal | None = None
    high: Decimal | None = None
    spans: list[tuple[int, int]] = []
    taken: list[tuple[int, int]] = []
    for pattern, kind in _PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            groups = ("a", "b") if kind == "between" else ("a",)
            if not all(_is_money(match, g) for g in groups):
                continue
            first = _money(match.group("a"))
            if kind == "between":
                second = _money(match.group("b"))
                low, high = min(first, second), max(first, second)
            elif kind in ("min", "strict_min"):
                low = first + CENT if kind == "strict_min" else first
            else:
                high = max(first - CENT, Decimal(0)) if kind == "strict_max" else first
            taken.append(match.span())
            spans.append(match.span())
    if not spans or (low is not None and high is not None and low > high):
        return None
    return AmountBounds(low, high, spans)
