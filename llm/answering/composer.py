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
from llm.answering.wording import (
    DIRECTION_NOUN,
    FACT_LABELS,
    INTERVAL_ADVERB,
    METRIC_WORD,
    account_label,
    bucket_label,
    day_label,
    describe_filters,
    describe_period,
    figure_noun,
    money,
    plural,
    side_label,
)
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


def transactions_citation(n: int, plan: IntentPlan, count: int) -> Citation:
    """A citation that opens exactly the rows behind a number."""
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
    return Citation(
        n=n,
        kind="transactions",
        source=f"{plural(count, 'transaction')} {_scope(plan)}".strip(),
        rows_plan=rows_plan,
    )


def row_citation(n: int, plan: IntentPlan, row: Transaction) -> Citation:
    """A citation that opens one transaction: the plan's rows of its day and amount."""
    exact = plan.model_copy(
        update={
            "date_from": row.date,
            "date_to": row.date,
            "min_amount": abs(row.amount),
            "max_amount": abs(row.amount),
        }
    )
    citation = transactions_citation(n, exact, 1)
    source = f"{plain(row.merchant or row.description)}, {day_label(row.date)}, "
    return replace(citation, source=source + money(row.amount, row.currency))


def _scope(plan: IntentPlan) -> str:
    return " ".join(x for x in (describe_filters(plan), describe_period(plan)) if x)


def _sentence(plan: IntentPlan, result: AggregateResult) -> str:
    scope = _scope(plan)
    value = result.value
    if result.metric is Metric.count:
        noun = {Direction.out: "purchases", Direction.in_: "deposits"}.get(
            plan.direction, "transactions"
        )
        return f"You had **{result.count:,}** {noun} {scope}"
    if result.count == 0:
        return f"I found no matching transactions {scope}"
    amount = money(value, result.currency)
    if result.metric is Metric.sum:
        verb = {
            Direction.out: "You spent",
            Direction.in_: "You received",
            Direction.net: "Your net cash flow was",
            Direction.any: "The transactions total",
        }[plan.direction]
        return f"{verb} **{amount}** {scope} ({plural(result.count, 'transaction')})"
    noun = DIRECTION_NOUN[plan.direction]
    if plan.per and result.periods:
        return (
            f"Your {noun} {scope} averaged **{amount}** per {plan.per.value}, over "
            f"{plural(result.periods, plan.per.value)} ({plural(result.count, 'transaction')})"
        )
    return (
        f"The {METRIC_WORD[result.metric]} {noun} transaction {scope} was **{amount}** "
        f"(over {plural(result.count, 'transaction')})"
    )


Composed = tuple[list[Part], list[Citation]]


def _extreme(plan: IntentPlan, result: AggregateResult, row: Transaction, n: int) -> Composed:
    """The smallest or largest transaction itself, cited alone, and the rows it came from."""
    text = (
        f"The {METRIC_WORD[result.metric]} {DIRECTION_NOUN[plan.direction]} transaction "
        f"{_scope(plan)} was **{money(result.value, result.currency)}**: "
        f"{plain(row.description, row.account_no)} on {day_label(row.date)} "
        f"({account_label(plain(row.account_name), row.account_no)}) [{n}], "
        f"the {METRIC_WORD[result.metric]} of {plural(result.count, 'transaction')} [{n + 1}]."
    )
    cited = [row_citation(n, plan, row), transactions_citation(n + 1, plan, result.count)]
    return [Prose(text)], cited


def _per_currency(
    plan: IntentPlan,
    parts: list[AggregateResult] | list[TrendResult] | list[CompareResult],
    compose_one: Callable[[IntentPlan, Any, int], Composed],
) -> Composed:
    """One answer per currency, each with its own citation: amounts are never added across."""
    codes = [part.currency for part in parts]
    composed: list[Part] = [
        Prose(
            f"The matching transactions are in {len(codes)} currencies ({', '.join(codes)}); "
            "amounts in different currencies are never added together."
        )
    ]
    citations: list[Citation] = []
    for part in parts:
        part_plan = plan.model_copy(update={"currency": part.currency})
        (lead, *rest), cited = compose_one(part_plan, part, len(citations) + 1)
        composed += [Prose(f"**{part.currency}:** {lead.markdown()}"), *rest]
        citations.extend(cited)
    return composed, citations


