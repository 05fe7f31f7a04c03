"""One size of the benchmark: write the data, land it on each backend through the real ingest
path, ask the question set through the real pipeline, answer it with pandas and DuckDB, check."""

from __future__ import annotations

import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from elastic.backend import SearchBackend, WriteCounts
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.errors import BackendError
from elastic.ingest import Importer
from elastic.model.records import StatementChunk
from llm.answering.answer import Answer
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from scripts.bench.data import statement_pages, write_transactions_csv
from scripts.bench.measure import Phase, Phases
from scripts.bench.questions import (
    ERROR,
    QUESTIONS,
    Figures,
    Question,
    answer_figures,
    compare,
    duckdb_figures,
    load_duckdb,
    load_pandas,
    pandas_figures,
)
from settings import Settings

USER = "bench"
AS_OF = date(2025, 12, 31)
PAGE_BATCH = 1000
BACKENDS = ("embedded", "elasticsearch")
REFERENCES = ("pandas", "duckdb")
T = TypeVar("T")


@dataclass(frozen=True)
class SizeConfig:
    """What one size runs: ``runs`` measured rounds after one warm-up round."""

    size: int
    pages: int
    runs: int
    backends: tuple[str, ...]
    es_url: str | None = None
    es_pid: int | None = None


@dataclass(frozen=True)
class Timing:
    """One engine's samples for one question (warm-up round dropped), in milliseconds.

    ``stages`` are the pipeline's ``timings_ms`` (route, search, compose) of the asks that
    succeeded; references have none.
    """

    engine: str
    question: str
    wall: list[float]
    stages: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # asks the backend failed

    @property
    def pipeline(self) -> list[float]:
        """Per sample, the sum of the pipeline's stage timings."""
        return [sum(parts) for parts in zip(*self.stages.values(), strict=True)]


@dataclass(frozen=True)
class Ingestion:
    """The CSV landed through the ``Importer``, and the statement pages added, on one backend."""

    backend: str
    rows: int
    seconds: float
    problems: int
    pages_seconds: float
    # Of ``seconds``, the time inside the backend's ``add_transactions``: the store's own share
    # (SQLite's inserts and index build; Elasticsearch's bulk requests), the rest is reading
    # and cleaning the file.
    store_seconds: float
    columns_seconds: float | None = None  # the embedded store's columnar cache, loaded after

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds

    @property
    def store_rows_per_s(self) -> float:
        """The rate the store's writes alone would allow, were reading and cleaning free."""
        return self.rows / self.store_seconds


@dataclass(frozen=True)
class Check:
    """An engine's answer to a question against a reference's: ``exact`` or the mismatch."""

    engine: str
    question: str
    reference: str
    verdict: str


@dataclass(frozen=True)
class SizeResult:
    """Everything one size measured."""

    size: int
    rows: int
    pages: int
    csv_mb: float
    ingestion: list[Ingestion]
    timings: list[Timing]
    checks: list[Check]
    phases: list[Phase]
    load_seconds: dict[str, float]


def _rounds(answer: Callable[[Question], T], runs: int) -> Iterator[tuple[Question, float, T]]:
    """Every question once per round, ``runs`` rounds after one warm-up round that is dropped."""
    for round_no in range(runs + 1):
        for question in QUESTIONS:
            started = time.perf_counter()
            result = answer(question)
            if round_no:
                yield question, (time.perf_counter() - started) * 1000, result


@contextmanager
def fresh_backend(
    name: str, config: SizeConfig, data_dir: Path, embedder: LocalEmbedder
) -> Iterator[SearchBackend]:
    """A fresh store (a new SQLite file, or new indices on the node), removed afterwards."""
    if name == "embedded":
        embedded = EmbeddedBackend(Settings(data_dir=data_dir))
        try:
            embedded.prepare(embedder.dims, embedder.model_name)
            yield embedded
        finally:
            embedded.close()
        return
    suffix = uuid.uuid4().hex[:8]
    settings = Settings(
        es_url=config.es_url,
        statements_index=f"bench-statements-{suffix}",
        transactions_index=f"bench-transactions-{suffix}",
        facts_index=f"bench-facts-{suffix}",
        category_rules_index=f"bench-category-rules-{suffix}",
        data_dir=data_dir,
    )
    es = ElasticsearchBackend(settings)
    try:
        es.prepare(embedder.dims, embedder.model_name)
        yield es
    finally:
        es.es.indices.delete(index=es.indices, ignore_unavailable=True)
        es.close()


def _land(
    backend: SearchBackend,
    name: str,
    csv_path: Path,
    chunks: list[StatementChunk],
    vectors: np.ndarray,
    model: str,
    phases: Phases,
) -> Ingestion:
    """The CSV through an ``Importer`` (as ``finsync ingest``), then the pages in batches."""
    writes = _TimedWrites(backend)
    with phases.phase(f"ingest {name}"):
        started = time.perf_counter()
        report = Importer(backend, USER).land(csv_path)
        seconds = time.perf_counter() - started
    with phases.phase(f"pages {name}"):
        started = time.perf_counter()
        for start in range(0, len(chunks), PAGE_BATCH):
            end = start + PAGE_BATCH
            backend.add_statement_chunks(USER, chunks[start:end], vectors[start:end], model)
        pages_seconds = time.perf_counter() - started
    columns_seconds = None
    if isinstance(backend, EmbeddedBackend):  # steady answers come from its columns
        with phases.phase(f"columns {name}"):
            started = time.perf_counter()
            if not backend.load_columns(USER):
                raise RuntimeError("the columnar cache did not load; see the log")
            columns_seconds = time.perf_counter() - started
    rate = report.indexed / seconds
    print(f"  {name}: {report.indexed:,} rows in {seconds:.1f} s ({rate:,.0f} rows/s)", flush=True)
    return Ingestion(
        name,
        report.indexed,
        seconds,
        len(report.problems),
        pages_seconds,
        writes.seconds,
        columns_seconds,
    )


