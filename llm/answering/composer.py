"""The offline composer: answers written from the executor result by templates and extraction.

Every number in the text comes from the result; text answers quote the retrieved passages.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

import numpy as np

from elastic.ingest.pdf.facts import (
    CURRENCY_SYMBOLS,
    amount_at_end,
    misread_amount_at_end,
)
from elastic.ingest.pdf.reader import body_text
from elastic.masking import mask_account, mask_account_numbers
from elastic.model.plan import Direction, GroupBy, IntentPlan, Metric, SortOrder
from elastic.model.records import OFF, RECONCILED, StatementFact, Transaction
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    Basis,
    Bucket,
    ChangesResult,
    CompareResult,
    ListingResult,
    PayeeLines,
    PeakResult,
    RecurringResult,
    ShareResult,
    StatementHit,
    StatementRows,
    TextQAResult,
    TrendResult,
    series_total,
)
from llm.answering.answer import (
    Answer,
    Citation,
    Note,
    Part,
    Prose,
    Result,
    Suggestions,
    Table,
    parts_markdown,
)
from llm.answering.citing import (
    Composed,
    per_currency,
    plain,
    row_citation,
    scope,
    transactions_citation,
)
from llm.answering.insights import (
    basis_note,
    compose_anomalies,
    compose_balances,
    compose_changes,
    compose_peak,
    compose_recurring,
    compose_share,
    first_or_last,
)
from llm.answering.messages import template_key, word
from llm.answering.wording import ENGLISH, Wording, account_label, wording
from llm.embeddings import EMBEDDING_FAILURES

log = logging.getLogger(__name__)
Embed = Callable[[list[str]], np.ndarray]
RELEVANCE_FLOOR = 0.35
MAX_TABLE_ROWS = 25


def _sentence(plan: IntentPlan, result: AggregateResult, w: Wording) -> str:
    where = scope(plan, w)
    kind = plan.direction.value if plan.direction in (Direction.out, Direction.in_) else "any"
    if result.metric is Metric.distinct:
        return w.text(
            f"aggregate.distinct_{kind}",
            count=w.number(int(result.value or 0)),
            groups=w.group_plural(plan.group_by.value if plan.group_by else "group"),
            scope=where,
            transactions=w.plural(result.count, "transaction"),
        )
    if result.metric is Metric.count:
        kind = plan.direction.value if plan.direction in (Direction.out, Direction.in_) else "any"
        return w.text(f"aggregate.count_{kind}", count=w.number(result.count), scope=where)
    if result.count == 0:
        return w.text("aggregate.none", scope=where)
    amount = w.money(result.value, result.currency)
    transactions = w.plural(result.count, "transaction")
    if result.metric is Metric.median:
        key = "aggregate.median" if result.value is not None else "aggregate.median_unknown"
        noun = w.direction_noun(plan.direction)
        return w.text(key, noun=noun, scope=where, amount=amount, transactions=transactions)
    if result.metric is Metric.sum:
        return w.text(
            f"aggregate.sum_{plan.direction.value}",
            amount=amount,
            scope=where,
            transactions=transactions,
        )
    noun = w.direction_noun(plan.direction)
    if plan.per and result.periods:
        return w.text(
            "aggregate.per",
            noun=noun,
            scope=where,
            amount=amount,
            per=w.unit(plan.per),
            periods=w.plural(result.periods, plan.per.value),
            transactions=transactions,
        )
    return w.text(
        "aggregate.extreme",
        metric=w.metric_word(result.metric),
        noun=noun,
        scope=where,
        amount=amount,
        transactions=transactions,
    )


def _extreme(
    plan: IntentPlan, result: AggregateResult, row: Transaction, n: int, w: Wording
) -> Composed:
    """The smallest or largest transaction itself, cited alone, and the rows it came from."""
    text = w.text(
        "aggregate.extreme_row",
        metric=w.metric_word(result.metric),
        noun=w.direction_noun(plan.direction),
        scope=scope(plan, w),
        amount=w.money(result.value, result.currency),
        description=plain(row.description, row.account_no),
        day=w.day_label(row.date),
        account=account_label(plain(row.account_name), row.account_no),
        n=n,
        transactions=w.plural(result.count, "transaction"),
        m=n + 1,
    )
    cited = [row_citation(n, plan, row, w), transactions_citation(n + 1, plan, result.count, w)]
    return [Prose(text)], cited


def compose_aggregate(
    plan: IntentPlan, result: AggregateResult, n: int = 1, w: Wording | None = None
) -> Composed:
    w = w or wording()
    if result.by_currency:
        return per_currency(plan, result.by_currency, compose_aggregate, w)
    if result.extreme is not None:
        return _extreme(plan, result, result.extreme, n, w)
    citation = transactions_citation(n, plan, result.count, w)
    text = _sentence(plan, result, w) + f" [{n}]."
    group = plan.group_by.value if plan.group_by else None
    if result.groups and plan.top and plan.group_by:
        text += " " + w.text("aggregate.top", count=len(result.groups), group=w.group_word(group))
    if not result.groups:
        return [Prose(text)], [citation]

    def shown(value: Decimal | None) -> str:
        if result.metric is Metric.count and value is not None:
            return w.number(int(value))
        return w.money(value, result.currency)

    if plan.group_by in (GroupBy.weekday, GroupBy.weekend) and result.count:
        top = max(result.groups, key=lambda g: g.value or 0)
        bottom = min(result.groups, key=lambda g: g.value or 0)
        text += " " + w.text(
            "aggregate.most_least",
            top=w.group_key(group, top.key),
            top_value=shown(top.value),
            bottom=w.group_key(group, bottom.key),
            bottom_value=shown(bottom.value),
        )
    rows = [
        (w.group_key(group, entry.key), shown(entry.value), w.number(entry.count))
        for entry in result.groups[:MAX_TABLE_ROWS]
    ]
    more = len(result.groups) - MAX_TABLE_ROWS
    per_group = Metric.sum if result.metric is Metric.distinct else result.metric
    table = Table(
        columns=(
            w.text(f"column.{group or 'group'}"),
            w.text(f"column.{per_group.value}"),
            w.text("column.transactions"),
        ),
        numeric=(False, True, True),
        rows=tuple(rows),
        more=w.text("aggregate.more", count=w.number(more)) if more > 0 else None,
    )
    return [Prose(text), table], [citation]


def _has_value(plan: IntentPlan, bucket: Bucket) -> bool:
    """An empty bucket has a total and a count (0) but no average, smallest or largest."""
    return bucket.count > 0 or plan.metric in (Metric.sum, Metric.count)


def compose_trend(
    plan: IntentPlan, result: TrendResult, n: int = 1, w: Wording | None = None
) -> Composed:
    w = w or wording()
    if result.by_currency:
        return per_currency(plan, result.by_currency, compose_trend, w)
    total, count = series_total(result.series)
    citation = transactions_citation(n, plan, count, w)
    noun = w.direction_noun(plan.direction)
    where = scope(plan, w)
    if not result.series or count == 0:
        return [Prose(w.text("trend.none", noun=noun, scope=where, n=n))], [citation]
    interval = result.interval.value
    valued = [b for b in result.series if _has_value(plan, b)]
    high = max(valued, key=lambda b: b.value)
    low = min(valued, key=lambda b: b.value)

    def shown(value: Decimal) -> str:
        if plan.metric is Metric.count:
            return w.number(int(value))
        return w.money(value, result.currency)

    span = w.text("trend.span", buckets=w.plural(len(result.series), interval))
    transactions = w.plural(count, "transaction")
    if plan.metric is Metric.sum:
        headline = w.text(
            "trend.sum",
            total=w.money(total, result.currency),
            span=span,
            transactions=transactions,
        )
    elif plan.metric is Metric.count:
        headline = w.text("trend.count", transactions=transactions, span=span)
    else:
        headline = w.text(
            "trend.extreme",
            metric=w.metric_word(plan.metric),
            interval=w.unit(result.interval),
            span=span,
        )
    empty = len(result.series) - len(valued)
    no_data = w.text("trend.no_data", buckets=w.plural(empty, interval)) if empty else ""
    text = w.text(
        "trend.text",
        adverb=w.interval_adverb(result.interval),
        noun=noun,
        scope=where,
        headline=headline,
        high=w.bucket_label(high.period, interval),
        high_value=shown(high.value),
        low=w.bucket_label(low.period, interval),
        low_value=shown(low.value),
        no_data=no_data,
        n=n,
    )
    return [Prose(text)], [citation]


def _shared_scope(plan: IntentPlan, w: Wording) -> str:
    """What every side of a comparison shares: the filters no side replaces."""
    sides = plan.compare
    update: dict[str, object] = {
        name: []
        for name in ("accounts", "categories", "merchants")
        if any(getattr(s, name) for s in sides)
    }
    if any(side.has_period for side in sides):
        update |= {"date_from": None, "date_to": None}
        return w.describe_filters(plan.model_copy(update=update))
    return scope(plan.model_copy(update=update), w)


def compose_compare(
    plan: IntentPlan, result: CompareResult, n: int = 1, w: Wording | None = None
) -> Composed:
    """Each side's figure with its own citation, then which is larger, by how much and the
    change in percent from the first side to the last."""
    w = w or wording()
    if result.by_currency:
        return per_currency(plan, result.by_currency, compose_compare, w)

    def shown(value: Decimal | None) -> str:
        if value is None:
            return w.text("compare.no_data")
        if plan.metric is Metric.count:
            return f"**{w.number(int(value))}**"
        return f"**{w.money(value, result.currency)}**"

    labels = [w.side_label(side.side) for side in result.sides]
    citations = [
        transactions_citation(n + i, side.plan, side.result.count, w)
        for i, side in enumerate(result.sides)
    ]

    def detail(figure: AggregateResult) -> str:
        parts = [w.plural(figure.periods, plan.per.value)] if plan.per and figure.periods else []
        if plan.metric is not Metric.count:
            parts.append(w.plural(figure.count, "transaction"))
        joined = w.text("compare.detail_separator").join(parts)
        return w.text("compare.detail", parts=joined) if parts else ""

    figures = w.text("compare.figures_separator").join(
        w.text(
            "compare.figure",
            label=label,
            value=shown(side.result.value),
            detail=detail(side.result),
            n=citation.n,
        )
        for label, side, citation in zip(labels, result.sides, citations, strict=True)
    )
    shared = _shared_scope(plan, w)
    noun = w.figure_noun(plan.metric, plan.direction, plan.per)
    lead = w.text("compare.text", noun=noun, scope=shared).strip()
    text = w.text("compare.figures", text=lead, figures=figures)
    difference, first, last = result.difference, labels[0], labels[-1]
    if difference is None:
        return [Prose(f"{text} {w.text('compare.no_difference')}")], citations
    largest, pct = result.largest, result.change_pct
    two = len(labels) == 2
    if largest is None:
        text += " " + w.text("compare.same" if two else "compare.no_highest")
    elif two:
        side = w.side_label(largest.side)
        text += " " + w.text("compare.higher_by", side=side, amount=shown(abs(difference)))
    else:
        text += " " + w.text("compare.highest", side=w.side_label(largest.side))
    periods = all(side.side.has_period for side in result.sides)
    if difference and two and pct is not None:
        key = "compare.from_to" if periods else "compare.versus"
        change = w.text(key, first=first, last=last)
        text += " " + w.text("compare.change", change=change, pct=w.change(pct))
    elif difference and periods:  # several names have no first or last; periods do
        key = "compare.up" if difference > 0 else "compare.down"
        text += " " + w.text(key, first=first, last=last, amount=shown(abs(difference)))
        ending = w.text("compare.up_pct", pct=w.change(pct)) if pct is not None else None
        text += ending or w.text("compare.end")
    return [Prose(text)], citations


def compose_listing(plan: IntentPlan, result: ListingResult, w: Wording | None = None) -> Composed:
    w = w or wording()
    citation = transactions_citation(1, plan, result.total, w)
    where = scope(plan, w)
    if not result.rows:
        return [Prose(w.text("listing.none", scope=where))], [citation]
    if plan.limit == 1 and plan.sort in (SortOrder.oldest, SortOrder.newest):
        return first_or_last(plan, result.rows[0], result.total, w)
    lead = Prose(
        w.text(
            "listing.lead",
            shown=w.number(len(result.rows)),
            order=w.text(f"listing.{plan.sort.value}"),
            matching=w.plural(result.total, "matching transaction"),
            scope=where,
        )
    )
    more = len(result.rows) - MAX_TABLE_ROWS
    columns = w.table_columns()
    table = Table(
        columns=tuple(columns[c] for c in ("date", "description", "category", "account", "amount")),
        numeric=(False, False, False, False, True),
        rows=tuple(
            (
                row.date.isoformat(),
                plain(row.description, row.account_no),
                row.category,
                account_label(row.account_name, row.account_no),
                w.money(row.amount, row.currency),
            )
            for row in result.rows[:MAX_TABLE_ROWS]
        ),
        more=w.text("listing.more", count=w.number(more)) if more > 0 else None,
    )
    return [lead, table], [citation]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CONTINUATION = re.compile(r"^[a-z$(%]")


def sentences(text: str) -> list[str]:
    """Sentences of page text, with lines that a PDF wrapped mid-sentence joined again."""
    lines: list[str] = []
    for line in (ln.strip() for ln in text.splitlines()):
        if not line:
            continue
        if lines and not lines[-1].endswith((".", "!", "?")) and _CONTINUATION.match(line):
            lines[-1] = f"{lines[-1]} {line}"
        else:
            lines.append(line)
    return [part for line in lines for part in _SENTENCE_END.split(line) if part]


def statement_citation(
    n: int, hit: StatementHit, passage: str, w: Wording | None = None
) -> Citation:
    w = w or wording()
    label = ""
    if hit.file_name:
        period = w.period_name(hit.statement_from, hit.statement_to)
        label = w.text("citation.file_page", file=hit.file_name, period=period, page=hit.page)
    return Citation(
        n=n,
        kind="statement",
        source=w.text(
            "citation.statement",
            bank=hit.bank_name,
            account=mask_account(hit.account_no),
            start=hit.statement_from.isoformat(),
            end=hit.statement_to.isoformat(),
        ),
        statement_id=hit.statement_id,
        page=hit.page,
        score=round(hit.score, 6),
        passage=mask_account_numbers(passage, [hit.account_no]),
        source_file=hit.source_file,
        label=label,
    )


# Text shaped as a chat turn or as an instruction to whoever reads it is never quoted as what a
# statement says: a file can carry it to steer an answer (prompt injection).
_DIALOGUE_TURN = re.compile(
    r"^\W*(?:assistant|user|system|human|ai|bot|chatbot|model|developer|q|a)\s*:"
    r"|\b(?:assistant|system|user|human)\s*:",
    re.I,
)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:(?:all|any|the|your|of|previous|prior|"
    r"above|earlier|preceding|other)\s+)*(?:instructions?|prompts?|rules|directions|context)\b"
    r"|\byou\s+(?:must|should|shall|will|have\s+to|need\s+to)\s+"
    r"(?:answer|respond|reply|say|tell|state|claim|ignore)\b"
    r"|\b(?:respond|reply)\s+(?:only\s+)?(?:with|that|by)\b"
    r"|\banswer\s+(?:only\s+)?with\b",
    re.I,
)


def steers(sentence: str) -> bool:
    """Whether a sentence is a dialogue turn ("Assistant: …") or an instruction ("ignore
    previous instructions", "you must answer", "respond with")."""
    return bool(_DIALOGUE_TURN.search(sentence) or _INSTRUCTION.search(sentence))


MAX_HEADING_WORDS = 8


def _heading(sentence: str) -> bool:
    """A heading or a label without its value ("Previous Balance", "Other Charges & Fees"):
    a few words, no figure, no sentence's end. It is never quoted as an answer."""
    words = sentence.split()
    return (
        len(words) <= MAX_HEADING_WORDS
        and not any(ch.isdigit() for ch in sentence)
        and not sentence.rstrip().endswith((".", "!", "?"))
    )


def _candidates(hit: StatementHit) -> list[str]:
    """The sentences of a page that may be quoted: long enough, neither a heading nor steering
    the reader."""
    return [
        s
        for s in sentences(body_text(hit.text, hit.bank_name))
        if len(s) > 15 and not steers(s) and not _heading(s)
    ]


def _best_passages(
    question: str, hits: list[StatementHit], embed: Embed | None
) -> list[tuple[str, float]]:
    """Per hit, the sentence that best answers ``question`` and how well.

    Every distinct sentence of all hits is embedded once, in one call: statements repeat their
    boilerplate page after page, so this is most of the cost of a text answer.
    """
    per_hit = [_candidates(hit) for hit in hits]
    similarity: dict[str, float] | None = None
    if embed is not None:
        distinct = list(dict.fromkeys(s for candidates in per_hit for s in candidates))
        try:
            vectors = embed([question, *distinct])
        except EMBEDDING_FAILURES as exc:  # a nicety here: word overlap still picks a passage
            log.warning("embedding passages failed; choosing by shared words: %r", exc)
        else:
            similarity = dict(zip(distinct, (vectors[1:] @ vectors[0]).tolist(), strict=True))
    words = set(re.findall(r"[a-z]{3,}", question.lower()))

    def overlap(sentence: str) -> float:
        shared = words & set(re.findall(r"[a-z]{3,}", sentence.lower()))
        return len(shared) / max(len(words), 1)

    score = similarity.__getitem__ if similarity is not None else overlap
    best = []
    for hit, candidates in zip(hits, per_hit, strict=True):
        if not candidates:
            best.append((hit.text.strip()[:300], 0.0))
            continue
        chosen = max(candidates, key=score)
        best.append((chosen, float(score(chosen))))
    return best


def _without_accounts(question: str, accounts: list[str]) -> str:
    """The question minus the account it names: the account is already a filter, and its name
    would otherwise pull sentences that merely mention the account above the actual answer."""
    for name in accounts:
        question = re.sub(re.escape(name), " ", question, flags=re.I)
    return question


def _fact_file(fact: StatementFact, w: Wording) -> str:
    """The file a fact is printed in, by the name it came with: a kept PDF's stored name is a
    path nobody knows (a store written before names were kept says which statement)."""
    if fact.file_name:
        return fact.file_name
    if fact.page is not None:
        return w.text("citation.kept_statement", day=w.day_label(fact.as_of))
    return fact.source_file


def fact_citation(n: int, fact: StatementFact, w: Wording | None = None) -> Citation:
    w = w or wording()
    where = w.text("citation.page", page=fact.page) if fact.page else fact.location
    file = _fact_file(fact, w)
    return Citation(
        n=n,
        kind="statement",
        source=w.text(
            "citation.fact",
            bank=fact.bank_name,
            account=mask_account(fact.account_no),
            file=file,
            where=where,
        ),
        statement_id=fact.statement_id,
        page=fact.page,
        source_file=fact.source_file,
        box=fact.box,
        label=w.text("citation.file_where", file=file, where=where),
    )


def _fact_value(fact: StatementFact, w: Wording) -> str:
    if fact.day is not None:
        return w.day_label(fact.day)
    if fact.name == "apr" and fact.amount is not None:
        return w.percent(fact.amount)
    return w.money(fact.amount, fact.currency)


def compose_facts(facts: list[StatementFact], w: Wording | None = None) -> Composed:
    """The newest stated value of each fact asked for, per account, with where it is printed."""
    w = w or wording()
    newest: dict[tuple[str, str, str, str], StatementFact] = {}
    for fact in facts:  # newest first
        key = (fact.name, fact.account_no, fact.account_name, fact.currency)
        newest.setdefault(key, fact)
    parts: list[Part] = []
    citations = []
    for n, fact in enumerate(newest.values(), start=1):
        text = w.text(
            "text_qa.fact",
            label=w.fact_label(fact.name),
            account=plain(fact.account_name),
            masked=mask_account(fact.account_no) or plain(fact.bank_name),
            day=w.day_label(fact.as_of),
            value=_fact_value(fact, w),
            n=n,
        )
        parts.append(Prose(text))
        citations.append(fact_citation(n, fact, w))
    return parts, citations


def compose_text_qa(
    plan: IntentPlan, result: TextQAResult, embed: Embed | None, w: Wording | None = None
) -> Composed:
    """A stated fact when the question asks for one; otherwise quote the passage that best
    answers the question, from the best few hits."""
    w = w or wording()
    if result.facts:
        return compose_facts(result.facts, w)
    if plan.facts:
        return _no_figure(plan, result, w)
    if not result.hits:
        return [Prose(w.text("text_qa.nothing"))], []
    question = _without_accounts(plan.text or "", plan.accounts)
    passages = _best_passages(question, result.hits, embed)
    candidates = [(hit, *best) for hit, best in zip(result.hits, passages, strict=True)]
    hit, passage, similarity = max(candidates, key=lambda c: c[2])
    notes: list[Part] = [Note(w.text(template_key(result.note)))] if result.note else []
    if similarity < RELEVANCE_FLOOR:
        citations = [
            statement_citation(i, h, h.text[:300], w) for i, h in enumerate(result.hits, 1)
        ]
        listed = "; ".join(
            w.text("text_qa.closest_source", source=c.source, page=c.page, n=c.n)
            for c in citations[:3]
        )
        return [Prose(w.text("text_qa.closest", listed=listed)), *notes], citations
    citation = statement_citation(1, hit, passage, w)
    others = [
        statement_citation(i, h, h.text[:300], w)
        for i, h in enumerate((h for h in result.hits if h is not hit), start=2)
    ]
    text = w.text(
        "text_qa.quote",
        account=hit.account_name,
        bank=hit.bank_name,
        start=hit.statement_from.isoformat(),
        end=hit.statement_to.isoformat(),
        page=hit.page,
        passage=plain(passage, hit.account_no),
    )
    return [Prose(text), *notes], [citation, *others[:2]]


def compose_payee_lines(found: PayeeLines, w: Wording | None = None) -> Composed:
    """A question about a payee whose rows did not land as transactions: the statement lines
    that print it, each cited on its page, and what the amounts printed on them add up to."""
    w = w or wording()
    citations = [
        statement_citation(n, hit, line, w) for n, (hit, line) in enumerate(found.lines, 1)
    ]
    listed = "\n".join(
        f"- {plain(line, hit.account_no)} [{n}]" for n, (hit, line) in enumerate(found.lines, 1)
    )
    parts: list[Part] = [
        Prose(
            w.text("payee.lines", name=plain(found.name), lines=w.plural(len(found.lines), "line"))
        ),
        Prose(listed),
    ]
    amounts = [money for _, line in found.lines if (money := amount_at_end(line)) is not None]
    currencies = {money.currency for money in amounts}
    if amounts and len(currencies) <= 1:
        total = sum((abs(money.amount) for money in amounts), Decimal(0))
        currency = _currency_of(found.lines[0][0], next(iter(currencies), None))
        parts.append(Prose(w.text("payee.total", total=w.money(total, currency))))
    misread = [printed for _, line in found.lines if (printed := misread_amount_at_end(line))]
    if misread:
        printed = w.text("note.separator").join(f"“{plain(amount)}”" for amount in misread)
        lines = w.plural(len(misread), "line")
        parts.append(Prose(w.text("payee.unreadable", lines=lines, amounts=printed)))
    return parts, citations


def _currency_of(hit: StatementHit, printed: str | None) -> str:
    """The ISO code of a currency printed with an amount ("$", "€", "EUR"), else USD."""
    if printed and len(printed) == 3 and printed.isalpha():
        return printed
    return CURRENCY_SYMBOLS.get(printed or "", "USD")


def _statement_name(bank: str, account: str) -> str:
    """A statement as people name it: "Mercury credit card", "Westpac hotpoints World
    Mastercard", "Harbour & Crane Bank Current Account" (the bank once, and a word the two
    share where they meet once)."""
    if bank.casefold() in account.casefold():
        return account
    last, first = bank.split()[-1:], account.split()[:1]
    if last and first and last[0].casefold() == first[0].casefold():
        return f"{bank} {account.split(maxsplit=1)[1]}" if " " in account else bank
    return f"{bank} {account}"


def _no_figure(plan: IntentPlan, result: TextQAResult, w: Wording) -> Composed:
    """A figure no statement states: which statements were searched for it, and the pages that
    come closest, cited; never a passage passed off as the figure."""
    label = w.fact_label(plan.facts[0])
    if not result.searched:
        return [Prose(w.text("text_qa.no_statements", label=label))], []
    searched = w.text("note.separator").join(
        w.text(
            "text_qa.searched_statement",
            name=plain(_statement_name(s.bank_name, s.account_name)),
            period=w.period_range(s.statement_from, s.statement_to),
        )
        for s in result.searched
    )
    citations = [statement_citation(i, h, h.text[:300], w) for i, h in enumerate(result.hits, 1)]
    text = w.text(
        "text_qa.no_figure",
        label=label,
        statements=w.plural(len(result.searched), "searched_statement"),
        searched=searched,
    )
    parts: list[Part] = [Prose(text)]
    if citations:
        listed = "; ".join(
            w.text("text_qa.closest_source", source=c.source, page=c.page, n=c.n)
            for c in citations[:3]
        )
        parts.append(Prose(w.text("text_qa.closest_pages", listed=listed)))
    return parts, citations[:3]


def compose_clarify(plan: IntentPlan, w: Wording | None = None) -> Composed:
    """A clarification in the asker's language: the router's messages worded from the
    templates; a clarification given as text (Gemini's, written in the asker's language) as
    it is."""
    w = w or wording()
    said = word(plan.message, w) if plan.message else plan.clarification
    parts: list[Part] = [Prose(said or w.text("clarify.unsure"))]
    suggestions = (*(word(m, w) for m in plan.suggested), *plan.suggestions)
    if suggestions:
        parts.append(Suggestions(suggestions, lead=w.text("clarify.suggestions")))
    return parts, []


def compose(
    plan: IntentPlan,
    result: Result | None,
    embed: Embed | None = None,
    language: str = ENGLISH,
    basis: Basis | None = None,
) -> tuple[str, list[Citation]]:
    """The deterministic answer text and its citations for any intent."""
    parts, citations = compose_parts(plan, result, embed, language, basis)
    return parts_markdown(parts), citations


def compose_answer(
    plan: IntentPlan,
    result: Result | None,
    embed: Embed | None = None,
    routed: IntentPlan | None = None,
    language: str = ENGLISH,
    behind: Sequence[StatementRows] = (),
    payee: PayeeLines | None = None,
    basis: Basis | None = None,
) -> Answer:
    """The deterministic answer in ``language``: its parts, their text and its citations,
    and the line saying how its numbers were made. ``behind``: statements the answer's rows
    came from that do not reconcile or were read by OCR; the answer says so in one line, and
    its citations of rows say OCR. ``payee``: the statement lines that answer a question about
    a payee whose rows did not land."""
    if payee is not None:
        parts, citations = compose_payee_lines(payee, wording(language))
    else:
        parts, citations = compose_parts(plan, result, embed, language, basis)
    if behind:
        w = wording(language)
        note = behind_note(behind, w)
        if note:
            parts = [*parts, Note(note)]
        if any(s.statement.reconciliation and s.statement.reconciliation.ocr for s in behind):
            citations = [
                replace(c, source=w.text("citation.ocr", source=c.source))
                if c.kind == "transactions"
                else c
                for c in citations
            ]
    text = parts_markdown(parts)
    return Answer(
        plan.intent,
        text,
        plan,
        result,
        citations,
        routed_plan=routed,
        parts=parts,
        language=wording(language).code,
        basis=basis,
    )


def behind_note(behind: Sequence[StatementRows], w: Wording) -> str | None:
    """One line on the rows of statements that do not reconcile: how many, and each statement
    with its gap (or that it could not be checked); None when every statement behind does."""
    unsure = [s for s in behind if s.statement.reconciliation.status != RECONCILED]
    if not unsure:
        return None
    statements = w.text("note.separator").join(
        w.text(
            "note.statement_off" if check.status == OFF else "note.statement_unchecked",
            account=plain(s.statement.account_name),
            period=w.period_range(s.statement.statement_from, s.statement.statement_to),
            gap=w.money(check.gap, check.currency or "USD") if check.gap is not None else "",
        )
        for s in unsure
        if (check := s.statement.reconciliation)
    )
    rows = sum(s.rows for s in unsure)
    return w.text(
        "note.unreconciled",
        rows=w.plural(rows, "row"),
        statements=w.plural(len(unsure), "statement"),
        listed=statements,
    )


Compose = Callable[[IntentPlan, Any, "Embed | None", Wording], Composed]
# How each result type is worded: one rule per type (tests/test_result_rules.py checks that
# every type a result can be has one here, in the JSON writer, the checker of Gemini's numbers
# and the charts).
COMPOSERS: dict[type, Compose] = {
    AggregateResult: lambda plan, result, embed, w: compose_aggregate(plan, result, w=w),
    CompareResult: lambda plan, result, embed, w: compose_compare(plan, result, w=w),
    TrendResult: lambda plan, result, embed, w: compose_trend(plan, result, w=w),
    ListingResult: lambda plan, result, embed, w: compose_listing(plan, result, w),
    TextQAResult: lambda plan, result, embed, w: compose_text_qa(plan, result, embed, w),
    ShareResult: lambda plan, result, embed, w: compose_share(plan, result, 1, w),
    PeakResult: lambda plan, result, embed, w: compose_peak(plan, result, 1, w),
    ChangesResult: lambda plan, result, embed, w: compose_changes(plan, result, 1, w),
    BalanceResult: lambda plan, result, embed, w: compose_balances(plan, result, 1, w),
    RecurringResult: lambda plan, result, embed, w: compose_recurring(plan, result, 1, w),
    AnomalyResult: lambda plan, result, embed, w: compose_anomalies(plan, result, 1, w),
}


def compose_parts(
    plan: IntentPlan,
    result: Result | None,
    embed: Embed | None = None,
    language: str = ENGLISH,
    basis: Basis | None = None,
) -> Composed:
    """The deterministic answer's parts and its citations for any intent; with a ``basis``,
    the line of what was counted and left out comes last."""
    w = wording(language)
    if result is None:
        return compose_clarify(plan, w)
    parts, citations = COMPOSERS[type(result)](plan, result, embed, w)
    if basis is not None:
        parts = [*parts, basis_note(basis, w)]
    return parts, citations
