"""Find the date range a question asks about, resolved against an ``as_of`` date.

Conventions (all ranges inclusive):

- Calendar units: weeks run Monday to Sunday, quarters are calendar quarters.
- "this week/month/quarter/year" (and "year to date", "2025 so far") run from the unit's start
  to ``as_of``.
- "last/previous/past week/month/quarter/year" is the whole previous calendar unit.
- "last N days" is a rolling window of N days ending on ``as_of``.
- "last N weeks/months/quarters/years" are the N *whole* calendar units before the current one:
  with ``as_of`` 2025-07-15, "last 3 months" is 2025-04-01..2025-06-30. The current, partial
  unit is left out so every unit in the range is complete and comparable. "N months ago" is the
  one calendar month N before the current one.
- A named period without a year ("in March", "between January and April") is the most recent
  one starting on or before ``as_of``; named periods are whole ("in July" is all of July).
- "Q1".."Q4", "first/second half" and "week N" without a year belong to ``as_of``'s year, unless
  a list or range gives the year after its last item: "Q1 or Q2 2024", "March and April 2025",
  "the first or second quarter of 2024" all mean 2024 and 2025. "week N" is ISO 8601 week N.
- "since X" (or "from X") runs from the start of X to ``as_of``, "after X" from the day after X
  ends; "before X" ends the day before X starts, "until/through X" on X's last day.
- "the start of X" is X's first day and "the end of X" its last, so "between June 2024 and the
  end of May 2025" runs to 2025-05-31 and "since the start of 2024" from 2024-01-01.
- A range given by its ends ("from June 1 to August 31", "until December") stops at ``as_of``.
- "the 12 months to June 2025" are the 12 whole months ending with June 2025.
- A weekend is Saturday and Sunday; seasons are the northern ones (a winter starts in
  December). "last weekend/summer" is the latest one that has ended.
- A bare year after "over" or "under" is an amount ("over 2000"), unless it is a year of the
  last ten, not a multiple of 100, with no money word after it ("monthly spending over 2024").

A phrase naming no period that transactions can have is a ``DateProblem`` instead: a day or
month that does not exist ("2024-13-01", "31/02/2024", "February 30"), a quarter, half or week
the year does not have ("Q5 2024", "week 54"), a range that ends before it starts, or a period
that starts after ``as_of`` ("next month", "in 2031").

Single dates and months ("April 1", "2024-03-01", "March 2025") are read by ``dateparser``
relative to ``as_of`` once they are known to exist; unit arithmetic uses
``dateutil.relativedelta``. Every word is data in the lexicons (``[dates]``, ``[unit]``,
``[relative]``, ``[months]``, ``[seasons]``); other languages reach this module as English.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

from dateparser.date import DateDataParser
from dateutil.relativedelta import relativedelta

from elastic.model.calendar import bucket_end, bucket_start, shift
from elastic.model.plan import Interval, Message
from llm.understanding import lexicon
from llm.understanding.problems import Problem
from llm.understanding.text_norm import COUNT, parse_count


def _any(path: str) -> str:
    return lexicon.alternation(path)


_ENGLISH_MONTHS: dict[str, list[str]] = lexicon.languages()[0].get("months")
_MONTH_SPELLINGS = [name for names in _ENGLISH_MONTHS.values() for name in names]
_MONTH = "(?:" + "|".join(sorted(_MONTH_SPELLINGS, key=len, reverse=True)) + r")\.?"
_MONTH_NUMBERS = {name: int(n) for n, names in _ENGLISH_MONTHS.items() for name in names}
_YEAR = r"(?:19|20)\d{2}"
_ORDINAL = rf"(?:{_any('dates.day_suffix')})?"
_DAY = rf"\d{{1,2}}{_ORDINAL}(?!\d)"
_OF = rf"(?:{_any('dates.of')}\s+)?"
_THE = rf"(?:{_any('dates.the')}\s+)?"
_MONEY_WORD = _any("dates.money")
_NO_MONEY_WORD = rf"(?!\s*{_MONEY_WORD}\b)"
_BARE_YEAR = rf"{_YEAR}{_NO_MONEY_WORD}"
# One point in time: a day, a month or a year. Order matters: the longest forms come first.
_POINT = (
    r"(?<![\w$.,])(?:"
    r"\d{4}-\d{1,2}-\d{1,2}"
    r"|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?"
    rf"|{_DAY}\s+{_OF}{_MONTH}(?:,?\s+{_OF}{_YEAR})?"
    rf"|{_MONTH}(?:,?\s+{_OF}{_YEAR})?"
    r"|\d{4}-\d{2}"
    rf"|{_BARE_YEAR}"
    r")(?![\w$])"
)
_EXPLICIT_YEAR = re.compile(rf"{_YEAR}|\d{{4}}-\d|\d/\d{{1,2}}/\d")
# Bare "may" or a bare abbreviation ("apr" is also APR) is a month only after a preposition
# ("in may", "since apr"); with a day or a year ("may 2025", "apr 3") it always is.
_AMBIGUOUS_MONTHS = frozenset(
    lexicon.words("dates.ambiguous") + [n for names in _ENGLISH_MONTHS.values() for n in names[1:]]
)
_MONTH_CONTEXT = re.compile(rf"(?:\b{_any('dates.month_context')}\s+)$")
# ... or a comparison with another month follows: "sept compared with oct", "may vs june".
_MONTH_COMPARED = re.compile(
    rf"\s+(?:{_any('compare.versus')}|{_any('compare.or')}|vs\.)\s+(?:\w+\s+)?{_MONTH}"
)
# ... or the start of a range of months: "jan-mar 2024".
_MONTH_RANGED = re.compile(rf"\s*(?:{_any('dates.range_to')})\s*{_MONTH}")
# A bare year after an amount's bound ("over 2024") is a period only when plausibly one.
_BOUND_BEFORE = re.compile(rf"\b{_any('dates.bounds')}\s+$")
_RECENT_YEARS = 10
_ORDINALS = {word: n for n, word in enumerate(lexicon.words("dates.ordinals"), start=1)}
_ORDINALS |= {word: n for n, word in enumerate(lexicon.words("dates.ordinal_digits"), start=1)}
_ORDINAL_WORD = "(?:" + "|".join(_ORDINALS) + ")"
# Calendar units as written ("yr", "wk") and the unit each names.
_UNIT_NAMES = {
    spelling: unit for unit, spellings in lexicon.table("unit").items() for spelling in spellings
}
_UNIT_WORDS = "(?:" + "|".join(sorted(_UNIT_NAMES, key=len, reverse=True)) + ")"
_PREVIOUS = _any("relative.previous")
_CURRENT = _any("relative.current")
_NEXT = _any("relative.next")
_YEAR_SHIFT = dict.fromkeys(lexicon.words("relative.previous"), -1)
_YEAR_SHIFT |= dict.fromkeys(lexicon.words("relative.current"), 0)
_YEAR_SHIFT |= dict.fromkeys(lexicon.words("relative.next"), 1)
_Q, _H, _W = _any("dates.quarter_letter"), _any("dates.half_letter"), _any("dates.week_letter")
_WEEK_WORDS = "(?:" + "|".join(w for w, unit in _UNIT_NAMES.items() if unit == "week") + ")"
_SEASONS = {
    word: int(season["first"])
    for season in lexicon.table("seasons").values()
    for word in season["words"]
}
_SEASON = "(?:" + "|".join(_SEASONS) + ")"
_TD_UNITS: dict[str, str] = lexicon.table("dates.td_units")
_TD_LETTER = "(?:" + "|".join(_TD_UNITS) + ")"


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
            rf"(?P<d>\d{{1,2}}){_ORDINAL}\s+{_OF}(?P<name>[a-z]+)\.?(?:,?\s+{_OF}(?P<y>\d{{4}}))?"
        )
    ),
)

# Period phrases no resolver can use; found last, so the question is never answered over all
# time instead: a year outside 1900–2099, and "last N units" with N of 0 or 1,000 and more.
_UNUSABLE_YEAR = re.compile(
    rf"\b{_any('dates.year_before')}\s+(?P<year>\d{{4,}})\b{_NO_MONEY_WORD}"
)
_UNUSABLE_COUNT = re.compile(
    rf"\b{_PREVIOUS}\s+(?P<n>0+|\d{{4,}})\s+(?P<unit>{'|'.join(lexicon.table('unit'))})s?\b"
)


@dataclass(frozen=True)
class DateRange:
    """A period found in a question: its days, where its phrase sits in the normalised question,
    and whether the phrase gives its year (a bare "March" or "Q1" does not)."""

    start: date | None
    end: date | None
    span: tuple[int, int]
    has_year: bool = True

    def in_year(self, year: int) -> DateRange:
        """The same days in ``year`` (a month or quarter of another year)."""
        if self.start is None or self.end is None:
            return self
        years = year - self.start.year
        start = self.start + relativedelta(years=years)
        end = self.end + relativedelta(years=years)
        if self.end.month == 2 and self.end.day >= 28:  # the last day of February
            end = end + relativedelta(day=31)
        return DateRange(start, end, self.span, True)


DateProblem = Problem  # a date phrase naming no period that transactions can have


@dataclass(frozen=True)
class _Point:
    start: date
    end: date
    has_year: bool


@dataclass(frozen=True)
class _Period:
    """What a phrase names: its first and last day, and whether it gives its year."""

    start: date
    end: date
    has_year: bool = True


@dataclass(frozen=True)
class _Part:
    """A numbered part of a year: quarters ("Q3", "third quarter"), halves ("H1")."""

    count: int
    problem: str  # the message when the number is past the last part


_QUARTER = _Part(4, "date_no_quarter")
_HALF = _Part(2, "date_no_half")

_Bounds = tuple[date | None, date | None]
_Found = _Period | DateProblem | None
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
    data = _parser(as_of).get_date_data(re.sub(rf"\b{_any('dates.of')}\b", " ", token))
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


def _period_name(point: _Period) -> str:
    """A day, month or year as the date finder reads it back: "March 1, 2025", "March 2025",
    "2025" (a correction suggested in the question itself)."""
    if point.start == point.end:
        return f"{calendar.month_name[point.start.month]} {point.start.day}, {point.start.year}"
    if point.start.month == point.end.month:
        return f"{calendar.month_name[point.start.month]} {point.start.year}"
    return str(point.start.year)


def _impossible(token: str, span: tuple[int, int], as_of: date) -> DateProblem | None:
    """Why the point ``token`` names a day or month that does not exist, with the day probably
    meant; None when it exists or is not written as a day."""
    for form in _FORMS:
        if written := form.pattern.fullmatch(token):
            break
    else:
        return None
    fields = written.groupdict()
    year = _full_year(fields["y"]) if fields.get("y") else None
    name = (fields.get("name") or "").rstrip(".")
    if name and name not in _MONTH_NUMBERS:
        return None
    month = _MONTH_NUMBERS[name] if name else int(fields["m"])
    day = int(fields["d"]) if fields.get("d") else None
    if form.day_first and month > 12 and day is not None and 1 <= day <= 12:
        month, day = day, month
    if not 1 <= month <= 12:
        if year is None:  # "50/50": not written as a date at all
            return None
        fix = None
        if day is not None and 1 <= day <= 12 and 1 <= month <= _days_in(year, day):
            fix = date(year, day, month)  # "2024-13-01": day and month swapped
        return DateProblem("date_no_month", span, {"month": month}, fix)
    if day is None or 1 <= day <= _days_in(year, month):
        return None
    # Without a year the day is read in the most recent such month.
    fix_year = year or (as_of.year if month <= as_of.month else as_of.year - 1)
    last = calendar.monthrange(fix_year, month)[1]
    fix = date(fix_year, month, last) if day > last else None
    key = "date_no_day" if year else "date_no_day_any_year"
    fields_: dict[str, str | int | date | Message] = {"day": day, "month": date(fix_year, month, 1)}
    return DateProblem(key, span, fields_, fix, fix_has_year=year is not None)


def _point_at(match: re.Match[str], group: str, as_of: date) -> _Period | DateProblem | None:
    """The day, month or year written in ``group``, or why it does not exist."""
    token = match.group(group)
    problem = _impossible(token, match.span(group), as_of)
    if problem:
        return problem
    point = _read_point(token, as_of)
    return _Period(point.start, point.end, point.has_year) if point else None


def _year_of(match: re.Match[str], as_of: date) -> tuple[int, bool]:
    """The year a phrase names, and whether it names one at all ("Q1" alone does not)."""
    fields = match.groupdict()
    if fields.get("year"):
        return int(fields["year"]), True
    if fields.get("rel"):
        return as_of.year + _YEAR_SHIFT[fields["rel"]], True
    return as_of.year, False


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
        year, has_year = _year_of(match, as_of)
        start = date(year, months * (n - 1) + 1, 1)
        return _Period(start, _shift(start, "month", months) - timedelta(days=1), has_year)

    return resolve


def _listed_part(match: re.Match[str], as_of: date) -> _Found:
    """An ordinal whose part is named after the next one: "the first" of "the first or second
    quarter"."""
    part = _QUARTER if _UNIT_NAMES.get(match.group("unit")) == "quarter" else _HALF
    return _part(part)(match, as_of)


