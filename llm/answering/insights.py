"""Answers of the kinds people ask once the totals are right: shares, peak periods, the biggest
changes, balances over time, recurring payments and charges worth a second look, and under every
answer with numbers the line that says how they were made (``basis_note``).

Every number comes from the result; every sentence from the language's templates.
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from elastic.model.calendar import bucket_end
from elastic.model.plan import Change, Direction, IntentPlan, Metric, Peak, ShareOf
from elastic.model.records import Transaction
from elastic.model.results import (
    AccountBalance,
    AnomalyResult,
    BalanceResult,
    Basis,
    ChangesResult,
    DayBalance,
    DoubleCharge,
    GroupChange,
    PeakResult,
    RecurringResult,
    RecurringSeries,
    ShareResult,
)
from elastic.query.flows import whole_of
from llm.answering.answer import Citation, Note, Part, Prose, Table
from llm.answering.citing import (
    Composed,
    per_currency,
    plain,
    row_citation,
    scope,
    transactions_citation,
)
from llm.answering.wording import Wording, account_label

MAX_LISTED = 3  # changes, series and charges named in a sentence (the table has them all)
MAX_GAPS = 3
MAX_ROWS = 25
RECURRING_COLUMNS = (
    "merchant", "cadence", "amount", "monthly", "since", "last", "status", "price_changes"
)  # fmt: skip


def _shown(value: Decimal | None, metric: Metric, currency: str, w: Wording) -> str:
    if value is None:
        return w.text("format.money_missing")
    return w.number(int(value)) if metric is Metric.count else w.money(value, currency)


def _subject(plan: IntentPlan, w: Wording) -> str:
    """What a share is of the whole: the names or words the plan narrows to."""
    names = [*plan.categories, *plan.merchants]
    if names:
        return w.names(names)
    if plan.text:
        return f"“{plan.text}”"
    return w.text("share.these")


# --- shares -------------------------------------------------------------------------------------


def compose_share(plan: IntentPlan, result: ShareResult, n: int, w: Wording) -> Composed:
    """The share in percent with both amounts, each cited: dining as a share of spending,
    spending on rent as a share of income, net cash flow as a share of income (kept)."""
    if result.by_currency:
        return per_currency(plan, result.by_currency, compose_share, w)
    part_plan = plan.model_copy(update={"share_of": None})
    whole_plan = whole_of(part_plan, result.share_of)
    part, whole = result.part, result.whole
    cited = [
        transactions_citation(n, part_plan, part.count, w),
        transactions_citation(n + 1, whole_plan, whole.count, w),
    ]
    where = scope(whole_plan, w)
    if result.pct is None:
        noun = w.direction_noun(whole_plan.direction)
        return [Prose(w.text("share.no_whole", whole_noun=noun, scope=where, n=n + 1))], cited
    fields = {
        "pct": w.percent(result.pct),
        "part": w.money(part.value, result.currency),
        "whole": w.money(whole.value, result.currency),
        "scope": where,
        "n": n,
        "m": n + 1,
    }
    if result.share_of is ShareOf.income and plan.direction is Direction.net:
        key = "share.saved" if (part.value or 0) >= 0 else "share.overspent"
        return [Prose(w.text(key, **fields))], cited
    text = w.text(
        f"share.{result.share_of.value}",
        subject=_subject(plan, w),
        noun=w.direction_noun(plan.direction),
        part_count=w.number(part.count),
        whole_count=w.plural(whole.count, "transaction"),
        **fields,
    )
    return [Prose(text)], cited


# --- peaks --------------------------------------------------------------------------------------


def compose_peak(plan: IntentPlan, result: PeakResult, n: int, w: Wording) -> Composed:
    """The highest or lowest interval with its value, cited alone, then the series it is
    the peak of: its span and the other extreme."""
    if result.by_currency:
        return per_currency(plan, result.by_currency, compose_peak, w)
    trend, bucket = result.trend, result.bucket
    interval = trend.interval.value
    noun = w.direction_noun(plan.direction)
    counted = sum(b.count for b in trend.series)
    series_citation = transactions_citation(n + 1, plan, counted, w)
    if bucket is None:
        text = w.text("peak.none", noun=noun, scope=scope(plan, w), n=n + 1)
        return [Prose(text)], [series_citation]
    end = bucket_end(bucket.period, trend.interval)
    bucket_plan = plan.model_copy(
        update={
            "date_from": max(bucket.period, plan.date_from or bucket.period),
            "date_to": min(end, plan.date_to or end),
        }
    )
    cited = [transactions_citation(n, bucket_plan, bucket.count, w), series_citation]
    text = w.text(
        "peak.text",
        which=w.text(f"peak.{result.peak.value}"),
        unit=w.unit(trend.interval),
        noun=noun,
        scope=scope(plan, w),
        period=w.bucket_label(bucket.period, interval),
        value=_shown(bucket.value, plan.metric, trend.currency, w),
        transactions=w.plural(bucket.count, "transaction"),
        n=n,
    )
    valued = [b for b in trend.series if b.count and b.shown(plan.metric) is not None]
    other = (min if result.peak is Peak.highest else max)(valued, key=lambda b: b.value)
    text += " " + w.text(
        "peak.rest",
        buckets=w.plural(len(trend.series), interval),
        first=w.bucket_label(trend.series[0].period, interval),
        last=w.bucket_label(trend.series[-1].period, interval),
        other=w.text(f"peak.{'lowest' if result.peak is Peak.highest else 'highest'}"),
        other_period=w.bucket_label(other.period, interval),
        other_value=_shown(other.value, plan.metric, trend.currency, w),
        m=n + 1,
    )
    if result.ties:
        text += " " + w.text("peak.ties", others=w.plural(result.ties, interval))
    if result.empty:
        text += " " + w.text("peak.empty", buckets=w.plural(result.empty, interval))
    return [Prose(text)], cited


# --- the biggest changes ------------------------------------------------------------------------


def _change_item(row: GroupChange, group: str, metric: Metric, currency: str, w: Wording) -> str:
    difference = row.difference or Decimal(0)
    amount = _shown(abs(difference), metric, currency, w)
    name = w.group_key(group, row.key)
    if not row.first:
        return w.text("changes.new", name=name, amount=amount)
    pct = w.change(row.change_pct) if row.change_pct is not None else ""
    direction = "up" if difference > 0 else "down" if difference < 0 else "same"
    return w.text(f"changes.{direction}", name=name, amount=amount, pct=pct)


def compose_changes(plan: IntentPlan, result: ChangesResult, n: int, w: Wording) -> Composed:
    """The groups that grew or shrank most between two periods, each period cited, and the
    table of every group's figures, difference and change."""
    if result.by_currency:
        return per_currency(plan, result.by_currency, compose_changes, w)
    cited = [
        transactions_citation(n + i, side.plan, side.result.count, w)
        for i, side in enumerate(result.sides)
    ]
    group = result.group_by.value
    labels = [w.side_label(side.side) for side in result.sides]
    filters = w.describe_filters(plan)
    noun = w.direction_noun(plan.direction)
    fields = {
        "noun": w.text("changes.count_noun") if plan.metric is Metric.count else noun,
        "group": w.group_word(group),
        "scope": f" {filters}" if filters else "",
        "first": labels[0],
        "last": labels[1],
        "n": n,
        "m": n + 1,
    }
    if not result.rows:
        return [Prose(w.text("changes.none", **fields))], cited
    moved = [r for r in result.rows if r.difference]
    if result.change is Change.grew:
        moved = [r for r in moved if (r.difference or 0) > 0]
    elif result.change is Change.shrank:
        moved = [r for r in moved if (r.difference or 0) < 0]
    order = result.change.value if result.change else "either"
    if not moved:
        return [Prose(w.text(f"changes.nothing_{order}", **fields))], cited
    listed = w.text("changes.separator").join(
        _change_item(r, group, plan.metric, result.currency, w) for r in moved[:MAX_LISTED]
    )
    text = w.text(f"changes.{order}", listed=listed, **fields)
    table = Table(
        columns=(
            w.text(f"column.{group}"),
            labels[0],
            labels[1],
            w.text("column.change"),
            w.text("column.change_pct"),
        ),
        numeric=(False, True, True, True, True),
        rows=tuple(
            (
                w.group_key(group, r.key),
                _shown(r.first, plan.metric, result.currency, w),
                _shown(r.last, plan.metric, result.currency, w),
                _shown(r.difference, plan.metric, result.currency, w),
                w.change(r.change_pct) if r.change_pct is not None else "",
            )
            for r in result.rows[:MAX_ROWS]
        ),
        more=_more(len(result.rows), w),
    )
    return [Prose(text), table], cited


