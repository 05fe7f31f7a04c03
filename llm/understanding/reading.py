"""What one question says, found once before any rule decides what it asks.

``Reader.read`` normalises the question, finds account numbers, dates (one per side of a
comparison), amounts, names of the user's data, cue words and names the data may not have,
blanking each phrase out as it is found so the next finder skips it. The ``Reading`` holds all
of it, with properties the rules ask ("is it a listing?", "which interval?").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta

from elastic.model.calendar import bucket_end, bucket_start, shift
from elastic.model.plan import (
    MAX_LIMIT,
    MAX_SIDES,
    TRANSFERS_CATEGORY,
    Anomaly,
    Change,
    CompareSide,
    Direction,
    GroupBy,
    IntentPlan,
    Interval,
    Metric,
    PaymentKind,
    Peak,
    ShareOf,
    SortOrder,
)
from elastic.model.results import Vocabulary
from llm.embeddings import model_words
from llm.understanding import lexicon
from llm.understanding import patterns as p
from llm.understanding.amounts import AmountBounds, find_amount_bounds
from llm.understanding.arabic_names import ARABIC_LETTERS, arabic_skeletons
from llm.understanding.dates import DateRange, find_date_range, unit_before, year_earlier
from llm.understanding.language import question_language
from llm.understanding.problems import Problem
from llm.understanding.text_norm import blank, normalize, parse_count
from llm.understanding.typos import corrected, lexicon_words
from llm.understanding.vocabulary import Kind, Tier, VocabMatch, VocabMatcher

FEES_CATEGORY = "Fees"
SIDE_FIELD = {Kind.account: "accounts", Kind.category: "categories", Kind.merchant: "merchants"}


@dataclass(frozen=True)
class RowKind:
    """A kind of row that only descriptions name: the spellings tried in the user's
    descriptions (the first found wins) and the direction it implies, if any."""

    pattern: re.Pattern[str]
    spellings: tuple[str, ...]
    direction: Direction | None = None


DESCRIBED_KINDS = tuple(
    RowKind(
        lexicon.cue(f"rows.described.{name}.words"),
        tuple(kind["spellings"]),
        Direction(kind["direction"]) if "direction" in kind else None,
    )
    for name, kind in lexicon.table("rows.described").items()
)
# How money moved, as questions name it ("by check", "ATM withdrawals"): the rows' payment_kind.
PAYMENT_KINDS = tuple(
    (PaymentKind(kind), lexicon.cue(f"payment_kinds.{kind}"))
    for kind in lexicon.table("payment_kinds")
)

# Arabic script: a bank or brand follows "بنك" or "بطاقة" ("بنك تشيس", "ببطاقة أمريكان إكسبريس").
_ARABIC_WORD = rf"{ARABIC_LETTERS}+"
_BANK_NAMED_ARABIC = re.compile(
    rf"(?<!\w)[وفبلك]{{0,2}}(?:(?P<bank>{lexicon.alternation('banks.bank')})|"
    rf"{lexicon.alternation('banks.held')})\s+(?:(?:{lexicon.alternation('banks.at')})\s+)?"
    rf"(?=(?P<name>{_ARABIC_WORD}(?:\s+{_ARABIC_WORD})?))"
)
_NOT_BANK_NAMES = frozenset(
    lexicon.words("banks.not_names")
    + lexicon.words("names.edge")
    + lexicon.words("banks.bank")
    + lexicon.words("banks.held")
)
_ARABIC_ARTICLE = re.compile(r"^(?:ال|لل)")


def _each(path: str) -> tuple[re.Pattern[str], ...]:
    """Each entry at ``path`` as a pattern of its own (entries name the same groups)."""
    return tuple(re.compile(rf"\b(?:{entry})\b") for entry in lexicon.words(path))


# Periods named from the previous question's: "the month before", "after that".
_FOLLOW_DATES = {
    kind: _each(f"follow_dates.{kind}")
    for kind in ("year_ago", "before", "after", "before_that", "after_that")
}
_NAME_PUNCTUATION = re.compile(r"[?!,;:(]|\s{2,}|\.(?:\s|$)")


@dataclass(frozen=True)
class Item:
    """What a side of a comparison can name: a period (``kind`` "period") or names of one
    kind (a field of ``CompareSide``), where it sits in the question."""

    kind: str
    span: tuple[int, int]
    values: tuple[str, ...] = ()
    period: DateRange | None = None


@dataclass(frozen=True)
class Comparison:
    sides: list[CompareSide]
    kinds: frozenset[str]  # what the sides replace in the shared filters


@dataclass(frozen=True)
class Reading:
    """What one question says, before it is shaped into a plan."""

    question: str
    text: str  # normalised
    rest: str  # normalised, with dates, amounts and account numbers blanked
    dates: DateRange | None
    amounts: AmountBounds | None
    problem: Problem | None  # a date or amount that cannot be used
    accounts: list[str]
    categories: list[str]
    merchants: list[str]
    unknown_name: str | None
    kind: RowKind | None
    # A kind of row only a matched name says ("top up" naming the merchant "Top-Up by"): it
    # gives the direction a question without direction words has, never a text filter.
    named_kind: RowKind | None
    direction: Direction | None
    fee_kind: str | None  # "overdraft fee": narrows Fees to the rows whose description says so
    unnamed: str  # ``rest`` without merchant names ("Website-Balance" asks for no balance)
    items: tuple[Item, ...] = ()  # periods and names, for a comparison
    foreign_account: str | None = None  # an account or bank the user has not loaded
    currency: str | None = None  # a currency named: "in euros"
    payment_kinds: tuple[PaymentKind, ...] = ()  # "by check", "ATM withdrawals"
    corrected: tuple[tuple[str, str], ...] = ()  # misspelt words put right: (as typed, right)
    # Everyday words for where money went that nothing else names ("my dog"), as written: for
    # placing by meaning.
    everyday: str | None = None
    tiers: frozenset[Tier] = frozenset()  # how the names of the user's data were found
    # One account asked for by a name several accounts answer to: the name as written and
    # the accounts ("my card" with two cards).
    ambiguous: tuple[str, tuple[str, ...]] | None = None

    def has(self, pattern: re.Pattern[str]) -> bool:
        return pattern.search(self.rest) is not None

    @property
    def interval(self) -> Interval | None:
        """The interval of a trend or grouping; "by day of the week" names days of the week,
        not days."""
        rest = blank(self.rest, [m.span() for m in p.GROUP_WEEKDAY.finditer(self.rest)])
        return next((iv for iv, pattern in p.INTERVALS if pattern.search(rest)), None)

    @property
    def group_by(self) -> GroupBy | None:
        groups = (
            (GroupBy.weekend, p.GROUP_WEEKEND),
            (GroupBy.weekday, p.GROUP_WEEKDAY),
            (GroupBy.category, p.GROUP_CATEGORY),
            (GroupBy.merchant, p.GROUP_MERCHANT),
            (GroupBy.account, p.GROUP_ACCOUNT),
        )
        found = next((group for group, pattern in groups if self.has(pattern)), None)
        # "break it down" is by category unless it names an interval ("by month")
        breakdown = self.has(p.BREAKDOWN) and self.interval is None
        return found or (GroupBy.category if breakdown else None)

    @property
    def limit(self) -> int | None:
        for pattern in p.LIMITS:
            for match in pattern.finditer(self.rest):
                n = parse_count(match.group("n"))
                if n:
                    return min(n, MAX_LIMIT)
        return None

    @property
    def sort(self) -> SortOrder | None:
        if self.has(p.LARGEST):
            return SortOrder.largest
        if self.has(p.SMALLEST):
            return SortOrder.smallest
        if self.has(p.OLDEST):
            return SortOrder.oldest
        return None

    @property
    def metric(self) -> Metric | None:
        if self.has(p.DISTINCT):
            return Metric.distinct
        if self.has(p.MEDIAN):
            return Metric.median
        if self.has(p.COUNT_METRIC):
            return Metric.count
        if self.has(p.AVERAGE):
            return Metric.avg
        extreme = p.SINGLE_EXTREME.search(self.rest)
        if extreme is None:
            return None
        sup = extreme.group("sup")
        return Metric.min if sup and re.fullmatch(p.SMALLEST_WORD, sup) else Metric.max

    @property
    def superlative(self) -> Metric | None:
        """A superlative on its own ("and the smallest?"): the largest or smallest of what
        was asked before."""
        if self.has(p.SMALLEST):
            return Metric.min
        return Metric.max if self.has(p.LARGEST) else None

    @property
    def per(self) -> Interval | None:
        """The interval a total is averaged over ("average per month"), if that is asked."""
        if self.metric is not Metric.avg or self.group_by or self.has(p.AVERAGE_ROW):
            return None
        return self.interval

    @property
    def cues(self) -> list[list[tuple[int, int]]]:
        """Where the sides of a comparison may split, tried in turn: at comparing words and
        the commas of a list ("Q1, Q2 or Q3"), at comparing words alone, then the same with
        "or" as the comparing word."""
        commas = [m.span() for m in re.finditer(",", self.rest)]
        tried = []
        for cue in (p.VERSUS, p.OR):
            found = [m.span() for m in cue.finditer(self.rest)]
            if found:
                tried += [sorted(found + commas), found] if commas else [found]
        return tried

    def comparison(self, extra: tuple[Item, ...] = ()) -> Comparison | None:
        """The sides the question compares: the kinds of item named between every pair of
        comparing words; "or" separates names only when the question asks which is more."""
        items = (*self.items, *extra)
        for cues in self.cues:
            found = _sides(items, cues)
            loose = all(p.OR.fullmatch(self.rest[a:b]) for a, b in cues)
            if found and loose and "period" not in found.kinds and not self.has(p.COMPARATIVE):
                continue  # "at Starbucks or Chipotle": both, not a comparison
            if found:
                return found
        return None

    @property
    def subject(self) -> bool:
        """Names something to compute over: a value, a direction, dates, amounts or rows."""
        return bool(
            self.accounts
            or self.categories
            or self.merchants
            or self.direction
            or self.dates
            or self.amounts
            or self.kind
            or self.payment_kinds
            or self.has(p.ROW_NOUN)
        )

    @property
    def is_text_qa(self) -> bool:
        """About statement text or terms ("What is the overdraft fee?"), not own activity."""
        if p.BALANCE.search(self.unnamed):
            return True
        if self.has(p.PERSONAL):
            return False
        if self.has(p.POLICY):
            return True
        if self.is_listing:
            return False
        if self.has(p.SINGLE_EXTREME):  # "What is the largest single charge?" is a row
            return False
        return bool(p.QUESTION_FORM.search(self.rest.strip())) and self.has(p.FEE_TERMS)

    @property
    def is_listing(self) -> bool:
        figure = self.has(p.AGGREGATE) or self.has(p.MEDIAN) or self.has(p.DISTINCT)
        if figure or self.has(p.TREND) or self.group_by or self.interval:
            return False
        if self.has(p.LIST_STRONG):
            return True
        if self.has(p.ROWS) and not self.has(p.AMOUNT_TALK):  # "Purchases at Target in May"
            return True
        # One row named with a list verb or a count: "every Uber ride", "the 3 smallest"; not
        # an amount's noun ("what were my expenses in April?").
        if self.has(p.AMOUNT_TALK) and self.limit is None and self.sort is None:
            return False
        return self.has(p.ROW_NOUN) and (self.has(p.LIST_VERB) or self.limit is not None)

    # --- kinds of question beyond totals --------------------------------------------------------

    @property
    def distinct_of(self) -> GroupBy:
        """What a distinct count counts: categories, accounts, else merchants."""
        found = p.DISTINCT.search(self.rest)
        after = self.rest[found.end() :].split()[:2] if found else []
        named = " ".join([found.group() if found else "", *after])
        if p.DISTINCT_CATEGORY.search(named):
            return GroupBy.category
        if p.DISTINCT_ACCOUNT.search(named):
            return GroupBy.account
        return GroupBy.merchant

    @property
    def savings_rate(self) -> bool:
        """Net cash flow as a share of income: "my savings rate", "% of my income I kept"."""
        return self.has(p.SAVINGS_RATE)

    @property
    def share_of(self) -> ShareOf | None:
        """A figure asked as a share: of income ("% of my income goes to rent", the savings
        rate), or of the same figure without its subject ("% of my spending on dining")."""
        if self.savings_rate:
            return ShareOf.income
        if not self.has(p.SHARE):
            return None
        return ShareOf.income if self.has(p.OF_INCOME) else ShareOf.total

    @property
    def peak(self) -> tuple[Peak, Interval] | None:
        """The highest or lowest interval asked for, and its unit: "which month ... most",
        "my cheapest month"."""
        if self.has(p.GROUP_WEEKDAY):  # "which day of the week": days of the week, grouped
            return None
        if named := p.PEAK_NAMED.search(self.rest):
            lowest = p.PEAK_LOWEST.fullmatch(named.group("sup"))
            return (Peak.lowest if lowest else Peak.highest), p.UNITS[named.group("unit")]
        which = p.PEAK_WHICH.search(self.rest)
        if which is None:
            return None
        high, low = p.PEAK_HIGHEST.search(self.rest), p.PEAK_LOWEST.search(self.rest)
        if not (high or low):
            return None
        first = min((m for m in (high, low) if m), key=lambda m: m.start())
        kind = Peak.lowest if first is low else Peak.highest
        return kind, p.UNITS[which.group("unit")]

    @property
    def asks_changes(self) -> bool:
        """Groups compared across two periods: which grew, shrank or changed most."""
        periods = sum(1 for item in self.items if item.kind == "period")
        changes = any(self.has(pattern) for pattern in p.CHANGES.values())
        return periods >= 2 and changes and self.has(p.CHANGES_GROUPS)

    @property
    def change(self) -> Change | None:
        """Which changes come first: rises, falls, or (None) the largest either way."""
        for name, pattern in p.CHANGES.items():
            if self.has(pattern):
                return None if name == "either" else Change(name)
        return None

    @property
    def balance(self) -> str | None:
        """A balance built from the rows: "min" or "max" over a period, a "trend", or on a
        "day"; None for a balance a statement states (opening, closing, due ...)."""
        if not p.BALANCE.search(self.unnamed) or p.BALANCE_STATED.search(self.unnamed):
            return None
        if self.has(p.BALANCE_LOWEST):
            return "min"
        if self.has(p.BALANCE_HIGHEST):
            return "max"
        if self.has(p.BALANCE_OVER_TIME) or self.has(p.TREND) or self.interval:
            return "trend"
        one_day = self.dates is not None and self.dates.start == self.dates.end
        return "day" if one_day and self.dates and self.dates.start else None

    @property
    def recurring(self) -> bool:
        return self.has(p.RECURRING)

    @property
    def recurring_cost(self) -> bool:
        """What recurring payments cost, rather than a list of them."""
        return self.has(p.RECURRING_COST) or self.has(p.HOW_MUCH)

    @property
    def anomaly(self) -> Anomaly | None:
        if self.has(p.DOUBLE):
            return Anomaly.double
        if self.has(p.HIGH):
            return Anomaly.high
        return Anomaly.any if self.has(p.UNUSUAL) else None

    @property
    def first_or_last(self) -> SortOrder | None:
        """The first payment (oldest) or the last (newest) asked for by when it was."""
        if self.has(p.FIRST):
            return SortOrder.oldest
        return SortOrder.newest if self.has(p.LAST) else None

    def facts(self) -> list[str]:
        """The statement fact the question asks the value of ("closing balance"), at most one."""
        if p.HOW_IT_WORKS.search(self.text):
            return []
        return next(([name] for name, pattern in p.FACTS if pattern.search(self.text)), [])


class Reader:
    """Reads questions against one user's vocabulary."""

    def __init__(self, vocabulary: Vocabulary, matcher: VocabMatcher) -> None:
        self.vocabulary = vocabulary
        self.matcher = matcher

    def read(self, question: str, as_of: date, previous: IntentPlan | None = None) -> Reading:
        """What ``question`` says, asked on ``as_of`` after ``previous`` (whose period the
        question may name a period from: "and the month before?")."""
        corrections: list[tuple[str, str]] = []
        known = self.matcher.known_words
        language = question_language(question)
        text = normalize(question, known, corrections, language)
        if language == lexicon.FIRST:
            text, fixed = corrected(text, known | _names_as_written(question, text))
            corrections += fixed
        accounts: list[str] = []
        spans: list[tuple[int, int]] = []
        for match in p.LAST4.finditer(text):
            account = self.matcher.account_by_last4(match.group("last4") or match.group("masked"))
            if account:
                accounts.append(account)
                spans.append(match.span())
        rest = blank(text, spans)
        items = [
            Item("accounts", span, (name,)) for span, name in zip(spans, accounts, strict=True)
        ]
        rest = _changes_joined(rest)
        if p.COMPARING.search(rest) and not p.VERSUS.search(rest):
            rest = _joined_as_versus(rest)
        relative = p.RELATIVE.search(rest)
        if relative:  # "the previous month" here is not last month
            rest = blank(rest, [relative.span("rel")])
        follow = _follow_period(rest, previous, as_of) if previous else None
        if follow:
            rest = blank(rest, [follow.span])
        dates = follow or find_date_range(rest, as_of)
        found, more = (None if follow else dates), MAX_SIDES
        while found:  # one period per side of a comparison; otherwise the first is the range
            rest = blank(rest, [found.span])
            if isinstance(found, DateRange):
                items.append(Item("period", found.span, period=found))
            more -= 1
            if not (more and p.COMPARING.search(rest)):
                break
            found = find_date_range(rest, as_of)
            if isinstance(found, Problem):
                dates = found
        items = _year_shared(items, as_of)
        periods = [item.period for item in items if item.period]
        if relative and len(periods) == 1 and (first := periods[0].start):
            side = _relative(relative, first, periods[0].end or first)
            items.append(Item("period", side.span, period=side))
        amounts = find_amount_bounds(rest)
        if isinstance(amounts, AmountBounds):
            rest = blank(rest, amounts.spans)
        problem = next((f for f in (dates, amounts) if isinstance(f, Problem)), None)
        currency = None
        for code, pattern in p.CURRENCIES:
            if named := pattern.search(rest):
                currency = code
                rest = blank(rest, [named.span()])
                break
        rest = blank(rest, [m.span() for m in p.WITHOUT_TRANSFERS.finditer(rest)])
        # "cash flow" is a direction, not the Cash category.
        matches = _qualified(
            self.matcher.find(blank(rest, [m.span() for m in p.NET.finditer(rest)])), rest
        )
        # Words inside a merchant's name say nothing about direction ("Best Buy").
        names = [m.span for m in matches if m.kind is Kind.merchant]
        direction = _direction(blank(rest, names))
        fee = p.FEE_KIND.search(rest)
        fee_spans = [fee.span()] if fee else []
        if fee:  # "ATM fees" are Fees rows, not spending at an ATM merchant
            matches = [m for m in matches if m.span[1] <= fee.start() or m.span[0] >= fee.end()]
        # What is asked, said in a phrase, outweighs an account's kind word or a category
        # inside it: "savings rate" is no savings account, and how money moved ("withdraw
        # cash") no Cash category. (A recurring "subscriptions" keeps its category.)
        asked = [m.span() for cue in p.KIND_CUES for m in cue.finditer(rest)]
        moved = [m.span() for _, cue in PAYMENT_KINDS for m in cue.finditer(blank(rest, fee_spans))]
        matches = [
            m
            for m in matches
            if not (m.kind is Kind.account and _inside(m.span, asked))
            and not (m.kind is Kind.category and _inside(m.span, moved))
        ]
        categories = _values(m.values for m in matches if m.kind is Kind.category)
        merchants = _values(m.values for m in matches if m.kind is Kind.merchant)
        if fee and FEES_CATEGORY in self.vocabulary.categories and FEES_CATEGORY not in categories:
            categories.append(FEES_CATEGORY)
        if not (categories or merchants):
            categories = [
                category
                for pattern, category in p.ROW_CATEGORIES
                if pattern.search(rest) and category in self.vocabulary.categories
            ][:1]
        for match in matches:
            if match.kind is Kind.account:
                destination = p.ACCOUNT_DESTINATION.search(rest[: match.span[0]])
                if destination and TRANSFERS_CATEGORY in categories:
                    continue
                accounts.extend(match.values)
            items.append(Item(SIDE_FIELD[match.kind], match.span, match.values))
        unmatched = blank(rest, [m.span for m in matches])
        paid = blank(unmatched, fee_spans)  # "ATM fees" are fees, not ATM withdrawals
        paid_spans = [(k, m.span()) for k, pattern in PAYMENT_KINDS for m in pattern.finditer(paid)]
        kinds = tuple(dict.fromkeys(kind for kind, _ in paid_spans))
        known = [m.span for m in matches] + fee_spans + [span for _, span in paid_spans]
        known += [m.span() for cue in p.KIND_CUES for m in cue.finditer(rest)]
        unmatched = blank(unmatched, [span for _, span in paid_spans])
        return Reading(
            question=question.strip(),
            text=text,
            rest=rest,
            dates=dates if isinstance(dates, DateRange) else None,
            amounts=amounts if isinstance(amounts, AmountBounds) else None,
            problem=problem,
            accounts=_values([accounts]),
            categories=categories,
            merchants=merchants,
            unknown_name=unknown_name(rest, known),
            kind=None
            if kinds
            else next((k for k in DESCRIBED_KINDS if k.pattern.search(unmatched)), None),
            named_kind=None
            if kinds
            else next((k for k in DESCRIBED_KINDS if k.pattern.search(rest)), None),
            direction=direction,
            fee_kind=p.FEE_KINDS[fee.group("kind")] if fee else None,
            unnamed=blank(rest, names),
            items=tuple(items),
            foreign_account=self._foreign_account(rest, known, question),
            currency=currency,
            payment_kinds=kinds,
            ambiguous=_ambiguous(rest, matches, question),
            corrected=tuple(corrections),
            tiers=frozenset(m.tier for m in matches),
            everyday=_everyday_phrase(unmatched, question),
        )

    def _foreign_account(
        self, rest: str, known: list[tuple[int, int]], question: str
    ) -> str | None:
        """An account named by a bank or brand the user has no account with, as written."""
        for match in p.ACCOUNT_NAMED.finditer(rest):
            start, end = match.span("name")
            if any(word in p.NAME_END for word in match.group("name").split()[1:]):
                continue  # "my spending by account": no name holds a linking word
            words = [w for w in match.group("name").split() if w not in p.ACCOUNT_ADJECTIVES]
            if not words or not overlaps_none(known, start, end):
                continue
            if not any(word in self.matcher.known_words for word in words):
                return as_written(" ".join(words), question)
        return self._foreign_bank_arabic(rest, known, question)

    def _foreign_bank_arabic(
        self, rest: str, known: list[tuple[int, int]], question: str
    ) -> str | None:
        """A bank or brand named in Arabic script that spells none of the user's banks or
        accounts, as written: any name after "بنك", one spelled from Latin letters after
        "بطاقة" or "حساب"."""
        for match in _BANK_NAMED_ARABIC.finditer(rest):
            start = match.start("name")
            words: list[str] = []
            for word in match.group("name").split():
                if word in _NOT_BANK_NAMES:
                    break
                if not match.group("bank") and (
                    _ARABIC_ARTICLE.match(word) or not arabic_skeletons(word)
                ):
                    break
                words.append(word)
            name = " ".join(words)
            if not name or not overlaps_none(known, start, start + len(name)):
                continue
            if not self.matcher.spells_loaded_bank(_ARABIC_ARTICLE.sub("", name)):
                return as_written(name, question)
        return None