def _week(match: re.Match[str], as_of: date) -> _Found:
    """ISO week N of a year, Monday to Sunday."""
    (year, has_year), n = _year_of(match, as_of), int(match.group("n"))
    weeks = date(year, 12, 28).isocalendar().week
    if not 1 <= n <= weeks:
        fields: dict[str, str | int | date | Message] = {"n": n, "year": str(year), "weeks": weeks}
        return DateProblem("date_no_week", match.span(), fields)
    start = date.fromisocalendar(year, n, 1)
    return _Period(start, start + timedelta(days=6), has_year)


def _current(match: re.Match[str], as_of: date) -> _Found:
    written = match.group("a") or match.group("b") or match.group("c")
    unit = _UNIT_NAMES[written] if written else _TD_UNITS[match.group("d")]
    return _Period(_unit_start(as_of, unit), as_of)


def _year_so_far(match: re.Match[str], as_of: date) -> _Found:
    """A year up to ``as_of``: "2025 so far", "so far in 2025"."""
    start = date(int(match.group("year") or match.group("year2")), 1, 1)
    return _Period(start, min(date(start.year, 12, 31), as_of))


def _previous(match: re.Match[str], as_of: date) -> _Found:
    """The whole unit before the current one ("last week"), or before that ("the week
    before last")."""
    unit = _UNIT_NAMES[match.group("unit")]
    back = 2 if match.groupdict().get("before_last") else 1
    start = _shift(_unit_start(as_of, unit), unit, -back)
    return _Period(start, _unit_end(start, unit))


