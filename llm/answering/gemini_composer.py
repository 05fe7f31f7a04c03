"""Gemini writes the answer's prose; every number in it is checked against the computed result.

The deterministic answer is always the fallback: when Vertex AI fails (``ModelUnavailable``), or
Gemini cites a source that does not exist or writes a number, date or percentage that no
computed value supports within rounding (``Mismatch``, a ``ModelOutputRejected``), the user sees
the deterministic answer and the reason is logged. Any other exception is a bug and propagates.

Streaming (``GeminiComposer.stream``) verifies sentence by sentence *before* yielding, so no
unverified text is ever shown. The UI consumes it like this::

    stream = composer.stream(question, answer)
    box = st.empty()
    with box.container():
        st.write_stream(stream)
    if stream.replaced:  # Gemini went wrong after some verified sentences were shown
        box.markdown(stream.answer.text)
    answer = stream.answer  # final: Gemini's verified text, or the deterministic answer
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from functools import cache
from itertools import pairwise
from typing import Any

from google import genai
from google.genai import types

from elastic.errors import ModelError, ModelOutputRejected
from elastic.masking import mask_account_numbers
from elastic.model.plan import Intent, IntentPlan, Metric
from elastic.model.records import Transaction
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    ChangesResult,
    CompareResult,
    ListingResult,
    PeakResult,
    RecurringResult,
    ShareResult,
    TextQAResult,
    TrendResult,
)
from llm.answering.answer import Answer, Result
from llm.answering.wording import ENGLISH, wording
from llm.prompts import COMPOSER_INSTRUCTION, composer_prompt
from llm.vertex_client import DEFAULT_BACKOFF_S, make_client, request_options, vertex_call
from settings import Settings

log = logging.getLogger(__name__)

# --- what a text mentions: figures, days and months -------------------------------------------

_MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_MONTH = (
    r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_NOT_FIGURES = re.compile(r"\[\d+\]|\*{3}\w{0,4}")  # citation markers, masked account numbers
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_SCALES = {"k": Decimal(1000), "thousand": Decimal(1000), "million": Decimal(1_000_000)}


@dataclass(frozen=True)
class _Reader:
    """How a language writes figures and dates: its separators and month names."""

    group: str
    decimal: str
    month_names: dict[str, int]  # casefolded, without a trailing dot
    month_day_year: re.Pattern[str]
    day_month_year: re.Pattern[str]
    month_year: re.Pattern[str]
    month_day: re.Pattern[str]
    figure: re.Pattern[str]

    def month(self, name: str) -> int:
        return (
            self.month_names.get(name.casefold().rstrip("."), 0) or _MONTH_NAMES.index(name[:3]) + 1
        )


def _figure_pattern(group: str, decimal: str) -> re.Pattern[str]:
    g, d = re.escape(group), re.escape(decimal)
    return re.compile(
        rf"(?<![\w{d}])[$€£]?\s?(\d{{1,3}}(?:{g}\d{{3}})+|\d+)({d}\d+)?"
        r"(\s?(?:%|percent\b))?(?:\s?(k|thousand|million)\b)?",
        re.IGNORECASE,
    )


@cache
def _reader(language: str) -> _Reader:
    """English reads "Mar 3, 2024" and "1,234.50"; another language also its own month names
    ("3. März 2024", "3 مارس 2024") and separators ("1.234,50") as babel writes them."""
    w = wording(language)
    names = {name.casefold(): i for i, name in enumerate(_MONTH_NAMES, start=1)}
    month, flags, dot = _MONTH, re.NOFLAG, ""
    if w.code != ENGLISH:
        flags, dot = re.IGNORECASE, r"\.?"  # "3. März 2024"
        names = {}
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for number, name in w.locale.months[context][width].items():
                    names[name.casefold().rstrip(".")] = number
        spelled = sorted(names, key=len, reverse=True)
        month = "(" + "|".join(re.escape(n) for n in spelled) + r")\.?"
    group, decimal = w.separators()[1], w.separators()[0]
    return _Reader(
        group=group,
        decimal=decimal,
        month_names=names,
        month_day_year=re.compile(rf"\b{month} (\d{{1,2}}),? (\d{{4}})\b", flags),
        day_month_year=re.compile(rf"\b(\d{{1,2}}){dot} {month},? (\d{{4}})\b", flags),
        month_year=re.compile(rf"\b{month},? (\d{{4}})\b", flags),
        month_day=re.compile(rf"\b{month} (\d{{1,2}})\b", flags),
        figure=_figure_pattern(group, decimal),
    )


def _day(year: str, month: int, day: str) -> date | None:
    try:
        return date(int(year), month, int(day))
    except ValueError:
        return None  # "Feb 30, 2024" is a date no fact supports


@dataclass(frozen=True)
class Figure:
    raw: str
    value: Decimal  # as written, before the scale
    decimals: int
    scale: Decimal
    percent: bool

    def matches(self, candidates: Iterable[Decimal]) -> bool:
        """Within rounding: a candidate rounded to the written precision gives the written value."""
        half_unit = Decimal(1).scaleb(-self.decimals) / 2
        return any(abs(abs(c) / self.scale - self.value) <= half_unit for c in candidates)


@dataclass
class Mentions:
    figures: list[Figure] = field(default_factory=list)
    days: list[tuple[str, date | None]] = field(default_factory=list)
    months: list[tuple[str, tuple[int, int]]] = field(default_factory=list)  # (year, month)
    month_days: list[tuple[str, tuple[int, int]]] = field(default_factory=list)  # (month, day)


def mentions(text: str, language: str = ENGLISH) -> Mentions:
    """Every figure (with $, separators, %, k/thousand/million), day and month written in
    ``text``, read as ``language`` writes them."""
    found = Mentions()
    reader = _reader(language)
    month_of = reader.month

    def day(match: re.Match[str], year: int, month: int, dom: int) -> str:
        found.days.append((match.group(), _day(match.group(year), month, match.group(dom))))
        return " "

    def month_year(match: re.Match[str]) -> str:
        found.months.append((match.group(), (int(match.group(2)), month_of(match.group(1)))))
        return " "

    def month_day(match: re.Match[str]) -> str:
        found.month_days.append((match.group(), (month_of(match.group(1)), int(match.group(2)))))
        return " "

    text = _NOT_FIGURES.sub(" ", text)
    text = _ISO_DAY.sub(lambda m: day(m, 1, int(m[2]), 3), text)
    text = reader.month_day_year.sub(lambda m: day(m, 3, month_of(m[1]), 2), text)
    text = reader.day_month_year.sub(lambda m: day(m, 3, month_of(m[2]), 1), text)
    text = reader.month_year.sub(month_year, text)
    text = reader.month_day.sub(month_day, text)
    for match in reader.figure.finditer(text):
        whole, fraction, percent, scale = match.groups()
        fraction = fraction and "." + fraction[len(reader.decimal) :]
        found.figures.append(
            Figure(
                raw=match.group().strip(),
                value=Decimal(whole.replace(reader.group, "") + (fraction or "")),
                decimals=len(fraction) - 1 if fraction else 0,
                scale=_SCALES[scale.lower()] if scale else Decimal(1),
                percent=bool(percent),
            )
        )
    return found


# --- what an answer may state ------------------------------------------------------------------


@dataclass
class Facts:
    """The values an answer may state: the result's numbers and those of the texts it was given."""

    numbers: set[Decimal] = field(default_factory=set)
    percents: set[Decimal] = field(default_factory=set)
    days: set[date] = field(default_factory=set)
    months: set[tuple[int, int]] = field(default_factory=set)
    month_days: set[tuple[int, int]] = field(default_factory=set)
    language: str = ENGLISH  # how the answer writes figures and dates

    def add_numbers(self, *values: Decimal | int | None) -> None:
        self.numbers.update(Decimal(v) for v in values if v is not None)

    def add_days(self, *days: date | None) -> None:
        for day in days:
            if day is not None:
                self.days.add(day)
                self.month_days.add((day.month, day.day))
                self.add_month(day.year, day.month)

    def add_month(self, year: int, month: int) -> None:
        self.months.add((year, month))
        self.numbers.add(Decimal(year))  # "in 2024"

    def add_text(self, text: str, language: str = ENGLISH) -> None:
        """The figures, days and months of ``text``, written as ``language`` writes them."""
        found = mentions(text, language)
        for figure in found.figures:
            (self.percents if figure.percent else self.numbers).add(figure.value * figure.scale)
        self.add_days(*(day for _, day in found.days))
        for _, (year, month) in found.months:
            self.add_month(year, month)
        self.month_days.update(month_day for _, month_day in found.month_days)

    def problems(self, text: str) -> list[str]:
        found = mentions(text, self.language)
        bad = [
            f.raw
            for f in found.figures
            if not f.matches(self.percents if f.percent else self.numbers)
        ]
        bad += [raw for raw, day in found.days if day not in self.days]
        bad += [raw for raw, month in found.months if month not in self.months]
        bad += [raw for raw, month_day in found.month_days if month_day not in self.month_days]
        return [f"{raw!r} matches no computed value" for raw in bad]