def _names_as_written(question: str, text: str) -> frozenset[str]:
    """Words that are names, never misspellings: capitalised past the question's first word
    ("Lyft"), or where a name goes ("at lyft", "my lyft rides")."""
    capitalised = {
        w.casefold() for w in re.findall(r"(?<=\s)[^\W\d_][\w'&.-]*", question) if w[0].isupper()
    }
    placed = {
        match.group("name")
        for pattern in (p.NAME_AFTER, p.PAYEE, p.NAME_BEFORE_ROWS)
        for match in pattern.finditer(text)
    }
    return frozenset(capitalised | placed)


def _everyday_phrase(rest: str, question: str) -> str | None:
    """Everyday English words (up to three) for where money went, after "my", "the", "on" ...
    or before "costs", "bills", that no lexicon and no name of the user's data knows ("my
    dog", "car repairs cost"), as the user wrote them."""
    for pattern in (p.MEANING_AFTER, p.MEANING_BEFORE):
        for match in pattern.finditer(rest):
            words = match.group("name").split()
            if pattern is p.MEANING_AFTER:
                words = list(_until_end(words))
            else:
                words = list(reversed(list(_until_end(reversed(words)))))
            written = as_written(" ".join(words), question)
            if words and all(everyday_word(w) for w in words) and everyday(written, question):
                return written
    return None