def _more(count: int, w: Wording) -> str | None:
    more = count - MAX_ROWS
    return w.text("aggregate.more", count=w.number(more)) if more > 0 else None


# --- balances -----------------------------------------------------------------------------------


def _account(account: AccountBalance) -> str:
    return account_label(plain(account.account_name), account.account_no)


def _day_citation(
    n: int, plan: IntentPlan, account: AccountBalance, day: DayBalance, w: Wording
) -> Citation:
    """The account's rows up to the end of ``day`` since the period began: what the balance
    was carried over."""
    rows = plan.model_copy(
        update={
            "accounts": [account.account_name],
            "direction": Direction.any,
            "currency": account.currency,
            "date_from": plan.date_from
            if plan.date_from and plan.date_from <= day.day
            else day.day,
            "date_to": day.day,
            "metric": Metric.sum,
        }
    )
    citation = transactions_citation(n, rows, 0, w)
    source = w.text("citation.balance", account=_account(account), scope=w.describe_period(rows))
    return replace(citation, source=source)


def _balance_sentence(
    plan: IntentPlan, result: BalanceResult, account: AccountBalance, n: int, w: Wording
) -> tuple[str, DayBalance | None]:
    name = _account(account)
    if not account.known_from:
        return w.text("balance.unknown", account=name), None
    where = w.describe_period(plan)
    if result.interval is not None:
        shown = account.at_ends(result.interval)
        if not shown:
            return w.text("balance.none_in_period", account=name, scope=where), None
        high, low, last = account.highest(), account.lowest(), shown[-1]
        assert high is not None and low is not None
        text = w.text(
            "balance.series",
            account=name,
            adverb=w.interval_adverb(result.interval),
            scope=where,
            high=w.money(high.amount, account.currency),
            high_day=w.day_label(high.day),
            low=w.money(low.amount, account.currency),
            low_day=w.day_label(low.day),
            last=w.money(last.amount, account.currency),
            last_day=w.day_label(last.day),
            n=n,
        )
        return text, last
    if result.metric in (Metric.min, Metric.max):
        day = account.lowest() if result.metric is Metric.min else account.highest()
        if day is None:
            return w.text("balance.none_in_period", account=name, scope=where), None
        key = "balance.lowest" if result.metric is Metric.min else "balance.highest"
        text = w.text(
            key,
            account=name,
            scope=where,
            amount=w.money(day.amount, account.currency),
            day=w.day_label(day.day),
            n=n,
        )
        return text, day
    latest = account.latest
    asked = plan.date_to
    if latest is None:  # the day asked is before the first balance known
        assert account.known_from and account.known_to
        text = w.text(
            "balance.before",
            account=name,
            asked=w.day_label(asked) if asked else w.text("period.all"),
            first=w.day_label(account.known_from),
            last=w.day_label(account.known_to),
        )
        return text, None
    key = "balance.on_day" if asked is None or latest.day == asked else "balance.latest"
    amount = w.money(latest.amount, account.currency)
    return w.text(key, account=name, day=w.day_label(latest.day), amount=amount, n=n), latest