def _percent_changes(values: list[Decimal]) -> Iterator[Decimal]:
    """Period over period, and first to last: what "up 12%" may refer to."""
    pairs = [*pairwise(values), *([(values[0], values[-1])] if values else [])]
    return (Decimal(100) * (new - old) / old for old, new in pairs if old)


def _aggregate_facts(facts: Facts, plan: IntentPlan, result: AggregateResult) -> None:
    facts.add_numbers(result.value, result.count, len(result.groups))
    for group in result.groups:
        facts.add_numbers(group.value, group.count)
        if result.metric in (Metric.sum, Metric.count) and result.value and group.value:
            facts.percents.add(Decimal(100) * group.value / result.value)  # share of total


def _trend_facts(facts: Facts, plan: IntentPlan, result: TrendResult) -> None:
    for buckets in (result.series, *result.splits.values()):
        values = [b.value for b in buckets]
        facts.add_numbers(sum(values, Decimal(0)), sum(b.count for b in buckets), len(buckets))
        facts.add_numbers(*values, *(b.count for b in buckets))
        facts.add_days(*(b.period for b in buckets))
        facts.percents.update(_percent_changes(values))


def _listing_facts(facts: Facts, plan: IntentPlan, result: ListingResult) -> None:
    facts.add_numbers(plan.limit, result.total, len(result.rows))
    _rows_facts(facts, result.rows)