def _until_end(words: Iterable[str]) -> Iterator[str]:
    for word in words:
        if word in p.NAME_END or word in p.NOT_NAMES:
            return
        yield word


def everyday_word(word: str) -> bool:
    """An English word of everyday speech that no lexicon knows."""
    return word.isalpha() and word in model_words() and word not in lexicon_words()


def everyday(written: str, question: str) -> bool:
    """Whether a name as written is everyday words (placed by meaning), not a proper name: in
    lower case in the question, and English words."""
    words = written.split()
    at = question.find(written)
    capitalised = any(w[:1].isupper() for w in words) and at > 0
    return not capitalised and all(w.casefold() in model_words() for w in words)


def _qualified(matches: list[VocabMatch], rest: str) -> list[VocabMatch]:
    """The matches without a kind of account that only qualifies the account named just
    before it: "my Sapphire card" is the Sapphire card, not every card."""
    kept: list[VocabMatch] = []
    for match in matches:
        before = kept[-1] if kept else None
        if (
            before is not None
            and match.kind is Kind.account
            and before.kind is Kind.account
            and not rest[before.span[1] : match.span[0]].strip()
            and set(before.values) < set(match.values)
        ):
            continue
        kept.append(match)
    return kept


def _ambiguous(
    rest: str, matches: list[VocabMatch], question: str
) -> tuple[str, tuple[str, ...]] | None:
    """A name of several accounts asked as one ("my card", "my Cedar Valley account"), as
    written, with the accounts it names."""
    for match in matches:
        if match.kind is not Kind.account or len(match.values) < 2:
            continue
        start, end = match.span
        following = re.match(r"\s*\S+", rest[end:])
        phrase = rest[start:end] + (following.group() if following else "")
        if singular := p.SINGULAR_ACCOUNT.search(phrase):
            return as_written(phrase[: singular.end()].strip(), question), match.values
    return None


