"""Find the date range a question asks about, resolved against an ``as_of`` date.

Conventions (all ranges inclusive):

- Calendar units: weeks run Monday to Sunday, quarters are calendar quarters.
- "this week/month/quarter/year" (and "year to date") run from the unit's start to ``as_of``.
- "last/previous/past week/month/quarter/year" is the whole previous calendar unit.
- "last N days" is a rolling window of N days ending on ``as_of``.
- "last N weeks/months/quarters/years" are the N *whole* calendar units before the current one:
  with ``as_of`` 2025-07-15, "last 3 months" is 2025-04-01..2025-06-30. The current, partial
  unit is left out so every unit in the range is complete and comparable.
- A named period without a year ("in March", "between January and April") is the most recent
  one starting on or before ``as_of``; named periods are whole ("in July" is all of July).
- "Q1".."Q4", "first/second half" and "week N" without a year belong to ``as_of``'s year;
  "week N" is ISO 8601 week N (week 1 holds the year's first Thursday).
- "since X" runs from the start of X to ``as_of`` ("after X" from the day after X ends);
  "before X" ends the day before X starts, "until X" on X's last day.
- A range given by its ends ("from June 1 to August 31", "until December") stops at ``as_of``.

A phrase naming no period that transactions can have is a ``DateProblem`` instead: a day or
month that does not exist ("2024-13-01", "31/02/2024", "February 30"), a quarter, half or week
the year does not have ("Q5 2024", "week 54"), a range that ends before it starts, or a period
that starts after ``as_of`` ("next month", "in 2031").

Single dates and months ("April 1", "2024-03-01", "March 2025") are read by ``dateparser``
relative to ``as_of`` once they are known to exist; unit arithmetic uses
``dateutil.relativedelta``.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

from dateparser.date import DateDataParser
from dateutil.relativedelta import relativedelta

from elastic.model.calendar import bucket_start, shift
from elastic.model.plan import Interval, Message
from llm.understanding import lexicon
from llm.understanding.problems import Problem
from llm.understanding.text_norm import COUNT, parse_count

_MONTH_SPELLINGS = [
    name for names in lexicon.languages()[0].get("months").values() for name in names
]
_MONTH = "(?:" + "|".join(sorted(_MONTH_SPELLINGS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?:19|20)\d{2}"
_ORDINAL = r"(?:st|nd|rd|th)?"
_DAY = rf"\d{{1,2}}{_ORDINAL}(?!\d)"
_NO_MONEY_WORD = r"(?!\s*(?:dollars?|usd|bucks)\b)"
# A bare year, unless it is an amount: "over 2000", "2000 dollars".
_BARE_YEAR = (
    r"(?<!over )(?<!under )(?<!above )(?<!below )(?<!than )(?<!least )(?<!most )"
    rf"{_YEAR}{_NO_MONEY_WORD}"
)
# One point in time: a day, a month or a year. Order matters: the longest forms come first.
_POINT = (
    r"(?<![\w$.,])(?:"
    r"\d{4}-\d{1,2}-\d{1,2}"
    r"|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?"
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?"
    rf"|{_MONTH}(?:,?\s+(?:of\s+)?{_YEAR})?"
    r"|\d{4}-\d{2}"
    rf"|{_BARE_YEAR}"
    r")(?![\w$])"
)
_EXPLICIT_YEAR = re.compile(rf"{_YEAR}|\d{{4}}-\d|\d/\d{{1,2}}/\d")
# Bare "may" or a bare abbreviation ("apr" is also APR) is a month only after a preposition
# ("in may", "since apr"); with a day or a year ("may 2025", "apr 3") it always is.
_AMBIGUOUS_MONTHS = frozenset(
    lexicon.words("dates.ambiguous")
    + [name for names in lexicon.languages()[0].get("months").values() for name in names[1:]]
)
_MONTH_CONTEXT = re.compile(rf"(?:\b{lexicon.alternation('dates.month_context')}\s+)$")
# ... or a comparison with another month follows: "sept compared with oct", "may vs june".
_MONTH_COMPARED = re.compile(
    rf"\s+(?:vs\.?|versus|compared (?:with|to)|or|than)\s+(?:in\s+)?{_MONTH}"
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_ORDINALS |= {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_MONTH_NUMBERS = {abbr.casefold(): n for n, abbr in enumerate(calendar.month_abbr) if abbr}
# Calendar units as written ("yr", "wk") and the unit each names.
_UNIT_NAMES = {
    spelling: unit for unit, spellings in lexicon.table("unit").items() for spelling in spellings
}
_UNIT_WORDS = "(?:" + "|".join(sorted(_UNIT_NAMES, key=len, reverse=True)) + ")"
_PREVIOUS = lexicon.alternation("relative.previous")
_CURRENT = lexicon.alternation("relative.current")
_NEXT = lexicon.alternation("relative.next")
_YEAR_SHIFT = dict.fromkeys(lexicon.words("relative.previous"), -1)
_YEAR_SHIFT |= dict.fromkeys(lexicon.words("relative.current"), 0)
_YEAR_SHIFT |= dict.fromkeys(lexicon.words("relative.next"), 1)


@dataclass(frozen=True)
class _Form:
    """How a day (or a numeric month) is written: its fields, and whether the day-first order
    is a convention of its own ("31/01/2024") rather than a slip ("2024-31-01")."""

    pattern: re.Pattern[str]
    day_first: bool = False


# Fields of the point forms that can name a day or month that does not exist.
_FORMS = (
    _Form(re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})(?:-(?P<d>\d{1,2}))?")),
    _Form(re.compile(r"(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:/(?P<y>\d{2,4}))?"), day_first=True),
    _Form(re.compile(rf"(?P<name>[a-z]+)\.?\s+(?P<d>\d{{1,2}}){_ORDINAL}(?:,?\s+(?P<y>\d{{4}}))?")),
    _Form(
        re.compile(
            rf"(?P<d>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<name>[a-z]+)\.?(?:,?\s+(?P<y>\d{{4}}))?"
        )
    ),
)

# Period phrases no resolver can use; found last, so the question is never answered over all
# time instead: a year outside 1900–2099, and "last N units" with N of 0 or 1,000 and more.
_UNUSABLE_YEAR = re.compile(
    rf"\b(?:year|in|during|since|for)\s+(?P<year>\d{{4,}})\b{_NO_MONEY_WORD}"
)
_UNUSABLE_COUNT = re.compile(
    r"\b(?:last|past|previous|prior)\s+(?P<n>0+|\d{4,})\s+(?P<unit>day|week|month|quarter|year)s?\b"
)


@dataclass(frozen=True)
class DateRange:
    start: date | None
    end: date | None
    span: tuple[int, int]  # where the phrase sits in the normalised question


DateProblem = Problem  # a date phrase naming no period that transactions can have


@dataclass(frozen=True)
class _Point:
    start: date
    end: date
    has_year: bool


@dataclass(frozen=True)
class _Part:
    """A numbered part of a year: quarters ("Q3", "third quarter"), halves ("H1")."""

    count: int
    problem: str  # the message when the number is past the last part


_QUARTER = _Part(4, "date_no_quarter")
_HALF = _Part(2, "date_no_half")

_Span = tuple[date, date]
_Bounds = tuple[date | None, date | None]
_Found = _Span | DateProblem | None
_Resolver = Callable[[re.Match[str], date], _Found]


def _unit_start(day: date, unit: str) -> date:
    """The first day of the calendar day/week/month/quarter/year holding ``day``."""
    return bucket_start(day, Interval(unit))


def _shift(start: date, unit: str, n: int) -> date:
    return shift(start, Interval(unit), n)


def _unit_end(start: date, unit: str) -> date:
    return _shift(start, unit, 1) - timedelta(days=1)


@lru_cache(maxsize=8)
def _parser(as_of: date) -> DateDataParser:
    settings = {
        "RELATIVE_BASE": datetime(as_of.year, as_of.month, as_of.day),
        "PREFER_DATES_FROM": "past",
        "PREFER_DAY_OF_MONTH": "first",
        "DATE_ORDER": "MDY",
        "PARSERS": ["absolute-time"],  # relative phrases never reach dateparser
    }
    return DateDataParser(languages=["en"], settings=settings)


@lru_cache(maxsize=1024)
def _read_point(token: str, as_of: date) -> _Point | None:
    """One day, month or year phrase as the whole period it names."""
    data = _parser(as_of).get_date_data(token)
    if data.date_obj is None:
        return None
    found = data.date_obj.date()
    has_year = bool(_EXPLICIT_YEAR.search(token))
    if data.period == "year":
        return _Point(date(found.year, 1, 1), date(found.year, 12, 31), has_year)
    if data.period == "month":
        start = found.replace(day=1)
        return _Point(start, _unit_end(start, "month"), has_year)
    return _Point(found, found, has_year)


def _full_year(written: str) -> int:
    """A written year; two digits as ``strptime`` reads them ("24" is 2024)."""
    return datetime.strptime(written, "%y").year if len(written) == 2 else int(written)


def _days_in(year: int | None, month: int) -> int:
    """Days in the month; without a year, in any year (February has 29)."""
    return calendar.monthrange(2000 if year is None else year, month)[1]


def _period_name(point: _Point) -> str:
    """A day, month or year as the date finder reads it back: "March 1, 2025", "March 2025",
    "2025" (a correction suggested in the question itself)."""
    if point.start == point.end:
        return f"{calendar.month_name[point.start.month]} {point.start.day}, {point.start.year}"
    if point.start.month == point.end.month:
        return f"{calendar.month_name[point.start.month]} {point.start.year}"
    return str(point.start.year)


def _impossible(match: re.Match[str], group: str, as_of: date) -> DateProblem | None:
    """Why the point in ``group`` names a day or month that does not exist, with the day
    probably meant; None when it exists or is not written as a day."""
    token = match.group(group)
    for form in _FORMS:
        if written := form.pattern.fullmatch(token):
            break
    else:
        return None
    fields = written.groupdict()
    year = _full_year(fields["y"]) if fields.get("y") else None
    month = _MONTH_NUMBERS[fields["name"][:3]] if fields.get("name") else int(fields["m"])
    day = int(fields["d"]) if fields.get("d") else None
    if form.day_first and month > 12 and day is not None and 1 <= day <= 12:
        month, day = day, month
    if not 1 <= month <= 12:
        if year is None:  # "50/50": not written as a date at all
            return None
        fix = None
        if day is not None and 1 <= day <= 12 and 1 <= month <= _days_in(year, day):
            fix = date(year, day, month)  # "2024-13-01": day and month swapped
        return DateProblem("date_no_month", match.span(group), {"month": month}, fix)
    if day is None or 1 <= day <= _days_in(year, month):
        return None
    # Without a year the day is read in the most recent such month.
    fix_year = year or (as_of.year if month <= as_of.month else as_of.year - 1)
    last = calendar.monthrange(fix_year, month)[1]
    fix = date(fix_year, month, last) if day > last else None
    key = "date_no_day" if year else "date_no_day_any_year"
    fields: dict[str, str | int | date | Message] = {"day": day, "month": date(fix_year, month, 1)}
    return DateProblem(key, match.span(group), fields, fix, fix_has_year=year is not None)


def _point_at(match: re.Match[str], group: str, as_of: date) -> _Point | DateProblem | None:
    """The day, month or year written in ``group``, or why it does not exist."""
    return _impossible(match, group, as_of) or _read_point(match.group(group), as_of)


def _with_year(point: _Point, year: int) -> _Point:
    """The same day or month in another year (Feb 29 falls back to Feb 28)."""
    start = point.start + relativedelta(year=year)
    end = start if point.start == point.end else _unit_end(start, "month")
    return _Point(start, end, True)


def _year_of(match: re.Match[str], as_of: date) -> int:
    fields = match.groupdict()
    if fields.get("year"):
        return int(fields["year"])
    return as_of.year + _YEAR_SHIFT[fields.get("rel") or "this"]


def _range(match: re.Match[str], as_of: date) -> _Found:
    """Two points; a missing year comes from the other end ("between January and April 2024").
    The range stops at ``as_of``."""
    first = _point_at(match, "a", as_of)
    if not isinstance(first, _Point):
        return first
    if match.group("b") in ("now", "today"):
        return first.start, as_of
    second = _point_at(match, "b", as_of)
    if not isinstance(second, _Point):
        return second
    if second.has_year and not first.has_year:
        first = _with_year(first, second.start.year - (first.start.month > second.start.month))
    elif not second.has_year:
        second = _with_year(second, first.start.year + (second.start.month < first.start.month))
    if second.end < first.start:
        between = match.string[match.end("a") : match.start("b")]
        fix = f"{_period_name(second)}{between}{_period_name(first)}"
        return DateProblem("date_backwards", (match.start("a"), match.end("b")), fix=fix)
    return first.start, min(second.end, as_of)


def _part(part: _Part) -> _Resolver:
    """Resolves a numbered part of a year ("Q3 2024", "second half of last year"). A number
    past the last part is a problem only when a year goes with it: "Q8" alone may be a name."""

    def resolve(match: re.Match[str], as_of: date) -> _Found:
        fields = match.groupdict()
        number = fields.get("n") or fields["ord"]
        n = int(number) if number.isdigit() else _ORDINALS[number]
        if not 1 <= n <= part.count:
            if not (fields.get("year") or fields.get("rel")):
                return None
            return DateProblem(part.problem, match.span(), {"n": n})
        months = 12 // part.count
        start = date(_year_of(match, as_of), months * (n - 1) + 1, 1)
        return start, _shift(start, "month", months) - timedelta(days=1)

    return resolve


def _week(match: re.Match[str], as_of: date) -> _Found:
    """ISO week N of a year, Monday to Sunday."""
    year, n = _year_of(match, as_of), int(match.group("n"))
    weeks = date(year, 12, 28).isocalendar().week
    if not 1 <= n <= weeks:
        fields: dict[str, str | int | date | Message] = {"n": n, "year": str(year), "weeks": weeks}
        return DateProblem("date_no_week", match.span(), fields)
    start = date.fromisocalendar(year, n, 1)
    return start, start + timedelta(days=6)


def _current(match: re.Match[str], as_of: date) -> _Found:
    written = match.group("a") or match.group("b") or match.group("c")
    unit = (
        _UNIT_NAMES[written]
        if written
        else {"y": "year", "q": "quarter", "m": "month"}[match.group("d")]
    )
    return _unit_start(as_of, unit), as_of


def _previous(match: re.Match[str], as_of: date) -> _Found:
    """The whole unit before the current one ("last week"), or before that ("the week
    before last")."""
    unit = _UNIT_NAMES[match.group("unit")]
    back = 2 if match.groupdict().get("before_last") else 1
    start = _shift(_unit_start(as_of, unit), unit, -back)
    return start, _unit_end(start, unit)


def _fortnight(_: re.Match[str], as_of: date) -> _Found:
    """The two whole calendar weeks before the current one."""
    current = _unit_start(as_of, "week")
    return _shift(current, "week", -2), current - timedelta(days=1)


def _last_n(match: re.Match[str], as_of: date) -> _Found:
    n = parse_count(match.group("n"))
    if not n:
        return None
    unit = _UNIT_NAMES[match.group("unit")]
    if unit == "day":
        return as_of - timedelta(days=n - 1), as_of
    current = _unit_start(as_of, unit)
    return _shift(current, unit, -n), current - timedelta(days=1)


def _next(match: re.Match[str], as_of: date) -> _Found:
    """Whole calendar units after the current one: "next month", "the coming 3 weeks"."""
    n = parse_count(match.group("n")) if match.group("n") else 1
    if not n:
        return None
    unit = _UNIT_NAMES[match.group("unit")]
    if unit == "day":
        return as_of + timedelta(days=1), as_of + timedelta(days=n)
    start = _shift(_unit_start(as_of, unit), unit, 1)
    return start, _shift(start, unit, n) - timedelta(days=1)


def _day(offset: int) -> _Resolver:
    def resolve(_: re.Match[str], as_of: date) -> _Found:
        day = as_of + timedelta(days=offset)
        return day, day

    return resolve


def _point(match: re.Match[str], as_of: date) -> _Found:
    token = match.group("a")
    ambiguous = token.rstrip(".") in _AMBIGUOUS_MONTHS
    context = _MONTH_CONTEXT.search(match.string[: match.start()])
    if ambiguous and not (context or _MONTH_COMPARED.match(match.string, match.end())):
        return None
    point = _point_at(match, "a", as_of)
    return (point.start, point.end) if isinstance(point, _Point) else point


_YEAR_WORDS = "(?:" + "|".join(w for w, unit in _UNIT_NAMES.items() if unit == "year") + ")"
_YEAR_REF = (
    rf"(?:\s+(?:of\s+)?(?:the\s+)?(?:(?P<year>{_YEAR})|"
    rf"(?P<rel>{_PREVIOUS}|{_CURRENT}|{_NEXT})\s+{_YEAR_WORDS}))?"
)
_UNIT = rf"(?P<unit>{_UNIT_WORDS})"
_UNIT_OF = {group: rf"(?P<{group}>{_UNIT_WORDS})" for group in "abc"}

# A whole range: two points joined by "to", "and", "-", "through"...
_RANGE = re.compile(
    rf"(?:\b(?:from|between)\s+)?(?P<a>{_POINT})\s*(?:to|and|until|till|through|thru|-|–)\s*"
    rf"(?P<b>{_POINT}|now|today\b)"
)
# "since X" / "before X": X is any simple phrase below.
_PREFIX = re.compile(
    r"\b(?P<kw>since|starting(?:\s+(?:from|on|in))?|after|before|prior to|until|till|up to)"
    r"\s+(?:the\s+)?"
)
# Simple phrases, tried in order; the first family with a usable match wins.
_SIMPLE: list[tuple[re.Pattern[str], _Resolver]] = [
    (re.compile(rf"\b(?P<year>{_YEAR})\s*-?\s*q(?P<n>\d{{1,2}})\b"), _part(_QUARTER)),
    (
        re.compile(
            r"\b(?:q(?P<n>\d{1,2})|(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter)"
            rf"{_YEAR_REF}\b"
        ),
        _part(_QUARTER),
    ),
    (
        re.compile(rf"\b(?:h(?P<n>\d{{1,2}})|(?P<ord>first|second|1st|2nd)\s+half){_YEAR_REF}\b"),
        _part(_HALF),
    ),
    (
        re.compile(
            rf"\b(?:(?:so far\s+)?{_CURRENT}\s+{_UNIT_OF['a']}"
            rf"|(?:start|beginning)\s+of\s+(?:the|this)\s+{_UNIT_OF['b']}"
            rf"|{_UNIT_OF['c']}[\s-]to[\s-]date|(?P<d>[ymq])td)\b"
        ),
        _current,
    ),
    (re.compile(rf"\b{_PREVIOUS}\s+(?P<n>{COUNT})\s+{_UNIT}s?\b"), _last_n),
    (
        re.compile(
            rf"\b(?:the\s+)?{_UNIT}\s+(?P<before_last>{lexicon.alternation('relative.before_last')})\b"
        ),
        _previous,
    ),
    (re.compile(rf"\b{_PREVIOUS}\s+{_UNIT}\b"), _previous),
    (re.compile(rf"\b{_PREVIOUS}\s+{lexicon.alternation('relative.fortnight')}\b"), _fortnight),
    (re.compile(rf"\b{_NEXT}\s+(?:(?P<n>{COUNT})\s+)?{_UNIT}s?\b"), _next),
    (re.compile(rf"\b(?P<year>{_YEAR})(?:\s*-?\s*w|\s+week\s+)(?P<n>\d{{1,2}})\b"), _week),
    (
        re.compile(
            rf"\b(?:week|wk)\.?\s*(?:#\s*)?(?P<n>\d{{1,2}})(?!\d){_NO_MONEY_WORD}{_YEAR_REF}\b"
        ),
        _week,
    ),
    (re.compile(r"\btoday\b"), _day(0)),
    (re.compile(r"\byesterday\b"), _day(-1)),
    (re.compile(r"\btomorrow\b"), _day(1)),
    (re.compile(rf"(?P<a>{_POINT})"), _point),
]


def _simple_at(text: str, pos: int, as_of: date) -> tuple[_Span | DateProblem, int] | None:
    """A simple phrase starting exactly at ``pos``, with where it ends."""
    for pattern, resolve in _SIMPLE:
        match = pattern.match(text, pos)
        if match and (found := resolve(match, as_of)) is not None:
            return found, match.end()
    return None


def _settled(
    found: _Bounds | DateProblem, span: tuple[int, int], as_of: date
) -> DateRange | DateProblem:
    """The range found, unless it is a problem or starts after ``as_of``."""
    if isinstance(found, DateProblem):
        return found
    start, end = found
    if start is not None and start > as_of:
        return DateProblem("date_future", span, {"day": as_of})
    return DateRange(start, end, span)


def _prefixed(text: str, as_of: date) -> DateRange | DateProblem | None:
    for match in _PREFIX.finditer(text):
        found = _simple_at(text, match.end(), as_of)
        if found is None:
            continue
        named, stop = found
        if isinstance(named, DateProblem):
            return named
        start, end = named
        keyword = match.group("kw")
        bounds: _Bounds
        if keyword in ("before", "prior to"):
            bounds = (None, min(start - timedelta(days=1), as_of))
        elif keyword in ("until", "till", "up to"):
            bounds = (None, min(end, as_of))
        else:
            bounds = (end + timedelta(days=1) if keyword == "after" else start, as_of)
        return _settled(bounds, (match.start(), stop), as_of)
    return None


def find_date_range(text: str, as_of: date) -> DateRange | DateProblem | None:
    """The date range named in a normalised question, why the phrase naming it cannot be
    used, or None when it names none."""
    for match in _RANGE.finditer(text):
        if (found := _range(match, as_of)) is not None:
            return _settled(found, match.span(), as_of)
    if (prefixed := _prefixed(text, as_of)) is not None:
        return prefixed
    for pattern, resolve in _SIMPLE:
        for match in pattern.finditer(text):
            if (found := resolve(match, as_of)) is not None:
                return _settled(found, match.span(), as_of)
    return _unusable_period(text)


def _unusable_period(text: str) -> DateProblem | None:
    year = _UNUSABLE_YEAR.search(text)
    if year and not 1900 <= int(year.group("year")) <= 2099:
        return DateProblem("date_no_year", year.span(), {"year": year.group("year")})
    if count := _UNUSABLE_COUNT.search(text):
        units = Message(key=f"unit_plural.{count.group('unit')}")
        return DateProblem("date_no_count", count.span(), {"units": units})
    return None


def unit_before(start: date, unit: Interval) -> tuple[date, date]:
    """The whole calendar unit before the one holding ``start``: "the month before"."""
    first = shift(bucket_start(start, unit), unit, -1)
    return first, shift(first, unit, 1) - timedelta(days=1)


def year_earlier(start: date, end: date) -> tuple[date, date]:
    """The same days a year earlier: "the same period last year" (Feb 29 becomes Feb 28)."""
    return start - relativedelta(years=1), end - relativedelta(years=1)


def warm_up() -> None:
    """dateparser loads its language data on first use (~150 ms); pay that once, up front."""
    _read_point("march 1", date(2000, 1, 1))