def _fortnight(_: re.Match[str], as_of: date) -> _Found:
    """The two whole calendar weeks before the current one."""
    current = _unit_start(as_of, "week")
    return _Period(_shift(current, "week", -2), current - timedelta(days=1))


def _last_n(match: re.Match[str], as_of: date) -> _Found:
    n = parse_count(match.group("n"))
    if not n:
        return None
    unit = _UNIT_NAMES[match.group("unit")]
    if unit == "day":
        return _Period(as_of - timedelta(days=n - 1), as_of)
    current = _unit_start(as_of, unit)
    return _Period(_shift(current, unit, -n), current - timedelta(days=1))


def _ago(match: re.Match[str], as_of: date) -> _Found:
    """The one calendar unit N before the current one: "three months ago", "a week ago"."""
    n = parse_count(match.group("n")) or 1
    unit = _UNIT_NAMES[match.group("unit")]
    start = _shift(_unit_start(as_of, unit), unit, -n)
    return _Period(start, _unit_end(start, unit))


def _next(match: re.Match[str], as_of: date) -> _Found:
    """Whole calendar units after the current one: "next month", "the coming 3 weeks"."""
    n = parse_count(match.group("n")) if match.group("n") else 1
    if not n:
        return None
    unit = _UNIT_NAMES[match.group("unit")]
    if unit == "day":
        return _Period(as_of + timedelta(days=1), as_of + timedelta(days=n))
    start = _shift(_unit_start(as_of, unit), unit, 1)
    return _Period(start, _shift(start, unit, n) - timedelta(days=1))


