"""Calendar arithmetic both engines use: which bucket a day falls in, and stepping by one.

The SQLite engine registers :func:`bucket_start` as an SQL function, so its buckets are these
very dates; Elasticsearch's ``calendar_interval`` histograms agree with them (weeks start Monday).
"""

from __future__ import annotations

from datetime import date, timedelta

from dateutil.relativedelta import relativedelta

from elastic.model.plan import Interval


def bucket_start(day: date, interval: Interval) -> date:
    """The calendar bucket a day falls in, labelled by its first day (weeks start Monday)."""
    if interval is Interval.day:
        return day
    if interval is Interval.week:
        return day - timedelta(days=day.weekday())
    if interval is Interval.month:
        return day.replace(day=1)
    if interval is Interval.quarter:
        return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    return date(day.year, 1, 1)


_STEP = {
    Interval.day: relativedelta(days=1),
    Interval.week: relativedelta(weeks=1),
    Interval.month: relativedelta(months=1),
    Interval.quarter: relativedelta(months=3),
    Interval.year: relativedelta(years=1),
}


def shift(start: date, interval: Interval, n: int) -> date:
    """``start`` moved by ``n`` calendar intervals (negative: back in time)."""
    return start + _STEP[interval] * n


def bucket_end(start: date, interval: Interval) -> date:
    """The last day of the calendar bucket that begins on ``start``."""
    return shift(start, interval, 1) - timedelta(days=1)


def bucket_starts(first: date, last: date, interval: Interval) -> list[date]:
    current, end = bucket_start(first, interval), bucket_start(last, interval)
    starts = []
    while current <= end:
        starts.append(current)
        current = shift(current, interval, 1)
    return starts