def compose_aggregate(plan: IntentPlan, result: AggregateResult, n: int = 1) -> Composed:
    if result.by_currency:
        return _per_currency(plan, result.by_currency, compose_aggregate)
    if result.extreme is not None:
        return _extreme(plan, result, result.extreme, n)
    citation = transactions_citation(n, plan, result.count)
    text = _sentence(plan, result) + f" [{n}]."
    if result.groups and plan.top and plan.group_by:
        text += f" The top {len(result.groups)} by {plan.group_by.value}:"
    if not result.groups:
        return [Prose(text)], [citation]
    header = plan.group_by.value.capitalize() if plan.group_by else "Group"
    rows = []
    for group in result.groups[:MAX_TABLE_ROWS]:
        shown = (
            f"{int(group.value):,}"
            if result.metric is Metric.count and group.value is not None
            else money(group.value, result.currency)
        )
        rows.append((group.key, shown, f"{group.count:,}"))
    more = len(result.groups) - MAX_TABLE_ROWS
    table = Table(
        columns=(header, result.metric.value.capitalize(), "Transactions"),
        numeric=(False, True, True),
        rows=tuple(rows),
        more=f"…and {more} more." if more > 0 else None,
    )
    return [Prose(text), table], [citation]


def _has_value(plan: IntentPlan, bucket: Bucket) -> bool:
    """An empty bucket has a total and a count (0) but no average, smallest or largest."""
    return bucket.count > 0 or plan.metric in (Metric.sum, Metric.count)


def compose_trend(plan: IntentPlan, result: TrendResult, n: int = 1) -> Composed:
    if result.by_currency:
        return _per_currency(plan, result.by_currency, compose_trend)
    count = sum(b.count for b in result.series)
    citation = transactions_citation(n, plan, count)
    noun = DIRECTION_NOUN[plan.direction]
    scope = _scope(plan)
    if not result.series or count == 0:
        return [Prose(f"I found no {noun} {scope} [{n}].")], [citation]
    interval = result.interval.value
    valued = [b for b in result.series if _has_value(plan, b)]
    high = max(valued, key=lambda b: b.value)
    low = min(valued, key=lambda b: b.value)

    def shown(value: Decimal) -> str:
        return f"{int(value):,}" if plan.metric is Metric.count else money(value, result.currency)

    span = f"over {plural(len(result.series), interval)}"
    if plan.metric is Metric.sum:
        total = sum((b.value for b in result.series), Decimal("0"))
        headline = (
            f"**{money(total, result.currency)}** in total {span} ({plural(count, 'transaction')})"
        )
    elif plan.metric is Metric.count:
        headline = f"**{plural(count, 'transaction')}** {span}"
    else:
        headline = f"the {METRIC_WORD[plan.metric]} transaction in each {interval}, {span}"
    empty = len(result.series) - len(valued)
    no_data = f"; no data for {plural(empty, interval)} without transactions" if empty else ""
    text = (
        f"{INTERVAL_ADVERB[result.interval]} {noun} {scope}: {headline}. "
        f"Highest: {bucket_label(high.period, interval)} ({shown(high.value)}); "
        f"lowest: {bucket_label(low.period, interval)} ({shown(low.value)}){no_data} [{n}]."
    )
    return [Prose(text)], [citation]


def _shared_scope(plan: IntentPlan) -> str:
    """What every side of a comparison shares: the filters no side replaces."""
    sides = plan.compare
    update: dict[str, object] = {
        name: []
        for name in ("accounts", "categories", "merchants")
        if any(getattr(s, name) for s in sides)
    }
    if any(side.has_period for side in sides):
        update |= {"date_from": None, "date_to": None}
        return describe_filters(plan.model_copy(update=update))
    return _scope(plan.model_copy(update=update))