def _follow_period(rest: str, previous: IntentPlan, as_of: date) -> DateRange | Problem | None:
    """A period named from the previous plan's ("the month before", "after that", "the same
    period a year earlier"), where it is in ``rest``; None when there is none, a problem when
    it starts after ``as_of``."""
    start, end = previous.date_from, previous.date_to
    for kind, patterns in _FOLLOW_DATES.items():
        for pattern in patterns:
            match = pattern.search(rest)
            if match is None:
                continue
            found = _from_previous(kind, match, start, end, as_of)
            if found is None:
                continue
            if found[0] is not None and found[0] > as_of:
                return Problem("date_future", match.span(), {"day": as_of})
            return DateRange(*found, match.span())
    return None


def _from_previous(
    kind: str, match: re.Match[str], start: date | None, end: date | None, as_of: date
) -> tuple[date | None, date | None] | None:
    if kind in ("before", "after") and start and end:
        unit = Interval(match.group("unit"))
        if kind == "before":
            return unit_before(start, unit)
        first = shift(bucket_start(end, unit), unit, 1)
        return first, max(first, min(bucket_end(first, unit), as_of))
    if kind == "before_that" and start:
        return None, start - timedelta(days=1)
    if kind == "after_that" and end:
        return end + timedelta(days=1), as_of
    if kind == "year_ago" and start and end:
        return year_earlier(start, end)
    return None