class _TimedWrites:
    """Sums the time ``backend.add_transactions`` takes, by wrapping it on this instance."""

    def __init__(self, backend: SearchBackend) -> None:
        self.seconds = 0.0
        write = backend.add_transactions

        def timed(*args: Any, **kwargs: Any) -> WriteCounts:
            started = time.perf_counter()
            try:
                return write(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        backend.add_transactions = timed  # type: ignore[method-assign]


def _ask(pipeline: ChatPipeline, name: str, runs: int) -> tuple[list[Timing], dict[str, Figures]]:
    """The question set through ``ChatPipeline.ask``: timings and the last answers' figures."""
    walls: dict[str, list[float]] = {q.key: [] for q in QUESTIONS}
    stages: dict[str, dict[str, list[float]]] = {q.key: {} for q in QUESTIONS}
    figures: dict[str, Figures] = {}
    errors: dict[str, list[str]] = {q.key: [] for q in QUESTIONS}

    def ask(question: Question) -> Answer | BackendError:
        try:
            return pipeline.ask(question.text, USER, AS_OF)
        except BackendError as exc:  # e.g. a query past the timeout: reported, not fatal
            return exc

    for question, ms, answer in _rounds(ask, runs):
        walls[question.key].append(ms)
        if isinstance(answer, BackendError):
            errors[question.key].append(str(answer))
            figures[question.key] = ((ERROR, str(answer), 0),)
            continue
        for stage, stage_ms in answer.timings_ms.items():
            stages[question.key].setdefault(stage, []).append(stage_ms)
        figures[question.key] = answer_figures(answer)
    timings = [Timing(name, q.key, walls[q.key], stages[q.key], errors[q.key]) for q in QUESTIONS]
    return timings, figures


def _reference(
    name: str, answer: Callable[[Question], Figures], runs: int
) -> tuple[list[Timing], dict[str, Figures]]:
    """A reference engine's answers, timed the same way as the pipeline's."""
    walls: dict[str, list[float]] = {q.key: [] for q in QUESTIONS}
    figures: dict[str, Figures] = {}
    for question, ms, found in _rounds(answer, runs):
        walls[question.key].append(ms)
        figures[question.key] = found
    return [Timing(name, q.key, walls[q.key]) for q in QUESTIONS], figures


def _pandas(
    csv_path: Path, chunks: list[StatementChunk], runs: int
) -> tuple[float, list[Timing], dict[str, Figures]]:
    """Seconds to load the CSV into pandas, then the question set answered by the oracle."""
    started = time.perf_counter()
    frame, pages = load_pandas(csv_path, chunks)
    seconds = time.perf_counter() - started
    return seconds, *_reference("pandas", lambda q: pandas_figures(frame, pages, q), runs)


def _duckdb(
    csv_path: Path, chunks: list[StatementChunk], runs: int
) -> tuple[float, list[Timing], dict[str, Figures]]:
    """Seconds to load the CSV into an in-memory DuckDB, then the question set in SQL."""
    started = time.perf_counter()
    con = load_duckdb(csv_path, chunks)
    seconds = time.perf_counter() - started
    try:
        return seconds, *_reference("duckdb", lambda q: duckdb_figures(con, q), runs)
    finally:
        con.close()


def check_all(answers: dict[str, dict[str, Figures]]) -> list[Check]:
    """Each backend's answers against both references', and pandas' against DuckDB's."""
    pairs = [(e, r) for e in answers if e not in REFERENCES for r in REFERENCES]
    return [
        Check(engine, q.key, reference, compare(answers[engine][q.key], answers[reference][q.key]))
        for engine, reference in [*pairs, REFERENCES]
        for q in QUESTIONS
    ]


def run_size(config: SizeConfig) -> SizeResult:
    """Run one size end to end in this process; every store it creates is removed."""
    print(f"== {config.size:,} transactions, {config.pages:,} pages", flush=True)
    phases = Phases(config.es_pid)
    embedder = LocalEmbedder()
    embedder.warm_up()
    timings: list[Timing] = []
    answers: dict[str, dict[str, Figures]] = {}
    ingestion: list[Ingestion] = []
    load_seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="finsync-bench-") as tmp:
        csv_path = Path(tmp) / "transactions.csv"
        with phases.phase("generate"):
            rows = write_transactions_csv(csv_path, config.size)
            chunks, vectors = statement_pages(config.pages, embedder)
        for name in config.backends:
            with fresh_backend(name, config, Path(tmp) / name, embedder) as backend:
                ingestion.append(
                    _land(backend, name, csv_path, chunks, vectors, embedder.model_name, phases)
                )
                with phases.phase(f"questions {name}"):
                    found, answers[name] = _ask(
                        ChatPipeline(backend, embedder, OfflineRouter), name, config.runs
                    )
                timings += found
        for name, answer in (("pandas", _pandas), ("duckdb", _duckdb)):
            with phases.phase(name):
                load_seconds[name], found, answers[name] = answer(csv_path, chunks, config.runs)
            timings += found
        csv_mb = csv_path.stat().st_size / 1024**2
    return SizeResult(
        config.size,
        rows,
        config.pages,
        csv_mb,
        ingestion,
        timings,
        check_all(answers),
        phases.done,
        load_seconds,
    )
