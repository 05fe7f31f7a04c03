"""The offline composer: answers written from the executor result by templates and extraction.

Every number in the text comes from the result; text answers quote the retrieved passages.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any

import numpy as np

from elastic.ingest.pdf.reader import body_text
from elastic.masking import mask_account, mask_account_numbers
from elastic.model.plan import Direction, Intent, IntentPlan, Metric, SortOrder
from elastic.model.records import StatementFact, Transaction
from elastic.model.results import (
    AggregateResult,
    Bucket,
    CompareResult,
    ListingResult,
    StatementHit,
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
from llm.answering.clarifications import reword
from llm.answering.wording import ENGLISH, Wording, account_label, wording
from llm.embeddings import EMBEDDING_FAILURES

log = logging.getLogger(__name__)
Embed = Callable[[list[str]], np.ndarray]
_MARKUP = str.maketrans({"[": "(", "]": ")", "`": "'", "<": "‹", ">": "›", "|": "/"})


def plain(text: str, account_no: str = "") -> str:
    """Document text as it may appear in an answer: account numbers masked, and no links,
    images, HTML or ``[N]`` that could pass for a citation."""
    return mask_account_numbers(text, [account_no]).translate(_MARKUP)


RELEVANCE_FLOOR = 0.35
MAX_TABLE_ROWS = 25


def transactions_citation(
    n: int, plan: IntentPlan, count: int, w: Wording | None = None
) -> Citation:
    """A citation that opens exactly the rows behind a number."""
    w = w or wording()
    rows_plan = plan.model_copy(
        update={
            "intent": Intent.listing,
            "sort": SortOrder.newest,
            "limit": 100,
            "per": None,
            "top": None,
            "compare": [],
        }
    )
    source = w.text(
        "citation.transactions", transactions=w.plural(count, "transaction"), scope=_scope(plan, w)
    )
    return Citation(n=n, kind="transactions", source=source.strip(), rows_plan=rows_plan)


def row_citation(n: int, plan: IntentPlan, row: Transaction, w: Wording | None = None) -> Citation:
    """A citation that opens one transaction: the plan's rows of its day and amount."""
    w = w or wording()
    exact = plan.model_copy(
        update={
            "date_from": row.date,
            "date_to": row.date,
            "min_amount": abs(row.amount),
            "max_amount": abs(row.amount),
        }
    )
    citation = transactions_citation(n, exact, 1, w)
    source = w.text(
        "citation.row",
        name=plain(row.merchant or row.description),
        day=w.day_label(row.date),
        amount=w.money(row.amount, row.currency),
    )
    return replace(citation, source=source)


def _scope(plan: IntentPlan, w: Wording) -> str:
    return " ".join(x for x in (w.describe_filters(plan), w.describe_period(plan)) if x)


def _sentence(plan: IntentPlan, result: AggregateResult, w: Wording) -> str:
    scope = _scope(plan, w)
    if result.metric is Metric.count:
        kind = plan.direction.value if plan.direction in (Direction.out, Direction.in_) else "any"
        return w.text(f"aggregate.count_{kind}", count=w.number(result.count), scope=scope)
    if result.count == 0:
        return w.text("aggregate.none", scope=scope)
    amount = w.money(result.value, result.currency)
    transactions = w.plural(result.count, "transaction")
    if result.metric is Metric.sum:
        return w.text(
            f"aggregate.sum_{plan.direction.value}",
            amount=amount,
            scope=scope,
            transactions=transactions,
        )
    noun = w.direction_noun(plan.direction)
    if plan.per and result.periods:
        return w.text(
            "aggregate.per",
            noun=noun,
            scope=scope,
            amount=amount,
            per=w.unit(plan.per),
            periods=w.plural(result.periods, plan.per.value),
            transactions=transactions,
        )
    return w.text(
        "aggregate.extreme",
        metric=w.metric_word(result.metric),
        noun=noun,
        scope=scope,
        amount=amount,
        transactions=transactions,
    )


Composed = tuple[list[Part], list[Citation]]