def _year_shared(items: list[Item], as_of: date) -> list[Item]:
    """Periods of a list given their year by the item that has one: "Q1 or Q2 2024" is Q1 2024
    (the next item's year, else the one before)."""
    dated = [i for i, item in enumerate(items) if item.period and item.period.has_year]
    if not dated:
        return items
    shared = []
    for i, item in enumerate(items):
        period = item.period
        if period is None or period.has_year or period.start is None:
            shared.append(item)
            continue
        source = next((j for j in dated if j > i), dated[-1])
        year_of = items[source].period
        assert year_of is not None and year_of.start is not None
        moved = period.in_year(year_of.start.year)
        keep = moved.start is None or moved.start > as_of
        shared.append(item if keep else Item(item.kind, item.span, item.values, moved))
    return shared


def _joined_as_versus(rest: str) -> str:
    """``rest`` with the word joining compared things ("compare X and Y") read as "vs",
    same length so every span stays where it was."""
    for pattern in p.JOINED:
        if match := pattern.search(rest):
            start, end = match.span("join")
            return rest[:start] + "vs".ljust(end - start) + rest[end:]
    return rest


def _changes_joined(rest: str) -> str:
    """``rest`` with the two periods of a question about changes ("grew most from Q1 to
    Q2") read as compared: the joining word as "vs", the word before the first left out."""
    for pattern in p.CHANGES_JOINED:
        if match := pattern.search(rest):
            (start, end), lead = match.span("join"), match.span("lead")
            rest = rest[:start] + "vs".ljust(end - start) + rest[end:]
            return blank(rest, [lead])
    return rest