def compose_balances(plan: IntentPlan, result: BalanceResult, n: int, w: Wording) -> Composed:
    """Per account: its balance on the day, its lowest or highest, or its balances over the
    period, cited by the rows they were carried over; where no balance is known, so; and
    every gap between a stated balance and the rows."""
    parts: list[Part] = []
    citations: list[Citation] = []
    if not result.accounts:
        return [Prose(w.text("balance.no_accounts"))], []
    for account in result.accounts:
        text, day = _balance_sentence(plan, result, account, n + len(citations), w)
        if day is not None:
            citations.append(_day_citation(n + len(citations), plan, account, day, w))
        parts.append(Prose(text))
        for gap in account.gaps[:MAX_GAPS]:
            parts.append(
                Note(
                    w.text(
                        "balance.gap",
                        account=_account(account),
                        day=w.day_label(gap.day),
                        source=plain(gap.source),
                        stated=w.money(gap.stated, account.currency),
                        computed=w.money(gap.computed, account.currency),
                        difference=w.money(gap.difference, account.currency),
                    )
                )
            )
        if len(account.gaps) > MAX_GAPS:
            more = w.number(len(account.gaps) - MAX_GAPS)
            parts.append(Note(w.text("balance.more_gaps", count=more)))
    return parts, citations


# --- recurring payments -------------------------------------------------------------------------