def _extreme(
    plan: IntentPlan, result: AggregateResult, row: Transaction, n: int, w: Wording
) -> Composed:
    """The smallest or largest transaction itself, cited alone, and the rows it came from."""
    text = w.text(
        "aggregate.extreme_row",
        metric=w.metric_word(result.metric),
        noun=w.direction_noun(plan.direction),
        scope=_scope(plan, w),
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


def _per_currency(
    plan: IntentPlan,
    parts: list[AggregateResult] | list[TrendResult] | list[CompareResult],
    compose_one: Callable[[IntentPlan, Any, int, Wording], Composed],
    w: Wording,
) -> Composed:
    """One answer per currency, each with its own citation: amounts are never added across."""
    codes = [part.currency for part in parts]
    composed: list[Part] = [
        Prose(w.text("aggregate.currencies", count=len(codes), codes=", ".join(codes)))
    ]
    citations: list[Citation] = []
    for part in parts:
        part_plan = plan.model_copy(update={"currency": part.currency})
        (lead, *rest), cited = compose_one(part_plan, part, len(citations) + 1, w)
        in_currency = w.text("aggregate.in_currency", currency=part.currency, text=lead.markdown())
        composed += [Prose(in_currency), *rest]
        citations.extend(cited)
    return composed, citations


def compose_aggregate(
    plan: IntentPlan, result: AggregateResult, n: int = 1, w: Wording | None = None
) -> Composed:
    w = w or wording()
    if result.by_currency:
        return _per_currency(plan, result.by_currency, compose_aggregate, w)
    if result.extreme is not None:
        return _extreme(plan, result, result.extreme, n, w)
    citation = transactions_citation(n, plan, result.count, w)
    text = _sentence(plan, result, w) + f" [{n}]."
    group = plan.group_by.value if plan.group_by else None
    if result.groups and plan.top and plan.group_by:
        text += " " + w.text("aggregate.top", count=len(result.groups), group=w.group_word(group))
    if not result.groups:
        return [Prose(text)], [citation]
    rows = []
    for entry in result.groups[:MAX_TABLE_ROWS]:
        shown = (
            w.number(int(entry.value))
            if result.metric is Metric.count and entry.value is not None
            else w.money(entry.value, result.currency)
        )
        rows.append((entry.key, shown, w.number(entry.count)))
    more = len(result.groups) - MAX_TABLE_ROWS
    table = Table(
        columns=(
            w.text(f"column.{group or 'group'}"),
            w.text(f"column.{result.metric.value}"),
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
        return _per_currency(plan, result.by_currency, compose_trend, w)
    total, count = series_total(result.series)
    citation = transactions_citation(n, plan, count, w)
    noun = w.direction_noun(plan.direction)
    scope = _scope(plan, w)
    if not result.series or count == 0:
        return [Prose(w.text("trend.none", noun=noun, scope=scope, n=n))], [citation]
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
        scope=scope,
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
    return _scope(plan.model_copy(update=update), w)


def compose_compare(
    plan: IntentPlan, result: CompareResult, n: int = 1, w: Wording | None = None
) -> Composed:
    """Each side's figure with its own citation, then which is larger, by how much and the
    change in percent from the first side to the last."""
    w = w or wording()
    if result.by_currency:
        return _per_currency(plan, result.by_currency, compose_compare, w)

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
    scope = _shared_scope(plan, w)
    noun = w.figure_noun(plan.metric, plan.direction, plan.per)
    lead = w.text("compare.text", noun=noun, scope=scope).strip()
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
    scope = _scope(plan, w)
    if not result.rows:
        return [Prose(w.text("listing.none", scope=scope))], [citation]
    lead = Prose(
        w.text(
            "listing.lead",
            shown=w.number(len(result.rows)),
            order=w.text(f"listing.{plan.sort.value}"),
            matching=w.plural(result.total, "matching transaction"),
            scope=scope,
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


def _candidates(hit: StatementHit) -> list[str]:
    """The sentences of a page that may be quoted: long enough, and not steering the reader."""
    return [
        s for s in sentences(body_text(hit.text, hit.bank_name)) if len(s) > 15 and not steers(s)
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
    if not result.hits:
        return [Prose(w.text("text_qa.nothing"))], []
    question = _without_accounts(plan.text or "", plan.accounts)
    passages = _best_passages(question, result.hits, embed)
    candidates = [(hit, *best) for hit, best in zip(result.hits, passages, strict=True)]
    hit, passage, similarity = max(candidates, key=lambda c: c[2])
    notes: list[Part] = [Note(reword(result.note, w))] if result.note else []
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


def compose_clarify(plan: IntentPlan, w: Wording | None = None) -> Composed:
    """A clarification in the asker's language: the router's English messages are worded
    again by ``clarifications``."""
    w = w or wording()
    said = plan.clarification
    parts: list[Part] = [Prose(reword(said, w) if said else w.text("clarify.unsure"))]
    if plan.suggestions:
        suggestions = tuple(reword(q, w) for q in plan.suggestions)
        parts.append(Suggestions(suggestions, lead=w.text("clarify.suggestions")))
    return parts, []


def compose(
    plan: IntentPlan, result: Result | None, embed: Embed | None = None, language: str = ENGLISH
) -> tuple[str, list[Citation]]:
    """The deterministic answer text and its citations for any intent."""
    parts, citations = compose_parts(plan, result, embed, language)
    return parts_markdown(parts), citations


def compose_answer(
    plan: IntentPlan,
    result: Result | None,
    embed: Embed | None = None,
    routed: IntentPlan | None = None,
    language: str = ENGLISH,
) -> Answer:
    """The deterministic answer in ``language``: its parts, their text and its citations."""
    parts, citations = compose_parts(plan, result, embed, language)
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
    )


def compose_parts(
    plan: IntentPlan, result: Result | None, embed: Embed | None = None, language: str = ENGLISH
) -> Composed:
    """The deterministic answer's parts and its citations for any intent."""
    w = wording(language)
    if isinstance(result, AggregateResult):
        return compose_aggregate(plan, result, w=w)
    if isinstance(result, CompareResult):
        return compose_compare(plan, result, w=w)
    if isinstance(result, TrendResult):
        return compose_trend(plan, result, w=w)
    if isinstance(result, ListingResult):
        return compose_listing(plan, result, w)
    if isinstance(result, TextQAResult):
        return compose_text_qa(plan, result, embed, w)
    return compose_clarify(plan, w)
