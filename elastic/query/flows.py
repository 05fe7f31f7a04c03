"""The read flows of ``SearchBackend``, written once above the engines.

Each engine implements :class:`Engine`: it runs compiled spec queries and answers in the neutral
forms of ``elastic.query.spec`` (raw cell stats, stored documents, ranked ids). Everything else
(plan → spec, shaping, hybrid fusion, vocabulary, statement order, cursors) lives here, so the
two engines cannot drift apart.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import astuple, replace
from datetime import date

import numpy as np

from elastic.backend import PairRow
from elastic.engines.documents import (
    fact_from_source,
    hit_from_source,
    statement_info,
    transaction_from_source,
)
from elastic.model.plan import Direction, GroupBy, Intent, IntentPlan, Metric, ShareOf
from elastic.model.records import StatementFact, Transaction
from elastic.model.results import (
    AccountInfo,
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    Basis,
    CellStats,
    FileStats,
    ListingResult,
    RecurringResult,
    ShareResult,
    StatementHit,
    StatementInfo,
    TextQAResult,
    TrendResult,
    Vocabulary,
)
from elastic.query import balances as balance_flows
from elastic.query import basis as basis_flows
from elastic.query import build, cursor
from elastic.query import recurring as recurring_flows
from elastic.query.rrf import reciprocal_rank_fusion
from elastic.query.shaping import (
    DAY_GROUPS,
    MIXED_CURRENCY,
    aggregate_result,
    currency_of,
    directed_stats,
    fold_days,
    median_cents,
    trend_result,
)
from elastic.query.spec import (
    CellKey,
    Document,
    Facets,
    FacetsQuery,
    Found,
    Raw,
    Search,
    SortValue,
    StatementsQuery,
    StatsFound,
    StatsQuery,
    TextRanking,
    VectorRanking,
)

log = logging.getLogger(__name__)

TOP_HITS = 5
ID_LOOKUP = 5000  # ids per search; Elasticsearch returns at most 10,000 hits to one search
DEFAULT_CURRENCY = "USD"
# Notes are message keys, worded in the asker's language by the answer templates.
NO_VECTOR_NOTE = "note_no_vector"
VECTOR_FAILED_NOTE = "note_vector_failed"

Ranked = tuple[Hashable, Document | None]
"""A ranked chunk id, with its stored document when the ranking search returned it."""


class VectorSearchFailed(RuntimeError):
    """The vector half of a text search failed; the keyword half still answers."""


class Engine(ABC):
    """What an engine runs; the ``SearchBackend`` read methods are built on it."""

    @abstractmethod
    def run_stats(self, query: StatsQuery) -> StatsFound:
        """Per breakdown name, the raw stats of each non-empty cell (``()`` for no levels),
        and the span of ``query.span``."""

    @abstractmethod
    def run_search(self, query: Search) -> Found: ...

    @abstractmethod
    def run_facets(self, query: FacetsQuery) -> Facets: ...

    @abstractmethod
    def run_statements(self, query: StatementsQuery) -> list[tuple[Document, int]]:
        """Per statement, one of its chunk documents and its number of distinct pages."""

    @abstractmethod
    def rank_keywords(self, query: TextRanking) -> list[Ranked]: ...

    @abstractmethod
    def rank_vectors(self, query: VectorRanking) -> list[Ranked]:
        """Raises :class:`VectorSearchFailed` when the engine cannot compare the vector."""

    @abstractmethod
    def fetch_chunks(self, ids: Sequence[Hashable]) -> dict[Hashable, Document]: ...

    # -- the flows ------------------------------------------------------------------------
    def aggregate(self, user_id: str, plan: IntentPlan) -> AggregateResult:
        found = self.run_stats(build.aggregation(plan, user_id))
        cells = found.cells
        groups: dict[str, CellStats] = {}
        if plan.group_by in DAY_GROUPS:
            days = _directed(plan.direction, cells["groups"])
            groups = fold_days(plan.group_by, {_bucket(key[0]): s for key, s in days.items()})
        elif plan.group_by is not None:
            groups = {
                _label(key[0]): stats
                for key, stats in _directed(plan.direction, cells["groups"]).items()
            }
        overall = directed_stats(plan.direction, *cells["all"].get((), (0, 0, None, None)))
        result = aggregate_result(plan, overall, groups, _currency(found.span))
        if plan.metric is Metric.median and result.currency != MIXED_CURRENCY:
            values = {int(key[0]): raw[0] for key, raw in cells["values"].items()}
            median = median_cents(values, plan.direction, overall.count)
            result = replace(result, value=median)
        return result

    def trend(self, user_id: str, plan: IntentPlan) -> TrendResult:
        found = self.run_stats(build.trend(plan, user_id))
        cells = found.cells
        series = {
            _bucket(key[0]): s for key, s in _directed(plan.direction, cells["series"]).items()
        }
        splits: dict[str, dict[date, CellStats]] = {}
        for (category, start), stats in _directed(plan.direction, cells.get("split", {})).items():
            splits.setdefault(str(category), {})[_bucket(start)] = stats
        return trend_result(plan, series, splits, _currency(found.span))

    def statement_rows(self, user_id: str, plan: IntentPlan) -> dict[str, int]:
        """How many of the plan's rows each statement PDF gave, by its stored file name."""
        found = self.run_stats(build.statement_rows(plan, user_id))
        return {str(key[0]): raw[0] for key, raw in found.cells["files"].items() if raw[0]}

    def listing(self, user_id: str, plan: IntentPlan, after: str | None = None) -> ListingResult:
        """A page of rows; ``next_after`` is the opaque cursor of the next page."""
        sort = build.LISTING_SORTS[plan.sort]
        keyset = None if after is None else cursor.decode(after, len(sort))
        found = self.run_search(build.listing(plan, user_id, keyset))
        documents = found.documents
        next_after = None
        if documents and len(documents) == plan.limit:
            next_after = cursor.encode([documents[-1][key.field] for key in sort])
        return ListingResult(
            rows=[transaction_from_source(dict(d)) for d in documents],
            total=found.total or 0,
            next_after=next_after,
        )

    def rows(self, user_id: str, plan: IntentPlan) -> Iterator[Transaction]:
        """Every row ``plan`` selects, oldest first, a page at a time."""
        pages = self._pages(lambda after: build.rows_page(plan, user_id, after))
        return (transaction_from_source(dict(d)) for d in pages)

    def _pages(self, page: Callable[[tuple[SortValue, ...] | None], Search]) -> Iterator[Document]:
        """The documents of every page of a keyset-paged search, ``page(after)`` building each:
        the next one starts after the last document of a full page."""
        after: tuple[SortValue, ...] | None = None
        while True:
            query = page(after)
            documents = self.run_search(query).documents
            yield from documents
            if len(documents) < query.limit:
                return
            after = tuple(documents[-1][key.field] for key in query.sort)

    def data_end(self, user_id: str) -> date | None:
        """The last day of the user's rows: what "stopped" and "overdue" are judged at."""
        last = self.run_facets(build.data_span(user_id)).span[1]
        return date.fromisoformat(last) if last else None

    def currencies(self, user_id: str, plan: IntentPlan) -> list[str]:
        """The currencies of the rows ``plan`` selects, most rows first."""
        probe = plan.model_copy(
            update={
                "intent": Intent.aggregate,
                "group_by": GroupBy.currency,
                "metric": Metric.count,
                "share_of": None,
                "recurring": False,
            }
        )
        return [group.key for group in self.aggregate(user_id, probe).groups]

    def share(self, user_id: str, plan: IntentPlan) -> ShareResult:
        """The plan's figure and its whole (``IntentPlan.share_of``), per currency when the
        rows span several: a share is never taken across currencies."""
        assert plan.share_of is not None
        part_plan = plan.model_copy(update={"share_of": None})
        whole_plan = whole_of(part_plan, plan.share_of)
        part = self.aggregate(user_id, part_plan)
        whole = self.aggregate(user_id, whole_plan)
        if MIXED_CURRENCY not in (part.currency, whole.currency):
            if part.count == 0:  # no rows of the part: in the whole's currency
                part = replace(part, currency=whole.currency)
            if whole.count == 0 or part.currency == whole.currency:
                return ShareResult(plan.share_of, plan.direction, whole.currency, part, whole)
        found = self.currencies(user_id, whole_plan) + self.currencies(user_id, part_plan)
        parts = [
            self.share(user_id, plan.model_copy(update={"currency": currency}))
            for currency in dict.fromkeys(found)
        ]
        return ShareResult(plan.share_of, plan.direction, MIXED_CURRENCY, part, whole, parts)

    def balances(self, user_id: str, plan: IntentPlan) -> BalanceResult:
        """Every account's balances (``elastic.query.balances``)."""
        rows = list(self.rows(user_id, balance_flows.rows_plan(plan)))
        facts = [
            fact_from_source(d)
            for d in self.run_search(build.balance_facts(plan, user_id)).documents
        ]
        return balance_flows.balances(plan, rows, facts, self.statements(user_id))

    def recurring(self, user_id: str, plan: IntentPlan) -> RecurringResult:
        """The recurring series (``elastic.query.recurring``)."""
        rows = list(self.rows(user_id, recurring_flows.reading_plan(plan)))
        return recurring_flows.recurring(plan, rows, self.data_end(user_id))

    def anomalies(self, user_id: str, plan: IntentPlan) -> AnomalyResult:
        """Double charges and charges far above usual (``elastic.query.recurring``)."""
        rows = list(self.rows(user_id, recurring_flows.reading_plan(plan)))
        return recurring_flows.anomalies(plan, rows)

    def basis(self, user_id: str, plan: IntentPlan) -> Basis:
        """What the plan's figure counts and leaves out (``elastic.query.basis``)."""
        cells = {
            sign: self.run_stats(query).cells["cells"]
            for sign, query in basis_flows.queries(plan, user_id).items()
        }
        return basis_flows.basis(plan, cells)

    def known_categories(self, user_id: str) -> list[tuple[str, str, int]]:
        """(merchant, category, rows) where a file or the user gave the category."""
        cells = self.run_stats(build.known_categories(user_id)).cells["known"]
        return [
            (str(merchant), str(category), raw[0]) for (merchant, category), raw in cells.items()
        ]

    def pair_candidates(self, user_id: str, date_from: date, date_to: date) -> list[PairRow]:
        """Every row an import may pair as a transfer between the user's own accounts."""
        pages = self._pages(lambda after: build.pair_candidates(user_id, date_from, date_to, after))
        return [
            PairRow(
                d["transaction_id"],
                d["account_no"],
                date.fromisoformat(d["date"]),
                d["amount_cents"],
                d["currency"],
            )
            for d in pages
        ]

    def facts(self, user_id: str, plan: IntentPlan) -> list[StatementFact]:
        return [fact_from_source(d) for d in self.run_search(build.facts(plan, user_id)).documents]

    def stored_transactions(self, user_id: str, ids: Sequence[str]) -> dict[str, Transaction]:
        """The user's stored transactions among ``ids``, by id."""
        found: dict[str, Transaction] = {}
        for start in range(0, len(ids), ID_LOOKUP):
            query = build.transactions_by_id(user_id, ids[start : start + ID_LOOKUP])
            for document in self.run_search(query).documents:
                found[str(document["transaction_id"])] = transaction_from_source(dict(document))
        return found

    def text_qa(
        self, user_id: str, plan: IntentPlan, query_vector: np.ndarray | None
    ) -> TextQAResult:
        """BM25 and vector rankings fused by RRF; without a usable vector, keywords and a note."""
        ranked = [self.rank_keywords(build.keyword_ranking(plan, user_id))]
        note = NO_VECTOR_NOTE if query_vector is None else None
        if query_vector is not None:
            try:
                ranked.append(self.rank_vectors(build.vector_ranking(plan, user_id, query_vector)))
            except VectorSearchFailed as exc:
                log.warning("vector half of text search failed: %s", exc)
                note = VECTOR_FAILED_NOTE
        fused = reciprocal_rank_fusion([[i for i, _ in r] for r in ranked], limit=TOP_HITS)
        documents = {i: d for r in ranked for i, d in r if d is not None}
        missing = [i for i, _ in fused if i not in documents]
        documents.update(self.fetch_chunks(missing) if missing else {})
        hits = [hit_from_source(documents[i], score) for i, score in fused]
        return TextQAResult(hits=hits, keyword_only=len(ranked) < 2, note=note)

    def vocabulary(self, user_id: str) -> Vocabulary:
        facets = self.run_facets(build.vocabulary(user_id))
        values = facets.values
        first, last = facets.span
        currencies = [row[0] for row in values["currency"]]
        return Vocabulary(
            merchants=[row[0] for row in values["merchant"]],
            descriptors={row[0]: row[1] for row in values["merchant"] if row[1]},
            categories=[row[0] for row in values["category"]],
            accounts=sorted(
                (
                    AccountInfo(name, bank, number[-4:])
                    for number, name, bank in values["account_no"]
                ),
                key=astuple,  # AccountInfo has no order of its own
            ),
            first_date=date.fromisoformat(first) if first else None,
            last_date=date.fromisoformat(last) if last else None,
            currency=currencies[0] if currencies else DEFAULT_CURRENCY,
            currencies=currencies,
        )

    def file_stats(self, user_id: str) -> dict[str, FileStats]:
        """Per ``source_file`` of the user's transactions: its rows and the months they span."""
        cells = self.run_stats(build.file_stats(user_id)).cells
        months: dict[str, list[tuple[date, int]]] = {}
        for (name, month), raw in cells["months"].items():
            if name:
                months.setdefault(str(name), []).append((_bucket(month), raw[0]))
        return {
            name: FileStats(sum(n for _, n in found), min(found)[0], max(found)[0])
            for name, found in months.items()
        }

    def statements(self, user_id: str) -> list[StatementInfo]:
        """The Sources page's order: by account, then period."""
        found = self.run_statements(build.statements(user_id))
        infos = [statement_info(document, pages) for document, pages in found]
        return sorted(infos, key=lambda s: (s.account_name, s.statement_from))

    def statement_chunks(self, user_id: str, statement_id: str) -> list[StatementHit]:
        found = self.run_search(build.statement_chunks(user_id, statement_id))
        return [hit_from_source(d, 0.0) for d in found.documents]