def _series_plan(plan: IntentPlan, series: RecurringSeries) -> IntentPlan:
    return plan.model_copy(
        update={
            "merchants": [series.merchant],
            "currency": series.currency,
            "date_from": series.first,
            "date_to": series.last,
            "text": None,
        }
    )


def _status(series: RecurringSeries, w: Wording) -> str:
    return w.text("recurring.active" if series.active else "recurring.stopped")


def _price_changes(series: RecurringSeries, w: Wording) -> str:
    return w.text("filter.list_separator").join(
        w.text(
            "recurring.change",
            before=w.money(change.before, series.currency),
            after=w.money(change.after, series.currency),
            day=w.day_label(change.day),
        )
        for change in series.price_changes
    )


def _one_series(plan: IntentPlan, series: RecurringSeries, n: int, w: Wording) -> str:
    text = w.text(
        "recurring.one",
        merchant=plain(series.merchant),
        cadence=w.cadence(series.cadence, series.every),
        amount=w.money(series.amount, series.currency),
        first=w.day_label(series.first),
        charges=w.plural(series.count, "charge"),
        last=w.day_label(series.last),
        n=n,
    )
    if not series.active:
        text += " " + w.text("recurring.looks_stopped")
    if series.price_changes:
        text += " " + w.text("recurring.changes", listed=_price_changes(series, w))
    return text


