"""What a new user waits for: the sample statement PDFs landing with local embeddings, and the
first answer of a freshly started app (a cold process, the model loading in the background as
the app loads it)."""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pypdfium2

from elastic.ingest import Importer
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from llm.ingesting import file_importer
from llm.services import build_pipeline
from scripts.bench.run import AS_OF, USER, SizeConfig, fresh_backend
from scripts.sample_data import generate_sample
from settings import Settings

# The sample the first questions were written for; the other bench data ends where it always did.
SAMPLE_END = date(2025, 6, 1)
FIRST_QUESTIONS = ("What is the overdraft fee?", "How much did I spend on groceries in 2024?")


@dataclass(frozen=True)
class StatementIngestion:
    """The sample statements through an ``Importer`` (read, chunk, embed, store)."""

    backend: str
    files: int
    pages: int
    seconds: float

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.seconds


@dataclass(frozen=True)
class FirstAnswer:
    """Seconds from building the app's pipeline in a fresh process to each answer."""

    question: str
    seconds: float


def statement_ingestion(config: SizeConfig) -> list[StatementIngestion]:
    """Land the sample set's statement PDFs on each backend with the local model, loaded
    before the clock starts."""
    found = []
    with tempfile.TemporaryDirectory(prefix="finsync-bench-pdfs-") as tmp:
        pdfs = generate_sample(Path(tmp) / "sample", end=SAMPLE_END).statement_pdfs
        pages = sum(len(pypdfium2.PdfDocument(pdf)) for pdf in pdfs)
        for name in config.backends:
            # A model of its own for each store: the vectors the embedder remembers from the
            # previous store's import would spare this one its embedding.
            embedder = LocalEmbedder()
            embedder.warm_up()
            with fresh_backend(name, config, Path(tmp) / name, embedder) as backend:
                store = StatementStore(Path(tmp) / name / "statements")
                started = time.perf_counter()
                report = Importer(backend, USER, embedder, store).land_all(pdfs)
                seconds = time.perf_counter() - started
            assert not report.problems, report.problems
            found.append(StatementIngestion(name, len(pdfs), pages, seconds))
            print(f"  {name}: {pages} statement pages in {seconds:.1f} s", flush=True)
    return found


def sample_store(data_dir: Path) -> None:
    """The sample data in an embedded store at ``data_dir``, as ``finsync sample --ingest``."""
    sample = generate_sample(data_dir / "sample", end=SAMPLE_END)
    settings = Settings(data_dir=data_dir, es_url=None, user=USER)
    pipeline = build_pipeline(settings)
    try:
        importer = file_importer(settings, pipeline.backend, pipeline.embedder, USER)
        importer.land_all([sample.transactions_csv, *sample.statement_pdfs])
    finally:
        pipeline.backend.close()


def first_answers(data_dir: Path) -> list[FirstAnswer]:
    """In a fresh process: build the pipeline as the app does (the model loading in the
    background), ask at once, and time each answer from the start."""
    started = time.perf_counter()
    pipeline = build_pipeline(Settings(data_dir=data_dir, es_url=None, user=USER))
    loading = threading.Thread(target=pipeline.embedder.warm_up)  # as ui/context.py does
    loading.start()
    answers = []
    try:
        for question in FIRST_QUESTIONS:
            pipeline.ask(question, USER, AS_OF)
            answers.append(FirstAnswer(question, time.perf_counter() - started))
    finally:
        loading.join()
        pipeline.backend.close()
    return answers