def _day(offset: int) -> _Resolver:
    def resolve(_: re.Match[str], as_of: date) -> _Found:
        day = as_of + timedelta(days=offset)
        return _Period(day, day)

    return resolve


def _weekend(match: re.Match[str], as_of: date) -> _Found:
    """Saturday and Sunday: of this week ("this weekend"), or the latest that has ended."""
    saturday = _unit_start(as_of, "week") + timedelta(days=5)
    if not match.group("current") and saturday + timedelta(days=1) >= as_of:
        saturday -= timedelta(days=7)
    return _Period(saturday, saturday + timedelta(days=1))


def _season(match: re.Match[str], as_of: date) -> _Found:
    """A season: of a year ("summer 2024"), this one, or the latest that has ended."""
    first = _SEASONS[match.group("season") or match.group("s2") or match.group("s3")]
    if match.group("year"):
        start = date(int(match.group("year")), first, 1)
    else:
        start = date(as_of.year, first, 1)
        while start > as_of:
            start = _shift(start, "year", -1)
        end = _shift(start, "month", 3) - timedelta(days=1)
        if match.group("previous") and end >= as_of:
            start = _shift(start, "year", -1)
    return _Period(start, _shift(start, "month", 3) - timedelta(days=1))


def _point(match: re.Match[str], as_of: date) -> _Found:
    token = match.group("a")
    before = match.string[: match.start()]
    ambiguous = token.rstrip(".") in _AMBIGUOUS_MONTHS
    after = match.end()
    if ambiguous and not (
        _MONTH_CONTEXT.search(before)
        or _MONTH_COMPARED.match(match.string, after)
        or _MONTH_RANGED.match(match.string, after)
    ):
        return None
    if re.fullmatch(_YEAR, token) and _BOUND_BEFORE.search(before):
        year = int(token)  # "over 2024" is a year, "over 2000" an amount
        if not (as_of.year - _RECENT_YEARS <= year <= as_of.year and year % 100):
            return None
    return _point_at(match, "a", as_of)