def compose_recurring(plan: IntentPlan, result: RecurringResult, n: int, w: Wording) -> Composed:
    """A listing: the series in a table (cadence, current amount, monthly cost, since, last
    charge, stopped or not, price changes); an aggregate: what the active ones cost a month,
    per currency. Each series is cited by its rows."""
    kind = "in" if result.direction is Direction.in_ else "out"
    where = named(plan, w)
    if not result.series:
        return [Prose(tidy(w.text(f"recurring.none_{kind}", scope=where, n=n)))], [
            transactions_citation(n, plan, 0, w)
        ]
    citations = [
        transactions_citation(n + i, _series_plan(plan, s), s.count, w)
        for i, s in enumerate(result.series[:MAX_ROWS])
    ]
    monthly = w.text("filter.list_separator").join(
        w.money(value, currency) for currency, value in result.monthly.items()
    ) or w.money(Decimal(0), result.series[0].currency)
    active = [s for s in result.series if s.active]
    if plan.intent.value == "aggregate":
        listed = w.text("filter.list_separator").join(
            w.text(
                "recurring.item", merchant=plain(s.merchant), amount=w.money(s.monthly, s.currency)
            )
            for s in active[:MAX_LISTED]
        )
        markers = "".join(f"[{c.n}]" for c in citations[: max(1, min(len(active), MAX_LISTED))])
        text = w.text(
            f"recurring.cost_{kind}",
            scope=where,
            monthly=monthly,
            listed=listed or w.text("basis.nothing"),
            active=w.plural(len(active), "series"),
            markers=markers,
        )
        return [Prose(tidy(text))], citations
    if len(result.series) == 1:
        return [Prose(_one_series(plan, result.series[0], n, w))], citations
    lead = w.text(
        f"recurring.lead_{kind}",
        count=w.number(len(result.series)),
        scope=where,
        active=w.number(len(active)),
        monthly=monthly,
        markers="".join(f"[{c.n}]" for c in citations[:MAX_LISTED]),
    )
    changed = [s for s in result.series if s.price_changes]
    if changed:
        lead += " " + w.text(
            "recurring.changed",
            listed=w.text("filter.list_separator").join(
                f"{plain(s.merchant)} ({_price_changes(s, w)})" for s in changed[:MAX_LISTED]
            ),
        )
    table = Table(
        columns=tuple(w.text(f"column.{c}") for c in RECURRING_COLUMNS),
        numeric=(False, False, True, True, False, False, False, False),
        rows=tuple(
            (
                plain(s.merchant),
                w.cadence(s.cadence, s.every),
                w.money(s.amount, s.currency),
                w.money(s.monthly, s.currency),
                s.first.isoformat(),
                s.last.isoformat(),
                _status(s, w),
                _price_changes(s, w),
            )
            for s in result.series[:MAX_ROWS]
        ),
        more=_more(len(result.series), w),
    )
    return [Prose(tidy(lead)), table], citations


# --- double and unusual charges -----------------------------------------------------------------


def _double_citation(n: int, plan: IntentPlan, double: DoubleCharge, w: Wording) -> Citation:
    rows = plan.model_copy(
        update={
            "merchants": [double.rows[0].merchant] if double.rows[0].merchant else [],
            "text": None if double.rows[0].merchant else double.merchant,
            "currency": double.currency,
            "date_from": double.rows[0].date,
            "date_to": double.rows[-1].date,
            "min_amount": double.amount,
            "max_amount": double.amount,
        }
    )
    return transactions_citation(n, rows, len(double.rows), w)


def _double_sentence(double: DoubleCharge, n: int, w: Wording) -> str:
    first, last = double.rows[0].date, double.rows[-1].date
    fields = {
        "merchant": plain(double.merchant),
        "amount": w.money(double.amount, double.currency),
        "times": w.plural(len(double.rows), "time"),
        "n": n,
    }
    if first == last:
        return w.text("anomaly.double_day", day=w.day_label(first), **fields)
    return w.text("anomaly.double", first=w.day_label(first), last=w.day_label(last), **fields)


def _high_sentence(
    row: Transaction, usual: Decimal, charges: int, times: Decimal, n: int, w: Wording
) -> str:
    return w.text(
        "anomaly.high",
        merchant=plain(row.merchant or row.description),
        amount=w.money(abs(row.amount), row.currency),
        day=w.day_label(row.date),
        times=w.number(times),
        usual=w.money(usual, row.currency),
        charges=w.plural(charges, "charge"),
        n=n,
    )