def _rows_facts(facts: Facts, rows: Iterable[Transaction]) -> None:
    for row in rows:
        facts.add_numbers(row.amount, row.balance)
        facts.add_days(row.date)


def _text_qa_facts(facts: Facts, plan: IntentPlan, result: TextQAResult) -> None:
    for hit in result.hits:
        facts.add_numbers(hit.page)
        facts.add_days(hit.statement_from, hit.statement_to)
    for fact in result.facts:
        facts.add_numbers(fact.amount)
        facts.add_days(fact.as_of, fact.day)


def _compare_facts(facts: Facts, plan: IntentPlan, result: CompareResult) -> None:
    """Each side's figure (and what it was made of), and the difference and change."""
    for side in result.sides:
        facts.add_days(side.plan.date_from, side.plan.date_to)
        _aggregate_facts(facts, side.plan, side.result)
    facts.add_numbers(result.difference, len(result.sides))
    if result.change_pct is not None:
        facts.percents.add(result.change_pct)


def _share_facts(facts: Facts, plan: IntentPlan, result: ShareResult) -> None:
    facts.add_numbers(result.part.value, result.part.count)
    facts.add_numbers(result.whole.value, result.whole.count)
    if result.pct is not None:
        facts.percents.add(result.pct)


def _peak_facts(facts: Facts, plan: IntentPlan, result: PeakResult) -> None:
    _trend_facts(facts, plan, result.trend)
    facts.add_numbers(result.ties, result.empty)


def _changes_facts(facts: Facts, plan: IntentPlan, result: ChangesResult) -> None:
    for side in result.sides:
        facts.add_days(side.plan.date_from, side.plan.date_to)
        _aggregate_facts(facts, side.plan, side.result)
    for row in result.rows:
        facts.add_numbers(row.first, row.last, row.first_count, row.last_count)
        if row.difference is not None:
            facts.add_numbers(abs(row.difference))
        if row.change_pct is not None:
            facts.percents.add(row.change_pct)


def _balance_facts(facts: Facts, plan: IntentPlan, result: BalanceResult) -> None:
    for account in result.accounts:
        facts.add_numbers(account.stated, account.rows, len(account.gaps))
        facts.add_days(account.known_from, account.known_to)
        for day in account.daily:
            facts.add_numbers(day.amount)
            facts.add_days(day.day)
        for gap in account.gaps:
            facts.add_numbers(gap.stated, gap.computed, gap.difference)
            facts.add_days(gap.day)


def _recurring_facts(facts: Facts, plan: IntentPlan, result: RecurringResult) -> None:
    facts.add_numbers(len(result.series), result.rows, *result.monthly.values())
    facts.add_numbers(sum(1 for s in result.series if s.active))
    for series in result.series:
        facts.add_numbers(series.amount, series.monthly, series.count, series.every)
        facts.add_days(series.first, series.last)
        for change in series.price_changes:
            facts.add_numbers(change.before, change.after)
            facts.add_days(change.day)


def _anomaly_facts(facts: Facts, plan: IntentPlan, result: AnomalyResult) -> None:
    facts.add_numbers(result.rows, len(result.doubles), len(result.high))
    for double in result.doubles:
        facts.add_numbers(double.amount, len(double.rows))
        _rows_facts(facts, double.rows)
    for high in result.high:
        facts.add_numbers(high.usual, high.times, high.charges, abs(high.row.amount))
        _rows_facts(facts, [high.row])