def whole_of(plan: IntentPlan, share_of: ShareOf) -> IntentPlan:
    """What a share is of: the same figure without the subject (categories, merchants,
    words, payment kinds), or income over the same accounts, period and currency."""
    if share_of is ShareOf.income:
        return IntentPlan(
            intent=Intent.aggregate,
            direction=Direction.in_,
            accounts=plan.accounts,
            date_from=plan.date_from,
            date_to=plan.date_to,
            currency=plan.currency,
        )
    return plan.model_copy(
        update={"categories": [], "merchants": [], "text": None, "payment_kinds": []}
    )


def _directed(direction: Direction, cells: Mapping[CellKey, Raw]) -> dict[CellKey, CellStats]:
    return {key: directed_stats(direction, *raw) for key, raw in cells.items()}


def _bucket(key: str | date) -> date:
    """A ``Buckets`` level's key: engines answer with the bucket's first day."""
    assert isinstance(key, date), key
    return key


def _label(key: str | date) -> str:
    return key.isoformat() if isinstance(key, date) else key


def _currency(span: tuple[str | None, str | None]) -> str:
    """One currency, "mixed" when the rows hold several (split above the engines), or the
    default when there are no rows."""
    return currency_of((c for c in span if c is not None), DEFAULT_CURRENCY)