def _relative(match: re.Match[str], first: date, last: date) -> DateRange:
    """The period a side names from the other side's (``first`` to ``last``): the unit
    before, or the same days a year earlier."""
    unit = match.group("before") or match.group("previous")
    start, end = unit_before(first, Interval(unit)) if unit else year_earlier(first, last)
    return DateRange(start, end, match.span("rel"))


def _sides(items: Iterable[Item], cues: list[tuple[int, int]]) -> Comparison | None:
    """One side per stretch between comparing words, naming what every stretch names."""
    if len(cues) >= MAX_SIDES:
        return None
    stretches: list[dict[str, list[Item]]] = [{} for _ in range(len(cues) + 1)]
    for item in items:
        index = sum(1 for start, _ in cues if start < item.span[0])
        stretches[index].setdefault(item.kind, []).append(item)
    kinds = frozenset.intersection(*(frozenset(stretch) for stretch in stretches))
    if not kinds:
        return None
    sides = []
    for stretch in stretches:
        fields: dict[str, object] = {
            kind: _values(item.values for item in stretch[kind]) for kind in kinds - {"period"}
        }
        if "period" in kinds and (period := stretch["period"][0].period):
            fields |= {"date_from": period.start, "date_to": period.end}
        sides.append(CompareSide.model_validate(fields))
    return Comparison(sides, kinds)