def compose_compare(plan: IntentPlan, result: CompareResult, n: int = 1) -> Composed:
    """Each side's figure with its own citation, then which is larger, by how much and the
    change in percent from the first side to the last."""
    if result.by_currency:
        return _per_currency(plan, result.by_currency, compose_compare)

    def shown(value: Decimal | None) -> str:
        if value is None:
            return "no data"
        if plan.metric is Metric.count:
            return f"**{int(value):,}**"
        return f"**{money(value, result.currency)}**"

    labels = [side_label(side.side) for side in result.sides]
    citations = [
        transactions_citation(n + i, side.plan, side.result.count)
        for i, side in enumerate(result.sides)
    ]

    def detail(figure: AggregateResult) -> str:
        parts = [plural(figure.periods, plan.per.value)] if plan.per and figure.periods else []
        if plan.metric is not Metric.count:
            parts.append(plural(figure.count, "transaction"))
        return f" ({', '.join(parts)})" if parts else ""

    figures = "; ".join(
        f"{label} {shown(side.result.value)}{detail(side.result)} [{citation.n}]"
        for label, side, citation in zip(labels, result.sides, citations, strict=True)
    )
    scope = _shared_scope(plan)
    text = f"{figure_noun(plan.metric, plan.direction, plan.per)} {scope}".strip() + f": {figures}."
    difference, first, last = result.difference, labels[0], labels[-1]
    if difference is None:
        return [Prose(f"{text} Without a figure for every side there is no difference.")], citations
    largest, pct = result.largest, result.change_pct
    two = len(labels) == 2
    if largest is None:
        text += " They are the same." if two else " No single side is highest."
    elif two:
        text += f" {side_label(largest.side)} is higher by {shown(abs(difference))}."
    else:
        text += f" {side_label(largest.side)} is the highest."
    periods = all(side.side.has_period for side in result.sides)
    if difference and two and pct is not None:
        change = f"From {first} to {last}" if periods else f"{last} vs {first}"
        text += f" {change}: {pct:+}%."
    elif difference and periods:  # several names have no first or last; periods do
        text += f" From {first} to {last}: {'up' if difference > 0 else 'down'} "
        text += shown(abs(difference)) + (f" ({pct:+}%)." if pct is not None else ".")
    return [Prose(text)], citations