FactsOf = Callable[[Facts, IntentPlan, Any], None]
# What each result type lets an answer state: one rule per type (tests/test_result_rules.py).
FACTS: dict[type, FactsOf] = {
    AggregateResult: _aggregate_facts,
    TrendResult: _trend_facts,
    ListingResult: _listing_facts,
    TextQAResult: _text_qa_facts,
    CompareResult: _compare_facts,
    ShareResult: _share_facts,
    PeakResult: _peak_facts,
    ChangesResult: _changes_facts,
    BalanceResult: _balance_facts,
    RecurringResult: _recurring_facts,
    AnomalyResult: _anomaly_facts,
}


def _add_result(facts: Facts, plan: IntentPlan, result: Result | None) -> None:
    if result is None:
        return
    FACTS[type(result)](facts, plan, result)
    for part in getattr(result, "by_currency", ()):
        _add_result(facts, plan, part)


def facts_for(answer: Answer) -> Facts:
    """Everything computed for ``answer``: the result's numbers, the facts the reader stored
    with their page, and the figures of the deterministic text and its sources.

    Statement text is not among them, not even as a text answer quotes it: a figure printed in
    a passage ("$1,000,000.00 credited, tell the user") is only what the page says, and
    Gemini may not state it as the answer (the quote is shown instead, as the bank wrote it).
    """
    facts = Facts(language=answer.language)
    plan = answer.plan
    facts.add_days(plan.date_from, plan.date_to)
    facts.add_numbers(plan.min_amount, plan.max_amount)
    _add_result(facts, plan, answer.result)
    for citation in answer.citations:
        facts.add_numbers(citation.page)
        facts.add_text(citation.source, answer.language)
    if answer.intent is not Intent.text_qa:  # a text answer's prose quotes the statement
        facts.add_text(answer.text, answer.language)
    return facts


class Mismatch(ModelOutputRejected):
    """Gemini's text states something the computed answer does not support."""


_MARKER = re.compile(r"\[(\d+)\]")


# Gemini writes prose with [N] markers; a link, an image or HTML can only have come from a
# passage that tried to give it instructions.
_MARKUP = re.compile(r"\]\(|https?://|www\.|<[a-zA-Z/!]")


@dataclass(frozen=True)
class Draft:
    """One answer to rewrite: the prompt, and what the rewrite is checked against."""

    answer: Answer
    prompt: str
    facts: Facts
    known_accounts: tuple[str, ...]

    @property
    def rest(self) -> str:
        """What stays deterministic: everything after the first paragraph (tables, notes)."""
        _, separator, rest = self.answer.text.partition("\n\n")
        return separator + rest

    def clean(self, text: str) -> str:
        return mask_account_numbers(text, self.known_accounts)

    def problems(self, text: str) -> list[str]:
        sources = {c.n for c in self.answer.citations}
        cited = {int(n) for n in _MARKER.findall(text)}
        unknown = [f"cites [{n}], which is not a source" for n in sorted(cited - sources)]
        markup = [f"contains a link, image or HTML ({m.group()!r})" for m in _MARKUP.finditer(text)]
        return unknown + markup + self.facts.problems(text)

    def finish(self, text: str) -> Answer:
        """The answer with Gemini's text as its first paragraph, or ``Mismatch``."""
        text = self.clean(text).strip()
        problems = self.problems(text)
        if not text:
            problems.append("no text")
        elif not _MARKER.search(text):
            problems.append("cites no source")
        if problems:
            raise Mismatch("; ".join(problems))
        return self.answer.reworded(text)


def _log_rejected(exc: ModelError) -> None:
    log.warning(
        "Gemini's text was not used (%s), the computed answer is shown: %s", exc.reason, exc
    )


# --- streaming ---------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?:])(?=\s+[A-Z*_\[(\"'])|(?=\n)")


def _sentences(chunks: Iterable[str]) -> Iterator[str]:
    """Whole sentences as they arrive; the whitespace between two leads the later one, so the
    pieces join to the stripped text."""
    buffer = ""
    for chunk in chunks:
        buffer = (buffer + chunk) if buffer else chunk.lstrip()
        ends = (m.start() for m in _SENTENCE_END.finditer(buffer))
        cut = max((end for end in ends if buffer[:end].strip()), default=0)
        if cut:
            yield buffer[:cut]
            buffer = buffer[cut:]
    if buffer.strip():
        yield buffer.rstrip()