def _values(groups: Iterable[Iterable[str]]) -> list[str]:
    """Flatten groups of values, keeping first-seen order and dropping repeats."""
    return list(dict.fromkeys(value for values in groups for value in values))


def _direction(rest: str) -> Direction | None:
    if p.NET.search(rest):
        return Direction.net
    money_in = p.MONEY_IN.search(rest)
    # "pay me" is money in; its "pay" says nothing more
    money_out = p.MONEY_OUT.search(blank(rest, [m.span() for m in p.MONEY_IN.finditer(rest)]))
    if money_in and money_out:
        return Direction.net
    if money_in:
        return Direction.in_
    return Direction.out if money_out else None


def as_written(name: str, question: str) -> str:
    """``name`` as the user wrote it in ``question``, not in its normalised form."""
    written = re.search(re.escape(name), question, re.IGNORECASE)
    return written.group() if written else name


def unknown_name(rest: str, known: list[tuple[int, int]]) -> str | None:
    """A name that overlaps no vocabulary match: after "at/from/with/to/on", before "payments"
    or after "pay" ("pay John Doe")."""
    for match in p.NAME_BEFORE_ROWS.finditer(rest):
        if match.group("name") not in p.NOT_NAMES and overlaps_none(known, *match.span("name")):
            return match.group("name")
    return _name_after(p.NAME_AFTER, rest, known) or _name_after(p.PAYEE, rest, known)


def overlaps_none(known: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``start``..``end`` overlaps none of the ``known`` spans."""
    return not any(s < end and start < e for s, e in known)


def _name_after(pattern: re.Pattern[str], rest: str, known: list[tuple[int, int]]) -> str | None:
    """The first name introduced by ``pattern`` that overlaps no vocabulary match."""
    for match in pattern.finditer(rest):
        start = match.start("name")
        name = name_at(rest, start)
        words = name.split()
        if not all(w in p.NOT_NAMES for w in words) and overlaps_none(
            known, start, start + len(name)
        ):
            return name
    return None


def name_at(rest: str, start: int) -> str:
    """The name starting at ``start``: it ends at punctuation, at an aside in brackets, at a
    blanked-out date or amount, or at a linking word."""
    segment = _NAME_PUNCTUATION.split(rest[start:], maxsplit=1)[0]
    words: list[str] = []
    for word in segment.split()[:5]:
        if word in p.NAME_END:
            break
        words.append(word)
    return " ".join(words)


def _inside(span: tuple[int, int], phrases: list[tuple[int, int]]) -> bool:
    """Whether ``span`` lies within one of ``phrases`` that is longer than it."""
    start, end = span
    return any(s <= start and end <= e and e - s > end - start for s, e in phrases)