def compose_listing(plan: IntentPlan, result: ListingResult) -> Composed:
    citation = transactions_citation(1, plan, result.total)
    scope = _scope(plan)
    if not result.rows:
        return [Prose(f"I found no matching transactions {scope} [1].")], [citation]
    order = {
        SortOrder.newest: "most recent",
        SortOrder.oldest: "earliest",
        SortOrder.largest: "largest",
        SortOrder.smallest: "smallest",
    }[plan.sort]
    lead = Prose(
        f"The {len(result.rows)} {order} of {plural(result.total, 'matching transaction')} "
        f"{scope} [1]:"
    )
    more = len(result.rows) - MAX_TABLE_ROWS
    table = Table(
        columns=("Date", "Description", "Category", "Account", "Amount"),
        numeric=(False, False, False, False, True),
        rows=tuple(
            (
                row.date.isoformat(),
                plain(row.description, row.account_no),
                row.category,
                account_label(row.account_name, row.account_no),
                money(row.amount, row.currency),
            )
            for row in result.rows[:MAX_TABLE_ROWS]
        ),
        more=f"…and {more} more in the table of rows [1]." if more > 0 else None,
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


def statement_citation(n: int, hit: StatementHit, passage: str) -> Citation:
    return Citation(
        n=n,
        kind="statement",
        source=(
            f"{hit.bank_name} - {mask_account(hit.account_no)} "
            f"({hit.statement_from.isoformat()} to {hit.statement_to.isoformat()})"
        ),
        statement_id=hit.statement_id,
        page=hit.page,
        score=round(hit.score, 6),
        passage=mask_account_numbers(passage, [hit.account_no]),
        source_file=hit.source_file,
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


def fact_citation(n: int, fact: StatementFact) -> Citation:
    where = f"page {fact.page}" if fact.page else fact.location
    return Citation(
        n=n,
        kind="statement",
        source=f"{fact.bank_name} - {mask_account(fact.account_no)} ({fact.source_file}, {where})",
        statement_id=fact.statement_id,
        page=fact.page,
        source_file=fact.source_file,
        box=fact.box,
    )


def _fact_value(fact: StatementFact) -> str:
    if fact.day is not None:
        return day_label(fact.day)
    if fact.name == "apr" and fact.amount is not None:
        return f"{fact.amount}%"
    return money(fact.amount, fact.currency)


def compose_facts(facts: list[StatementFact]) -> Composed:
    """The newest stated value of each fact asked for, per account, with where it is printed."""
    newest: dict[tuple[str, str, str, str], StatementFact] = {}
    for fact in facts:  # newest first
        key = (fact.name, fact.account_no, fact.account_name, fact.currency)
        newest.setdefault(key, fact)
    parts: list[Part] = []
    citations = []
    for n, fact in enumerate(newest.values(), start=1):
        label = FACT_LABELS.get(fact.name, fact.name.replace("_", " "))
        parts.append(
            Prose(
                f"Your {label} for {plain(fact.account_name)} "
                f"({mask_account(fact.account_no) or plain(fact.bank_name)}), as stated on "
                f"{day_label(fact.as_of)}, was **{_fact_value(fact)}** [{n}]."
            )
        )
        citations.append(fact_citation(n, fact))
    return parts, citations


def compose_text_qa(plan: IntentPlan, result: TextQAResult, embed: Embed | None) -> Composed:
    """A stated fact when the question asks for one; otherwise quote the passage that best
    answers the question, from the best few hits."""
    if result.facts:
        return compose_facts(result.facts)
    if not result.hits:
        return [Prose("I could not find anything about that in your statements.")], []
    question = _without_accounts(plan.text or "", plan.accounts)
    passages = _best_passages(question, result.hits, embed)
    candidates = [(hit, *best) for hit, best in zip(result.hits, passages, strict=True)]
    hit, passage, similarity = max(candidates, key=lambda c: c[2])
    notes: list[Part] = [Note(result.note)] if result.note else []
    if similarity < RELEVANCE_FLOOR:
        citations = [statement_citation(i, h, h.text[:300]) for i, h in enumerate(result.hits, 1)]
        listed = "; ".join(f"{c.source}, page {c.page} [{c.n}]" for c in citations[:3])
        text = (
            "I could not find a passage in your statements that answers this directly. "
            f"The closest sources are: {listed}."
        )
        return [Prose(text), *notes], citations
    citation = statement_citation(1, hit, passage)
    others = [
        statement_citation(i, h, h.text[:300])
        for i, h in enumerate((h for h in result.hits if h is not hit), start=2)
    ]
    text = (
        f"Your {hit.account_name} statement ({hit.bank_name}, "
        f"{hit.statement_from.isoformat()} to {hit.statement_to.isoformat()}, page {hit.page}) "
        f'says: "{plain(passage, hit.account_no)}" [1]'
    )
    return [Prose(text), *notes], [citation, *others[:2]]


def compose_clarify(plan: IntentPlan) -> Composed:
    parts: list[Part] = [Prose(plan.clarification or "I am not sure what you are asking.")]
    if plan.suggestions:
        parts.append(Suggestions(tuple(plan.suggestions)))
    return parts, []


def compose(
    plan: IntentPlan, result: Result | None, embed: Embed | None = None
) -> tuple[str, list[Citation]]:
    """The deterministic answer text and its citations for any intent."""
    parts, citations = compose_parts(plan, result, embed)
    return parts_markdown(parts), citations


def compose_answer(
    plan: IntentPlan,
    result: Result | None,
    embed: Embed | None = None,
    routed: IntentPlan | None = None,
) -> Answer:
    """The deterministic answer: its parts, their text and its citations."""
    parts, citations = compose_parts(plan, result, embed)
    text = parts_markdown(parts)
    return Answer(plan.intent, text, plan, result, citations, routed_plan=routed, parts=parts)


def compose_parts(plan: IntentPlan, result: Result | None, embed: Embed | None = None) -> Composed:
    """The deterministic answer's parts and its citations for any intent."""
    if isinstance(result, AggregateResult):
        return compose_aggregate(plan, result)
    if isinstance(result, CompareResult):
        return compose_compare(plan, result)
    if isinstance(result, TrendResult):
        return compose_trend(plan, result)
    if isinstance(result, ListingResult):
        return compose_listing(plan, result)
    if isinstance(result, TextQAResult):
        return compose_text_qa(plan, result, embed)
    return compose_clarify(plan)