_YEAR_WORDS = "(?:" + "|".join(w for w, unit in _UNIT_NAMES.items() if unit == "year") + ")"
_YEAR_REF = (
    rf"(?:\s+{_OF}{_THE}(?:(?P<year>{_YEAR})|"
    rf"(?P<rel>{_PREVIOUS}|{_CURRENT}|{_NEXT})\s+{_YEAR_WORDS}))?"
)
_UNIT = rf"(?P<unit>{_UNIT_WORDS})"
_UNIT_OF = {group: rf"(?P<{group}>{_UNIT_WORDS})" for group in "abc"}
_LIST_WORD = rf"(?:{_any('compare.or')}|{_any('dates.list_and')}|{_any('compare.versus')})"

# Simple phrases, tried in order; the first family with a usable match wins.
_SIMPLE: list[tuple[re.Pattern[str], _Resolver]] = [
    # The first of "the first or second quarter": found before the second, which has the year.
    (
        re.compile(
            rf"\b(?P<ord>{_ORDINAL_WORD})(?=\s+{_LIST_WORD}\s+(?:\w+\s+){{0,2}}?{_ORDINAL_WORD}"
            rf"\s+(?P<unit>{_any('dates.quarter')}|{_any('dates.half')})\b)"
        ),
        _listed_part,
    ),
    (re.compile(rf"\b(?P<year>{_YEAR})\s*-?\s*{_Q}(?P<n>\d{{1,2}})\b"), _part(_QUARTER)),
    (
        re.compile(
            rf"\b(?:{_Q}(?P<n>\d{{1,2}})|(?P<ord>{_ORDINAL_WORD})\s+{_any('dates.quarter')})"
            rf"{_YEAR_REF}\b"
        ),
        _part(_QUARTER),
    ),
    (
        re.compile(
            rf"\b(?:{_H}(?P<n>\d{{1,2}})|(?P<ord>{_ORDINAL_WORD})\s+{_any('dates.half')})"
            rf"{_YEAR_REF}\b"
        ),
        _part(_HALF),
    ),
    (
        re.compile(
            rf"\b(?:(?:{_any('dates.so_far')}\s+)?{_CURRENT}\s+{_UNIT_OF['a']}"
            rf"|{_any('dates.start_of')}\s+(?:{_any('dates.the')}|{_CURRENT})\s+{_UNIT_OF['b']}"
            rf"|{_UNIT_OF['c']}[\s-]{_any('dates.to_date')}|(?P<d>{_TD_LETTER}){_any('dates.td')})\b"
        ),
        _current,
    ),
    (
        re.compile(
            rf"\b(?:(?P<year>{_YEAR})\s+{_any('dates.so_far')}|"
            rf"{_any('dates.so_far')}\s+(?:in\s+)?(?P<year2>{_YEAR}))\b"
        ),
        _year_so_far,
    ),
    (re.compile(rf"\b{_PREVIOUS}\s+(?P<n>{COUNT})\s+{_UNIT}s?\b"), _last_n),
    (
        re.compile(rf"\b(?P<n>{COUNT}|{_any('dates.one')})\s+{_UNIT}s?\s+{_any('dates.ago')}\b"),
        _ago,
    ),
    (
        re.compile(rf"\b{_THE}{_UNIT}\s+(?P<before_last>{_any('relative.before_last')})\b"),
        _previous,
    ),
    (
        re.compile(
            rf"\b(?:(?P<previous>{_PREVIOUS})|(?P<current>{_CURRENT})|{_any('dates.the')})\s+"
            rf"{_any('dates.weekend')}\b"
        ),
        _weekend,
    ),
    (
        re.compile(
            rf"\b(?:(?P<previous>{_PREVIOUS})\s+(?P<season>{_SEASON})|{_CURRENT}\s+(?P<s2>{_SEASON})"
            rf"|(?P<s3>{_SEASON})\s+{_OF}(?P<year>{_YEAR}))\b"
        ),
        _season,
    ),
    (re.compile(rf"\b{_PREVIOUS}\s+{_UNIT}\b"), _previous),
    (re.compile(rf"\b{_PREVIOUS}\s+{_any('relative.fortnight')}\b"), _fortnight),
    (re.compile(rf"\b{_NEXT}\s+(?:(?P<n>{COUNT})\s+)?{_UNIT}s?\b"), _next),
    (
        re.compile(rf"\b(?P<year>{_YEAR})(?:\s*-?\s*{_W}|\s+{_WEEK_WORDS}\s+)(?P<n>\d{{1,2}})\b"),
        _week,
    ),
    (
        re.compile(
            rf"\b{_WEEK_WORDS}\.?\s*(?:#\s*)?(?P<n>\d{{1,2}})(?!\d){_NO_MONEY_WORD}{_YEAR_REF}\b"
        ),
        _week,
    ),
    (re.compile(rf"\b{_any('dates.today')}\b"), _day(0)),
    (re.compile(rf"\b{_any('dates.yesterday')}\b"), _day(-1)),
    (re.compile(rf"\b{_any('dates.tomorrow')}\b"), _day(1)),
    (re.compile(rf"(?P<a>{_POINT})"), _point),
]


