"""Find amount bounds ("over $300", "under $50", "between $20 and $100") in a question.

Bounds are inclusive, so strict comparisons move by one cent: "over $300" is at least 300.01
and "under $50" at most 49.99; "at least"/"at most"/"between" keep the number as written.

An amount above ``MAX_AMOUNT`` or finer than a cent ("$12.345") is an ``AmountProblem``, not a
bound: money is kept as integer cents, and neither fits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from llm.understanding import lexicon
from llm.understanding.problems import Problem

CENT = Decimal("0.01")
# The largest amount a question may name, in magnitude: one trillion.
MAX_AMOUNT = Decimal(1_000_000_000_000)


def _any(path: str) -> str:
    return lexicon.alternation(path)


_MONEY_WORDS = _any("amounts.money")
_THOUSANDS = _any("amounts.thousands")
# A money amount: "$1,250.50", "300", "2k", "40 dollars". Not part of a date or a word.
_NUM = (
    rf"\$?\s?(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?(?:\s?{_THOUSANDS}\b)?"
    rf"(?:\s?{_MONEY_WORDS})?"
)


def _amount(name: str) -> str:
    return rf"(?<![\w./-])(?P<{name}>{_NUM})(?![\w/-])"


# Numbers followed by these count things, not money ("more than 5 transactions").
_NOT_MONEY = re.compile(rf"\s*{_any('amounts.not_money')}\b")
_STRICT_MIN = _any("amounts.strict_min")
_MIN = _any("amounts.min")
_STRICT_MAX = _any("amounts.strict_max")
_MAX = _any("amounts.max")
_OF = rf"(?:{_any('amounts.of')}\s+)?"

# A bound word before a signed or exponent number ("under -50", "over 1e9"): never a bound,
# and never to be silently dropped.
_NOT_PLAIN_AMOUNT = re.compile(
    rf"(?<!\w)(?:{_STRICT_MIN}|{_MIN}|{_STRICT_MAX}|{_MAX})\s*{_OF}"
    r"(?P<a>[-+−]\s?\$?\d[\d,.]*(?:e[-+]?\d+)?|\$?\d[\d,.]*e[-+]?\d+)(?![\w.])"
)

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            rf"\b{_any('amounts.between')}\s+{_amount('a')}\s*{_any('amounts.and')}\s*"
            rf"{_amount('b')}"
        ),
        "between",
    ),
    (re.compile(rf"(?<!\w){_MIN}\s*{_OF}{_amount('a')}"), "min"),
    (re.compile(rf"(?<!\w){_MAX}\s*{_OF}{_amount('a')}"), "max"),
    (re.compile(rf"(?<!\w){_STRICT_MIN}\s*{_amount('a')}"), "strict_min"),
    (re.compile(rf"(?<!\w){_STRICT_MAX}\s*{_amount('a')}"), "strict_max"),
    (re.compile(rf"{_amount('a')}\s*{_any('amounts.or_more')}"), "min"),
    (re.compile(rf"{_amount('a')}\s*{_any('amounts.or_less')}"), "max"),
]
_MONEY_WORD = re.compile(rf"\b{_MONEY_WORDS}\b")
_THOUSANDS_AT_END = re.compile(rf"(\d[\d,]*(?:\.\d+)?)\s?({_THOUSANDS}\b)?")


@dataclass(frozen=True)
class AmountBounds:
    min_amount: Decimal | None
    max_amount: Decimal | None
    spans: list[tuple[int, int]]


AmountProblem = Problem  # an amount that cannot be a bound


def _money(raw: str) -> Decimal:
    found = _THOUSANDS_AT_END.search(raw)
    if found is None:
        raise ValueError(raw)
    value = Decimal(found.group(1).replace(",", ""))
    return value * 1000 if found.group(2) else value


def _is_money(match: re.Match[str], group: str) -> bool:
    raw = match.group(group)
    if "$" in raw or _MONEY_WORD.search(raw):
        return True
    return not _NOT_MONEY.match(match.string, match.end(group))


def _unusable(match: re.Match[str], group: str) -> AmountProblem | None:
    """Why the amount in ``group`` cannot be a bound; None when it can."""
    value = _money(match.group(group))
    if value > MAX_AMOUNT:
        return AmountProblem("amount_too_large", match.span(group), {"largest": int(MAX_AMOUNT)})
    if value % CENT:
        fix = f"${value.quantize(CENT, ROUND_HALF_UP):,}"
        return AmountProblem("amount_too_fine", match.span(group), fix=fix)
    return None


def find_amount_bounds(text: str) -> AmountBounds | AmountProblem | None:
    """Amount bounds in a normalised question whose dates are already blanked out, or why an
    amount in them cannot be used."""
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
            for group in groups:
                if problem := _unusable(match, group):
                    return problem
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
    if not spans and (odd := _NOT_PLAIN_AMOUNT.search(text)):
        return AmountProblem("amount_not_plain", odd.span("a"))
    if not spans or (low is not None and high is not None and low > high):
        return None
    return AmountBounds(low, high, spans)