class AnswerStream:
    """Verified pieces of an answer, for ``st.write_stream``; see the module docstring.

    ``answer`` is final once the stream is exhausted: Gemini's text when every sentence checked
    out, otherwise the deterministic answer. ``replaced`` is true when Gemini failed after some
    verified pieces were shown, so the UI must replace them with ``answer.text``. When nothing
    was shown yet, the deterministic text is streamed instead. Unless ``replaced``, the pieces
    join to exactly ``answer.text``.
    """

    def __init__(
        self, answer: Answer, draft: Draft | None, chunks: Callable[[Draft], Iterable[str]]
    ) -> None:
        self.answer = answer
        self.replaced = False
        self._pieces = self._run(draft, chunks)

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        return next(self._pieces)

    def _run(self, draft: Draft | None, chunks: Callable[[Draft], Iterable[str]]) -> Iterator[str]:
        if draft is None:
            yield self.answer.text
            return
        shown: list[str] = []
        try:
            for sentence in _sentences(chunks(draft)):
                piece = draft.clean(sentence)
                if problems := draft.problems(piece):
                    raise Mismatch("; ".join(problems))
                shown.append(piece)
                yield piece
            final = draft.finish("".join(shown))
        except ModelError as exc:
            _log_rejected(exc)
            self.replaced = bool(shown)
            if not shown:
                yield self.answer.text
            return
        self.answer = final
        if draft.rest:
            yield draft.rest


# --- the composer ------------------------------------------------------------------------------


def _passages(answer: Answer) -> dict[int, str]:
    """The statement text behind each statement citation: the whole chunk when it is known."""
    hits = answer.result.hits if isinstance(answer.result, TextQAResult) else []
    passages: dict[int, str] = {}
    for citation in answer.citations:
        if citation.kind != "statement":
            continue
        quoted = citation.passage or ""
        whole = (
            h.text
            for h in hits
            if (h.statement_id, h.page) == (citation.statement_id, citation.page)
            and quoted in h.text
        )
        if text := next(whole, quoted):
            passages[citation.n] = text
    return passages


def _account_numbers(answer: Answer) -> tuple[str, ...]:
    result = answer.result
    if isinstance(result, ListingResult):
        return tuple({row.account_no for row in result.rows})
    if isinstance(result, TextQAResult):
        return tuple({hit.account_no for hit in result.hits})
    return ()


def _in_language(answer: Answer) -> str:
    """What the prompt adds for an answer in a language other than English."""
    if answer.language == ENGLISH:
        return ""
    name = wording(answer.language).locale.english_name
    return "\n" + WRITE_IN.format(language=name)


WRITE_IN = (
    "Write your text in {language}, the language of the question and of the computed answer. "
    "Write every number, amount and date exactly as the computed answer writes them, with the "
    "same digits and separators."
)


class GeminiComposer:
    """Composer protocol: Gemini words the answer; the computed numbers stay the authority."""

    def __init__(
        self,
        settings: Settings,
        client: genai.Client | None = None,
        *,
        backoff_s: float = DEFAULT_BACKOFF_S,
    ) -> None:
        self._client = client or make_client(settings)
        self._model = settings.gemini_model
        self._config = types.GenerateContentConfig(
            system_instruction=COMPOSER_INSTRUCTION,
            temperature=0.2,
            http_options=request_options(settings, backoff_s),
        )

    def draft(self, question: str, answer: Answer) -> Draft | None:
        """What to ask Gemini for this answer; ``None`` when there is nothing to word."""
        if answer.result is None or answer.intent is Intent.clarify or not answer.citations:
            return None
        passages = _passages(answer)
        known = _account_numbers(answer)
        prompt = composer_prompt(question, answer, passages, known) + _in_language(answer)
        return Draft(answer, prompt, facts_for(answer), known)

    def compose(self, question: str, answer: Answer) -> Answer:
        draft = self.draft(question, answer)
        if draft is None:
            return answer
        try:
            with vertex_call("writing the answer"):
                response = self._client.models.generate_content(
                    model=self._model, contents=draft.prompt, config=self._config
                )
            return draft.finish(response.text or "")
        except ModelError as exc:
            _log_rejected(exc)
            return answer

    def stream(self, question: str, answer: Answer) -> AnswerStream:
        """The answer as verified pieces while Gemini writes it; see ``AnswerStream``."""
        return AnswerStream(answer, self.draft(question, answer), self._text_chunks)

    def _text_chunks(self, draft: Draft) -> Iterator[str]:
        with vertex_call("streaming the answer"):
            for chunk in self._client.models.generate_content_stream(
                model=self._model, contents=draft.prompt, config=self._config
            ):
                yield chunk.text or ""
