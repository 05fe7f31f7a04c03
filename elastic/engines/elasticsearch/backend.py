"""The Elasticsearch backend: indices, idempotent bulk writes, and the engine the shared read
flows (``elastic.query.flows``) run on."""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from concurrent import futures
from contextlib import contextmanager
from datetime import date
from functools import lru_cache
from typing import Any

import numpy as np
import orjson
from elasticsearch import ApiError, ConnectionTimeout, Elasticsearch, TransportError, helpers
from elasticsearch.serializer import OrjsonSerializer

from elastic.backend import CategoryMemory, WriteCounts
from elastic.engines.elasticsearch.compile import (
    CELLS,
    SPAN_AGGS,
    STATS,
    VECTOR_FIELD,
    Body,
    Index,
    compile_query,
    escape_wildcard,
)
from elastic.engines.elasticsearch.mappings import (
    category_rules_mapping,
    facts_mapping,
    statements_mapping,
    transactions_mapping,
)
from elastic.errors import BackendUnavailable, EmbeddingMismatch, QueryRejected
from elastic.model.plan import TRANSFERS_CATEGORY
from elastic.model.records import StatementChunk, StatementFact, Transaction
from elastic.query.build import STATEMENTS_SIZE
from elastic.query.flows import Engine, Ranked, VectorSearchFailed
from elastic.query.spec import (
    Breakdown,
    Buckets,
    CellKey,
    Collection,
    Document,
    Facets,
    FacetsQuery,
    Found,
    Raw,
    Search,
    StatementsQuery,
    StatsFound,
    StatsQuery,
    TextRanking,
    VectorRanking,
)
from settings import Settings

log = logging.getLogger(__name__)

BULK_CHUNK = 500
# A transactions batch goes in requests of this many documents (about 600 bytes each).
TX_BULK_CHUNK = 2500
# Only what is counted: the node then builds and sends far less. Items answer in request order.
TX_BULK_RESPONSE_FIELDS = "items.*.status,items.*.error.reason"
# Bulk requests of one batch in flight at once; the node's write pool has a thread per core.
TX_SENDERS = 2
# Rows turned away by a full write queue (429) are sent again after 2, 4, 8 s.
BULK_RETRIES = 3
BULK_RETRY_BACKOFF_S = 2.0
BULK_RESPONSE_FIELDS = "errors,items.*.status,items.*._id,items.*.error"
SCAN_PAGE = 1000
"""Hits one search returns when a reader wants them all; more are scrolled through."""
# Statuses that say the node or cluster is in trouble (or will not let us in), not the request.
_OUTAGE_STATUSES = frozenset({401, 403, 408, 429})

Request = Callable[[], object]
"""Rebuilds a request body, only when a rejected request is logged."""


def make_client(settings: Settings) -> Elasticsearch:
    """A client that gives up on a silent node after ``es_timeout_s`` without retrying the
    timeout, so a hung node is reported in seconds; one retry covers a dropped idle
    connection. Writes get ``es_write_timeout_s`` through ``Elasticsearch.options``."""
    api_key = settings.es_api_key.get_secret_value() if settings.es_api_key else None
    return Elasticsearch(
        settings.es_url,
        api_key=api_key,
        request_timeout=settings.es_timeout_s,
        retry_on_timeout=False,
        max_retries=1,
        # orjson writes the bulk requests of an import (and vectors) several times faster.
        serializer=OrjsonSerializer(),
    )


def _root_cause(exc: BaseException) -> str:
    """The innermost error of a transport failure ("Connection refused"), not its wrappers."""
    while (inner := exc.__cause__ or exc.__context__) is not None:
        exc = inner
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _raw(stats: Mapping[str, Any]) -> Raw:
    count = int(stats.get("count") or 0)
    if count == 0:
        return (0, 0, None, None)
    return (count, round(stats["sum"]), int(stats["min"]), int(stats["max"]))


def _cells(
    agg: Mapping[str, Any], levels: Breakdown, keys: CellKey
) -> Iterator[tuple[CellKey, Raw]]:
    """The cells of a breakdown's aggregation (``compile._breakdown``), keys outermost first."""
    if not levels:
        yield keys, _raw(agg)
        return
    for bucket in agg["buckets"]:
        is_date = isinstance(levels[0], Buckets)
        key = date.fromisoformat(bucket["key_as_string"]) if is_date else bucket["key"]
        inner = bucket[CELLS] if levels[1:] else bucket[STATS]
        yield from _cells(inner, levels[1:], (*keys, key))