def compose_anomalies(plan: IntentPlan, result: AnomalyResult, n: int, w: Wording) -> Composed:
    """Each double charge and each charge far above usual, cited by its rows; when there is
    none, how many charges were looked at."""
    where = scope(plan, w)
    examined = transactions_citation(n, plan, result.rows, w)
    sentences: list[str] = []
    citations: list[Citation] = []
    for double in result.doubles[:MAX_ROWS]:
        citation = _double_citation(n + len(citations), plan, double, w)
        citations.append(citation)
        sentences.append(_double_sentence(double, citation.n, w))
    for high in result.high[:MAX_ROWS]:
        citation = row_citation(n + len(citations), plan, high.row, w)
        citations.append(citation)
        sentences.append(
            _high_sentence(high.row, high.usual, high.charges, high.times, citation.n, w)
        )
    kind = plan.anomaly.value if plan.anomaly else "any"
    charges = w.plural(result.rows, "charge")
    if not sentences:
        text = w.text(f"anomaly.none_{kind}", scope=where, charges=charges, n=n)
        return [Prose(text)], [examined]
    key = {"double": "anomaly.lead_double", "high": "anomaly.lead_high"}.get(kind, "anomaly.lead")
    lead = w.text(
        key,
        doubles=w.plural(len(result.doubles), "double_charge"),
        high=w.plural(len(result.high), "high_charge"),
        scope=where,
        charges=charges,
    )
    return [Prose(lead + " " + " ".join(sentences))], citations


# --- how the numbers were made ------------------------------------------------------------------


def basis_note(basis: Basis, w: Wording) -> Note:
    """One line under an answer: what it counted and what it left out, with counts."""
    if basis.kind == "balances":
        text = w.text(
            "basis.balances",
            stated=w.plural(basis.stated, "stated_balance"),
            transactions=w.plural(basis.counted, "transaction"),
            gaps=w.text("basis.gaps", count=w.number(basis.gaps))
            if basis.gaps
            else w.text("basis.no_gaps"),
        )
        if basis.unknown:
            text += " " + w.text("basis.unknown", count=w.number(basis.unknown))
        return Note(text)
    if basis.kind == "facts":
        return Note(w.text("basis.facts", count=w.number(basis.counted)))
    left = []
    if basis.transfers:
        left.append(w.text("basis.transfers", count=w.number(basis.transfers)))
    if basis.other_direction:
        opposite = "money_in" if basis.direction is Direction.out else "money_out"
        left.append(w.text(f"basis.{opposite}", count=w.number(basis.other_direction)))
    if basis.other_currencies:
        listed = w.text("filter.list_separator").join(
            f"{code} {w.number(count)}" for code, count in basis.other_currencies.items()
        )
        left.append(w.text("basis.currencies", listed=listed))
    kind = basis.direction.value if basis.direction in (Direction.out, Direction.in_) else "any"
    counted = w.text(f"basis.counted_{kind}", transactions=w.plural(basis.counted, "transaction"))
    if basis.currency:
        counted += w.text("basis.in_currency", currency=basis.currency)
    text = w.text(
        "basis.rows",
        counted=counted,
        left=w.text("filter.list_separator").join(left) or w.text("basis.nothing"),
    )
    return Note(text)


def named(plan: IntentPlan, w: Wording) -> str:
    """The plan's filters, and its period only when it has one."""
    return scope(plan, w) if plan.date_from or plan.date_to else w.describe_filters(plan)


_SPACES = re.compile(r" {2,}")
_BEFORE_COMMA = re.compile(r" +(?=[,.،])")


def tidy(text: str) -> str:
    """A sentence without the spaces an empty field left ("payments  found", "payments ,")."""
    return _BEFORE_COMMA.sub("", _SPACES.sub(" ", text))


def first_or_last(plan: IntentPlan, row: Transaction, total: int, w: Wording) -> Composed:
    """The first or last matching transaction (a one-row listing by date), cited alone, and
    how many match in all."""
    kind = plan.direction.value if plan.direction in (Direction.out, Direction.in_) else "any"
    which = "first" if plan.sort.value == "oldest" else "last"
    amount = row.amount if kind == "any" else abs(row.amount)
    text = w.text(
        f"listing.{which}_{kind}",
        scope=named(plan, w),
        day=w.day_label(row.date),
        description=plain(row.description, row.account_no),
        amount=w.money(amount, row.currency),
        account=account_label(plain(row.account_name), row.account_no),
        matching=w.plural(total, "matching transaction"),
        transactions=w.plural(total, "transaction"),
    )
    cited = [row_citation(1, plan, row, w), transactions_citation(2, plan, total, w)]
    return [Prose(tidy(text))], cited