_START_OF = re.compile(rf"\b{_THE}{_any('dates.start_of')}\s+{_THE}")
_END_OF = re.compile(rf"\b{_THE}{_any('dates.end_of')}\s+{_THE}")
_RANGE_FROM = re.compile(rf"\b{_any('dates.range_from')}\s+$")
_RANGE_TO = re.compile(rf"\s*(?:{_any('dates.range_to')})\s*")
_NOW = re.compile(rf"(?:{_any('dates.now')})\b")
_ENDING = re.compile(rf"\b{_THE}(?P<n>{COUNT})\s+{_UNIT}s?\s+{_any('dates.ending')}\s+{_THE}")
_PREFIX = {
    "since": re.compile(rf"\b{_any('dates.since')}\s+{_THE}"),
    "after": re.compile(rf"\b{_any('dates.after')}\s+{_THE}"),
    "before": re.compile(rf"\b{_any('dates.before')}\s+{_THE}"),
    "until": re.compile(rf"\b{_any('dates.until')}\s+{_THE}"),
}


@dataclass(frozen=True)
class _Phrase:
    """A period phrase found in the text: where, and what it names."""

    start: int
    end: int
    found: _Period | DateProblem


def _simple_at(text: str, pos: int, as_of: date) -> _Phrase | None:
    """A phrase starting exactly at ``pos``: a simple one, or the start or end of one."""
    for edge, pattern in (("start", _START_OF), ("end", _END_OF)):
        if edge_match := pattern.match(text, pos):
            inner = _simple_at(text, edge_match.end(), as_of)
            if inner and isinstance(inner.found, _Period):
                day = inner.found.start if edge == "start" else inner.found.end
                return _Phrase(pos, inner.end, _Period(day, day, inner.found.has_year))
    for pattern, resolve in _SIMPLE:
        match = pattern.match(text, pos)
        if match and (found := resolve(match, as_of)) is not None:
            return _Phrase(pos, match.end(), found)
    return None