@lru_cache(maxsize=256)
def _user_key(user_id: str) -> str:
    """A fixed-length key per user, so no user id and document id can combine into another
    user's document id (as "a:b" + "c" and "a" + "b:c" would)."""
    return hashlib.sha256(user_id.encode()).hexdigest()[:32]


def _doc_id(user_id: str, doc_id: str) -> str:
    return f"{_user_key(user_id)}:{doc_id}"


def _ndjson(user_id: str, rows: Sequence[Transaction]) -> bytes:
    """A bulk body of ``create`` actions written with orjson directly: the client's general
    serialisation costs more per row than the node's indexing."""
    return b"".join(
        b'{"create":{"_id":%b}}\n%b\n'
        % (
            orjson.dumps(_doc_id(user_id, row.transaction_id)),
            orjson.dumps(row.as_document(user_id)),
        )
        for row in rows
    )


def _added(a: WriteCounts, b: WriteCounts) -> WriteCounts:
    return WriteCounts(a.indexed + b.indexed, a.skipped + b.skipped, a.failed | b.failed)


class ElasticsearchBackend(Engine):
    name = "elasticsearch"
    background_writes = True

    def __init__(self, settings: Settings, client: Elasticsearch | None = None) -> None:
        self.url = settings.es_url or ""
        self.es = client or make_client(settings)
        self._timeout_s = settings.es_timeout_s
        self._write_timeout_s = settings.es_write_timeout_s
        # Bulk writes and index creation legitimately take longer than a question.
        self._writer = self.es.options(request_timeout=settings.es_write_timeout_s)
        self.tx_index = settings.transactions_index
        self.st_index = settings.statements_index
        self.facts_index = settings.facts_index
        self.rules_index = settings.category_rules_index
        self._paused: set[str] = set()  # indices an import writes unsearchable for now
        self._senders = futures.ThreadPoolExecutor(TX_SENDERS, thread_name_prefix="finsync-bulk")
        # Field names and types only: the vector's dimensions do not matter to a query.
        self.query_indices = {
            Collection.transactions: Index(self.tx_index, transactions_mapping()["properties"]),
            Collection.statements: Index(
                self.st_index, statements_mapping(0, "")["properties"], (VECTOR_FIELD,)
            ),
            Collection.facts: Index(self.facts_index, facts_mapping()["properties"]),
        }

    @property
    def indices(self) -> list[str]:
        return [self.tx_index, self.st_index, self.facts_index, self.rules_index]

    def _unavailable(self, reason: str) -> BackendUnavailable:
        return BackendUnavailable(
            f"The search backend is not answering; check that Elasticsearch at {self.url} is "
            f"running and reachable (FINSYNC_ES_URL): {reason}."
        )

    @contextmanager
    def _answering(self, request: Request | None = None, writing: bool = False) -> Iterator[None]:
        """Elasticsearch's errors as the two the callers handle (``elastic/backend.py``): an
        outage, or a rejected request, which is logged with ``request()``."""
        try:
            yield
        except ConnectionTimeout as exc:
            waited = self._write_timeout_s if writing else self._timeout_s
            raise self._unavailable(f"no answer within {waited:g} s") from exc
        except TransportError as exc:
            raise self._unavailable(_root_cause(exc)) from exc
        except ApiError as exc:
            status = exc.meta.status
            if status >= 500 or status in _OUTAGE_STATUSES:
                hint = " (check FINSYNC_ES_API_KEY)" if status in (401, 403) else ""
                raise self._unavailable(f"it answered {status} {exc.message}{hint}") from exc
            body = json.dumps(request(), default=str) if request else "(not recorded)"
            log.error(
                "Elasticsearch rejected a request with %s: %s; request: %s", status, exc, body
            )
            raise QueryRejected(
                f"Internal error: Elasticsearch rejected FinSync's request ({status} "
                f"{exc.message}). This is a bug in FinSync, not your question; it is logged "
                "with the request."
            ) from exc

    # -- set-up ---------------------------------------------------------------------------
    def prepare(self, dims: int, embedding_model: str) -> None:
        with self._answering():
            for index, mapping in (
                (self.tx_index, transactions_mapping()),
                (self.facts_index, facts_mapping()),
                (self.rules_index, category_rules_mapping()),
            ):
                if not self.es.indices.exists(index=index):
                    self._writer.indices.create(index=index, mappings=mapping)
                else:
                    self._add_missing_fields(index, mapping)
            if not self.es.indices.exists(index=self.st_index):
                self._writer.indices.create(
                    index=self.st_index, mappings=statements_mapping(dims, embedding_model)
                )
                return
            mapping = self._add_missing_fields(
                self.st_index, statements_mapping(dims, embedding_model)
            )
        stored = mapping["properties"]["summary_vector"]["dims"]
        stored_model = mapping.get("_meta", {}).get("embedding_model")
        if stored != dims or stored_model != embedding_model:
            raise EmbeddingMismatch(
                f"Index {self.st_index} holds {stored}-dimensional vectors from {stored_model}, "
                f"but the embedder is {embedding_model} ({dims} dimensions). "
                "Run `finsync reembed` to embed the stored pages again with it."
            )

    def _add_missing_fields(self, index: str, wanted: dict[str, Any]) -> dict[str, Any]:
        """Fields added to FinSync's documents since ``index`` was created (a row's payment kind, a
        statement's reconciliation, a page's ``file_name``) are
        added to its mapping, so new documents fit it ("dynamic": "strict"); the stored
        mapping, as it was found."""
        # One index, which may stand behind an alias of this name after ``reembed``.
        [found] = self.es.indices.get_mapping(index=index).values()
        mapping: dict[str, Any] = found["mappings"]
        present = mapping.get("properties", {})
        missing = {k: v for k, v in wanted["properties"].items() if k not in present}
        if missing:
            self._writer.indices.put_mapping(index=index, properties=missing)
            log.info("added the fields %s to the mapping of %s", sorted(missing), index)
        return mapping

    # -- writes ---------------------------------------------------------------------------
    @contextmanager
    def _searchable_after(self, index: str, visible: bool) -> Iterator[None]:
        """Around a write to ``index``. A long import (``visible=False`` until its last write)
        pauses the index's periodic refresh, so the node does not cut a small segment every
        second or after every file; the visible write refreshes once and resumes it, also when
        it fails."""
        if not visible and index not in self._paused:
            self._set_refresh_interval(index, "-1")
            self._paused.add(index)
        try:
            yield
            if visible:
                with self._answering(writing=True):
                    self._writer.indices.refresh(index=index)
        finally:
            if visible and index in self._paused:
                self._paused.discard(index)
                self._set_refresh_interval(index, None)

    def _bulk_create(self, user_id: str, actions: Sequence[Any]) -> WriteCounts:
        """``actions`` as the bulk helpers take them."""
        indexed = skipped = 0
        failed: dict[str, str] = {}
        with self._answering(writing=True):
            for ok, item in helpers.streaming_bulk(
                self._writer,
                actions,
                chunk_size=BULK_CHUNK,
                raise_on_error=False,
                raise_on_exception=True,
                max_retries=BULK_RETRIES,
                initial_backoff=BULK_RETRY_BACKOFF_S,
                # Only what is counted below: the node then builds and sends far less.
                filter_path=BULK_RESPONSE_FIELDS,
            ):
                result = item["create"]
                if ok:
                    indexed += 1
                elif result.get("status") == 409:
                    skipped += 1
                else:
                    error = result.get("error", {})
                    record_id = result["_id"].removeprefix(f"{_user_key(user_id)}:")
                    failed[record_id] = str(error.get("reason", error))
        return WriteCounts(indexed, skipped, failed)

    def add_transactions(
        self, user_id: str, rows: Sequence[Transaction], visible: bool = True
    ) -> WriteCounts:
        """An empty visible write only makes the import searchable (``_searchable_after``)."""
        counts = WriteCounts(0, 0, {})
        with self._searchable_after(self.tx_index, visible), self._answering(writing=True):
            # Each request goes as soon as its body is written, while the next one is: the
            # node indexes requests in flight at once each on a write thread of its own.
            sent: list[futures.Future[WriteCounts]] = []
            try:
                for start in range(0, len(rows), TX_BULK_CHUNK):
                    chunk = rows[start : start + TX_BULK_CHUNK]
                    body = _ndjson(user_id, chunk)
                    sent.append(self._senders.submit(self._create_rows, user_id, chunk, body))
            finally:
                futures.wait(sent)  # none still writing when a failure is raised
            for request in sent:
                counts = _added(counts, request.result())
        return counts

    def _create_rows(self, user_id: str, rows: Sequence[Transaction], body: bytes) -> WriteCounts:
        """One bulk request of ``create`` actions (``body``). Rows the node turns away for a full
        write queue (429), one by one or the whole request, are sent again, as the bulk helpers
        would."""
        indexed = skipped = 0
        failed: dict[str, str] = {}
        for attempt in range(BULK_RETRIES + 1):
            try:
                items = self._writer.bulk(
                    index=self.tx_index, operations=body, filter_path=TX_BULK_RESPONSE_FIELDS
                ).body["items"]
            except ApiError as exc:  # the whole request turned away
                if exc.meta.status != 429 or attempt == BULK_RETRIES:
                    raise
                items = [{"create": {"status": 429}}] * len(rows)
            retry: list[Transaction] = []
            for row, item in zip(rows, items, strict=True):
                result = item["create"]
                status = result["status"]
                if status < 300:
                    indexed += 1
                elif status == 409:
                    skipped += 1
                elif status == 429 and attempt < BULK_RETRIES:
                    retry.append(row)
                else:
                    error = result.get("error", {})
                    failed[row.transaction_id] = str(error.get("reason", error))
            if not retry:
                break
            time.sleep(BULK_RETRY_BACKOFF_S * 2**attempt)
            rows, body = retry, _ndjson(user_id, retry)
        return WriteCounts(indexed, skipped, failed)

    def _set_refresh_interval(self, index: str, interval: str | None) -> None:
        """``None`` restores the node's default (the indices are created without one)."""
        with self._answering(writing=True):
            self._writer.indices.put_settings(
                index=index, settings={"index": {"refresh_interval": interval}}
            )

    def _every_hit(self, index: str, body: Body) -> list[dict[str, Any]]:
        """Every hit of ``body``: one request when they fit in a page, where a scroll takes
        three (a statement import asks for a few per file), else a scroll."""
        hits = self.es.search(index=index, body={**body, "size": SCAN_PAGE})["hits"]["hits"]
        if len(hits) < SCAN_PAGE:
            return hits
        return list(helpers.scan(self.es, index=index, query=body, size=SCAN_PAGE))

    def missing_chunks(self, user_id: str, doc_ids: Sequence[str]) -> set[str]:
        if not doc_ids:
            return set()
        with self._answering():
            found = self.es.mget(
                index=self.st_index,
                ids=[_doc_id(user_id, d) for d in doc_ids],
                source=False,
            )["docs"]
        return {d for d, doc in zip(doc_ids, found, strict=True) if not doc.get("found")}

    def add_statement_chunks(
        self,
        user_id: str,
        chunks: Sequence[StatementChunk],
        vectors: np.ndarray,
        embedding_model: str,
        visible: bool = True,
    ) -> WriteCounts:
        """An import of several statements writes its pages unsearchable until its last, empty
        write (``_searchable_after``): each segment the node cuts builds a vector graph of its
        own."""
        actions = [
            {
                "_op_type": "create",
                "_index": self.st_index,
                "_id": _doc_id(user_id, chunk.doc_id),
                "_source": chunk.as_document(user_id, [float(x) for x in vector], embedding_model),
            }
            for chunk, vector in zip(chunks, vectors, strict=True)
        ]
        with self._searchable_after(self.st_index, visible):
            return self._bulk_create(user_id, actions)

    def add_facts(
        self, user_id: str, facts: Sequence[StatementFact], visible: bool = True
    ) -> WriteCounts:
        actions = [
            {
                "_op_type": "create",
                "_index": self.facts_index,
                "_id": _doc_id(user_id, fact.fact_id),
                "_source": fact.as_document(user_id),
            }
            for fact in facts
        ]
        with self._searchable_after(self.facts_index, visible):
            return self._bulk_create(user_id, actions)

    # -- re-embedding ---------------------------------------------------------------------
    def reembed(
        self,
        embed: Callable[[list[str]], np.ndarray],
        dims: int,
        embedding_model: str,
        progress: Callable[[int, int], None],
    ) -> int:
        """Copy every stored page into a new index with ``embed``'s vectors, then swap it in
        under the statements index's name in one alias update; the number of pages.

        A vector field's dimensions are fixed by its mapping, so the pages cannot be updated in
        place. The old index is write-blocked meanwhile: an import fails loudly (and can be run
        again) rather than adding a page the copy would miss.
        """
        with self._answering(writing=True):
            old = list(self.es.indices.get(index=self.st_index))
            self._writer.indices.put_settings(index=old, settings={"index.blocks.write": True})
            new = f"{self.st_index}-{uuid.uuid4().hex[:8]}"
            try:
                self._writer.indices.create(
                    index=new, mappings=statements_mapping(dims, embedding_model)
                )
                pages = list(
                    helpers.scan(self.es, index=old, source_excludes=[VECTOR_FIELD], size=500)
                )
                for start in range(0, len(pages), BULK_CHUNK):
                    batch = pages[start : start + BULK_CHUNK]
                    vectors = embed([page["_source"]["summary_text"] for page in batch])
                    helpers.bulk(
                        self._writer,
                        (
                            {
                                "_index": new,
                                "_id": page["_id"],
                                "_source": page["_source"]
                                | {
                                    VECTOR_FIELD: [float(x) for x in vector],
                                    "embedding_model": embedding_model,
                                },
                            }
                            for page, vector in zip(batch, vectors, strict=True)
                        ),
                    )
                    progress(start + len(batch), len(pages))
                self._writer.indices.refresh(index=new)
                swap = [{"remove_index": {"index": name}} for name in old]
                self._writer.indices.update_aliases(
                    actions=[*swap, {"add": {"index": new, "alias": self.st_index}}]
                )
            except BaseException:
                self._writer.indices.delete(index=new, ignore_unavailable=True)
                self._writer.indices.put_settings(index=old, settings={"index.blocks.write": None})
                raise
        return len(pages)

    # -- categories and transfers ---------------------------------------------------------
    def category_memory(self, user_id: str) -> CategoryMemory:
        user = {"term": {"user_id": user_id}}
        with self._answering(lambda: {"query": user}):
            rules = self._every_hit(self.rules_index, {"query": user})
            overrides = {r["_source"]["merchant"]: r["_source"]["category"] for r in rules}
        # Per merchant, the category its rows most often have where the file or the user said
        # so: a query of the spec, as every read of transactions.
        return CategoryMemory.build(overrides, self.known_categories(user_id))

    def _set_category(
        self, user_id: str, transaction_ids: Iterable[str], category: str, inferred: bool
    ) -> int:
        fields = {"category": category, "category_inferred": inferred}
        return self._update_rows(user_id, ((tx_id, fields) for tx_id in transaction_ids))

    def _update_rows(self, user_id: str, changes: Iterable[tuple[str, dict[str, Any]]]) -> int:
        """Partial updates by id (the stock node has no update-by-query: reindex module),
        searchable when they return."""
        actions = (
            {
                "_op_type": "update",
                "_index": self.tx_index,
                "_id": _doc_id(user_id, tx_id),
                "doc": fields,
            }
            for tx_id, fields in changes
        )
        updated, _ = helpers.bulk(self._writer, actions, chunk_size=BULK_CHUNK, refresh=True)
        return int(updated)

    def set_payment_kinds(self, user_id: str, kinds: Mapping[str, str]) -> int:
        """The ids an import found stored without a kind (a spec query read them): the node
        runs no scripts to test the field as it writes."""
        with self._answering(writing=True):
            changes = ((tx_id, {"payment_kind": kind}) for tx_id, kind in kinds.items())
            return self._update_rows(user_id, changes)

    def set_merchant_category(self, user_id: str, merchant: str, category: str) -> int:
        rule = {"user_id": user_id, "merchant": merchant, "category": category}
        query = {
            "bool": {"filter": [{"term": {"user_id": user_id}}, {"term": {"merchant": merchant}}]}
        }
        with self._answering(writing=True):
            self._writer.index(
                index=self.rules_index, id=_doc_id(user_id, merchant), document=rule, refresh=True
            )
            hits = self._every_hit(self.tx_index, {"query": query, "_source": ["transaction_id"]})
            ids = [h["_source"]["transaction_id"] for h in hits]
            return self._set_category(user_id, ids, category, inferred=False)

    def mark_transfers(self, user_id: str, transaction_ids: Sequence[str]) -> int:
        with self._answering(writing=True):
            return self._set_category(user_id, transaction_ids, TRANSFERS_CATEGORY, inferred=True)

    def amounts_on_account(
        self, user_id: str, last4: str, date_from: date, date_to: date
    ) -> list[tuple[date, int]]:
        query = {
            "bool": {
                "filter": [
                    {"term": {"user_id": user_id}},
                    {"range": {"date": {"gte": date_from.isoformat(), "lte": date_to.isoformat()}}},
                    {"wildcard": {"account_no": {"value": f"*{escape_wildcard(last4)}"}}},
                ]
            }
        }
        with self._answering(lambda: query):
            hits = self._every_hit(
                self.tx_index, {"query": query, "_source": ["date", "amount_cents"]}
            )
            return [
                (date.fromisoformat(h["_source"]["date"]), h["_source"]["amount_cents"])
                for h in hits
            ]

    def source_files(self, user_id: str) -> list[str]:
        body = {
            "size": 0,
            "query": {"term": {"user_id": user_id}},
            "aggs": {"files": {"terms": {"field": "source_file", "size": STATEMENTS_SIZE}}},
        }
        with self._answering(lambda: body):
            aggs = self.es.search(index=self.tx_index, body=body)["aggregations"]
        return sorted(b["key"] for b in aggs["files"]["buckets"] if b["key"])

    def forget(self, user_id: str, source_files: Sequence[str] | None = None) -> int:
        """Scan and bulk delete: the stock node has no delete-by-query (reindex module)."""
        filters: list[dict[str, Any]] = [{"term": {"user_id": user_id}}]
        indices = [self.tx_index, self.st_index, self.facts_index]
        if source_files is not None:
            filters.append({"terms": {"source_file": list(source_files)}})
        else:
            indices.append(self.rules_index)
        with self._answering(writing=True):
            hits = helpers.scan(
                self.es,
                index=indices,
                query={"query": {"bool": {"filter": filters}}, "_source": False},
            )
            actions = ({"_op_type": "delete", "_index": h["_index"], "_id": h["_id"]} for h in hits)
            deleted, _ = helpers.bulk(self._writer, actions, chunk_size=BULK_CHUNK, refresh=True)
        return int(deleted)

    # -- the engine under the shared flows -------------------------------------------------
    def _search(self, index: str, body: Body) -> dict[str, Any]:
        with self._answering(lambda: body):
            return self.es.search(index=index, body=body).body

    def _compiled(self, query: object) -> Body:
        [body] = compile_query(query, self.query_indices).values()
        return body

    def run_stats(self, query: StatsQuery) -> StatsFound:
        aggs = self._search(self.tx_index, self._compiled(query))["aggregations"]
        cells = {
            name: {key: raw for key, raw in _cells(aggs[name], levels, ()) if raw[0]}
            for name, levels in query.breakdowns
        }
        low, high = (
            next((b["key"] for b in aggs.get(name, {}).get("buckets", [])), None)
            for name in SPAN_AGGS
        )
        return StatsFound(cells, (low, high))

    def run_search(self, query: Search) -> Found:
        index = self.query_indices[query.collection].name
        hits = self._search(index, self._compiled(query))["hits"]
        total = int(hits["total"]["value"]) if query.total else None
        return Found([h["_source"] for h in hits["hits"]], total)

    def run_facets(self, query: FacetsQuery) -> Facets:
        aggs = self._search(self.tx_index, self._compiled(query))["aggregations"]
        values = {
            d.field: [
                (b["key"], *(b[f]["buckets"][0]["key"] for f in d.firsts))
                for b in aggs[d.field]["buckets"]
            ]
            for d in query.distinct
        }
        span = (aggs["first"].get("value_as_string"), aggs["last"].get("value_as_string"))
        return Facets(values, span)

    def run_statements(self, query: StatementsQuery) -> list[tuple[Document, int]]:
        aggs = self._search(self.st_index, self._compiled(query))["aggregations"]
        return [
            (b["doc"]["hits"]["hits"][0]["_source"], int(b["pages"]["value"]))
            for b in aggs["statements"]["buckets"]
        ]

    def rank_keywords(self, query: TextRanking) -> list[Ranked]:
        hits = self._search(self.st_index, self._compiled(query))["hits"]["hits"]
        return [(h["_id"], h["_source"]) for h in hits]

    def rank_vectors(self, query: VectorRanking) -> list[Ranked]:
        """Any failure of the kNN search (an outage too) leaves the keyword half to answer."""
        try:
            hits = self.es.search(index=self.st_index, body=self._compiled(query))["hits"]["hits"]
        except (ApiError, TransportError) as exc:
            raise VectorSearchFailed(str(exc)) from exc
        return [(h["_id"], h["_source"]) for h in hits]

    def fetch_chunks(self, ids: Sequence[Hashable]) -> dict[Hashable, Document]:
        with self._answering():
            docs = self.es.mget(
                index=self.st_index, ids=[str(i) for i in ids], source_excludes=[VECTOR_FIELD]
            )["docs"]
        return {d["_id"]: d["_source"] for d in docs if d.get("found")}

    def close(self) -> None:
        self._senders.shutdown()
        self.es.close()