def _phrases(text: str, as_of: date) -> Iterator[_Phrase]:
    """Every phrase of the text that starts a word, in text order."""
    for match in re.finditer(r"(?<!\w)(?=[\w'])", text):
        if phrase := _simple_at(text, match.start(), as_of):
            yield phrase


def _ranged(first: _Period, second: _Period) -> tuple[_Period, _Period]:
    """The ends of a range, the year of one given to the other that lacks it ("between
    January and April 2024", "from June 2024 to March")."""
    if second.has_year and not first.has_year:
        year = second.start.year - (first.start.month > second.start.month)
        return _in_year(first, year), second
    if first.has_year and not second.has_year:
        year = first.start.year + (second.start.month < first.start.month)
        return first, _in_year(second, year)
    return first, second


def _in_year(period: _Period, year: int) -> _Period:
    moved = DateRange(period.start, period.end, (0, 0), False).in_year(year)
    assert moved.start and moved.end
    return _Period(moved.start, moved.end, True)


def _range(text: str, phrases: list[_Phrase], as_of: date) -> tuple[_Found, int, int] | None:
    """Two periods joined by "to", "and", "until", "-" ..., with "from" or "between" before
    the first; a list before them ("January, February and March") widens it. The range stops
    at ``as_of``."""
    by_start = {p.start: p for p in phrases}
    for first in phrases:
        join = _RANGE_TO.match(text, first.end)
        if not join:
            continue
        second = by_start.get(join.end())
        now = None if second else _NOW.match(text, join.end())
        if second is None and now is None:
            continue
        start = first.start
        if lead := _RANGE_FROM.search(text[:start]):
            start = lead.start()
        for found in (first.found, second.found if second else None):
            if isinstance(found, DateProblem):
                return found, start, (second.end if second else join.end())
        assert isinstance(first.found, _Period)
        if now is not None:
            return _Period(first.found.start, as_of), start, now.end()
        assert second is not None and isinstance(second.found, _Period)
        a, b = _ranged(first.found, second.found)
        start, a = _widened(text, phrases, start, a)
        if b.end < a.start:
            between = text[first.end : second.start]
            fix = f"{_period_name(b)}{between}{_period_name(a)}"
            return DateProblem("date_backwards", (first.start, second.end), fix=fix), start, 0
        return _Period(a.start, min(b.end, as_of)), start, second.end
    return None


def _widened(text: str, phrases: list[_Phrase], start: int, first: _Period) -> tuple[int, _Period]:
    """The start of a range pushed back over a list before it: "January, February and March
    2025" starts in January (in the year the list gives)."""
    by_end = {p.end: p for p in phrases}
    while before := re.search(r",\s*$", text[:start]):
        earlier = by_end.get(before.start())
        if earlier is None or not isinstance(earlier.found, _Period):
            break
        found = earlier.found
        if not found.has_year and first.has_year:
            found = _in_year(found, first.start.year - (found.start > first.start))
        first = _Period(min(found.start, first.start), first.end, first.has_year)
        start = earlier.start
    return start, first


def _settled(
    found: _Bounds | DateProblem, span: tuple[int, int], as_of: date, has_year: bool = True
) -> DateRange | DateProblem:
    """The range found, unless it is a problem or starts after ``as_of``."""
    if isinstance(found, DateProblem):
        return found
    start, end = found
    if start is not None and start > as_of:
        return DateProblem("date_future", span, {"day": as_of})
    return DateRange(start, end, span, has_year)


def _prefixed(text: str, as_of: date) -> DateRange | DateProblem | None:
    """A period with one end open: "since X", "after X", "before X", "until X"."""
    found: list[tuple[int, str, re.Match[str]]] = []
    for keyword, pattern in _PREFIX.items():
        found += [(m.start(), keyword, m) for m in pattern.finditer(text)]
    for _, keyword, match in sorted(found, key=lambda f: f[0]):
        phrase = _simple_at(text, match.end(), as_of)
        if phrase is None:
            continue
        if isinstance(phrase.found, DateProblem):
            return phrase.found
        start, end = phrase.found.start, phrase.found.end
        bounds: _Bounds
        if keyword == "before":
            bounds = (None, min(start - timedelta(days=1), as_of))
        elif keyword == "until":
            bounds = (None, min(end, as_of))
        else:
            bounds = (end + timedelta(days=1) if keyword == "after" else start, as_of)
        return _settled(bounds, (match.start(), phrase.end), as_of)
    return None


def _ending(text: str, as_of: date) -> DateRange | DateProblem | None:
    """ "the 12 months to June 2025": N whole units ending with the period named."""
    for match in _ENDING.finditer(text):
        n = parse_count(match.group("n"))
        phrase = _simple_at(text, match.end(), as_of)
        if not n or phrase is None or not isinstance(phrase.found, _Period):
            continue
        unit = _UNIT_NAMES[match.group("unit")]
        first = _shift(_unit_start(phrase.found.end, unit), unit, 1 - n)
        return _settled((first, min(phrase.found.end, as_of)), (match.start(), phrase.end), as_of)
    return None


def find_date_range(text: str, as_of: date) -> DateRange | DateProblem | None:
    """The date range named in a normalised question, why the phrase naming it cannot be
    used, or None when it names none."""
    if (ending := _ending(text, as_of)) is not None:
        return ending
    phrases = list(_phrases(text, as_of))
    if ranged := _range(text, phrases, as_of):
        found, start, end = ranged
        if isinstance(found, DateProblem):
            return found
        assert isinstance(found, _Period)
        return _settled((found.start, found.end), (start, end), as_of)
    if (prefixed := _prefixed(text, as_of)) is not None:
        return prefixed
    for pattern, resolve in _SIMPLE:
        for match in pattern.finditer(text):
            if (found := resolve(match, as_of)) is not None:
                if isinstance(found, DateProblem):
                    return found
                return _settled((found.start, found.end), match.span(), as_of, found.has_year)
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
    return first, bucket_end(first, unit)


def year_earlier(start: date, end: date) -> tuple[date, date]:
    """The same days a year earlier: "the same period last year" (Feb 29 becomes Feb 28)."""
    return start - relativedelta(years=1), end - relativedelta(years=1)


def warm_up() -> None:
    """dateparser loads its language data on first use (~150 ms); pay that once, up front."""
    _read_point("march 1", date(2000, 1, 1))
