"""Ingestion in the background: a thread per job, so a long upload never runs inside a page's
script run or an API request. The Ingest page (and the API) starts a job and polls
:meth:`IngestJob.view`; a person can leave the page and come back, since jobs are kept per user
(and data store) for the life of the server, the last one until it is dismissed or replaced.

Progress is what the landing functions report (``llm.ingesting.Progress``): files done,
and rows written of the file in hand. A statement PDF reports its rows only once its pages are
read, so while they are read the label says so and the bar stays at the files done.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from elastic.ingest.bank_csv import ColumnMapping
from elastic.model.records import IngestReport
from llm.faults import fault_line
from llm.ingesting import FileDefaults, Progress

log = logging.getLogger(__name__)

RUNNING_JOBS = 2  # jobs ingesting at once in this server; later ones wait for a slot
JobKey = tuple[str, str]  # (data store fingerprint, user id)


@dataclass(frozen=True)
class FileToIngest:
    """One uploaded file with everything the page's forms said about it."""

    name: str
    path: Path
    defaults: FileDefaults
    mapping: ColumnMapping | None = None


IngestWork = Callable[[FileToIngest, Progress], IngestReport]
"""Lands one file, calling ``progress(done, total, label)`` as rows are written."""


class JobState(StrEnum):
    waiting = "waiting"  # for one of the RUNNING_JOBS slots
    running = "running"
    finished = "finished"  # every file done, or stopped by a failure


@dataclass(frozen=True)
class JobView:
    """A consistent snapshot of a job, for one script run to draw."""

    state: JobState
    files: tuple[str, ...]
    files_done: int
    current: str | None
    rows_done: int
    rows_total: int
    reports: tuple[IngestReport, ...]
    failure: str | None

    @property
    def finished(self) -> bool:
        return self.state is JobState.finished

    @property
    def fraction(self) -> float:
        within = self.rows_done / self.rows_total if self.rows_total else 0.0
        return min((self.files_done + within) / max(len(self.files), 1), 1.0)

    @property
    def label(self) -> str:
        if self.state is JobState.waiting:
            return "Waiting for other imports on this server to finish…"
        if self.state is JobState.finished:
            return f"Done: {self.files_done} of {len(self.files)} files"
        which = f"file {self.files_done + 1} of {len(self.files)}"
        if self.rows_total:
            return (
                f"Ingesting {self.current} ({which}): "
                f"{self.rows_done:,} of {self.rows_total:,} rows written"
            )
        return f"Reading {self.current} ({which})…"


class IngestJob:
    """Files landed one after another in a thread of their own."""

    def __init__(
        self,
        files: Sequence[FileToIngest],
        work: IngestWork,
        on_done: Callable[[], None],
        slots: threading.BoundedSemaphore,
    ) -> None:
        self.files = list(files)
        self._work = work
        self._on_done = on_done  # after the last file or a failure: caches see the new data
        self._slots = slots
        self._lock = threading.Lock()
        self._state = JobState.waiting
        self._current: str | None = None
        self._rows_done = 0
        self._rows_total = 0
        self._reports: list[IngestReport] = []
        self._failure: str | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        # A daemon: a server stopping mid-import keeps every batch already written (each write
        # is a transaction) and the person imports the file again; nothing lands twice.
        self._thread = threading.Thread(target=self._run, name="ingest-job", daemon=True)
        self._thread.start()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Until the job is finished; whether it is."""
        if self._thread is not None:
            self._thread.join(timeout_s)
        return self.view().finished

    def view(self) -> JobView:
        with self._lock:
            return JobView(
                state=self._state,
                files=tuple(f.name for f in self.files),
                files_done=len(self._reports),
                current=self._current,
                rows_done=self._rows_done,
                rows_total=self._rows_total,
                reports=tuple(self._reports),
                failure=self._failure,
            )

    def _progress(self, done: int, total: int, label: str) -> None:
        with self._lock:
            self._rows_done, self._rows_total = done, total

    def _run(self) -> None:
        try:
            with self._slots:
                for upload in self.files:
                    with self._lock:
                        self._state = JobState.running
                        self._current, self._rows_done, self._rows_total = upload.name, 0, 0
                    report = self._work(upload, self._progress)
                    with self._lock:
                        self._reports.append(report)
        except Exception as exc:
            self._fail(exc)
        finally:
            try:
                self._on_done()
            except Exception:
                log.exception("refreshing the caches after an import failed")
            with self._lock:
                self._state, self._current = JobState.finished, None

    def _fail(self, exc: Exception) -> None:
        with self._lock:
            name, done = self._current, len(self._reports)
            rows, total = self._rows_done, self._rows_total
        landed = f"{done} of {len(self.files)} files landed in full"
        if rows:
            landed += f", and {rows:,} of {total:,} rows of {name}"
        line = fault_line(
            f"Ingestion stopped at {name}",
            exc,
            f"{landed}; what landed is kept. Press Ingest again once the problem is fixed: "
            "nothing is added twice.",
        )
        with self._lock:
            self._failure = line


class JobRunning(RuntimeError):
    """The user already has a job that has not finished."""


class IngestJobs:
    """The jobs of this server, the last one per key."""

    def __init__(self, running: int = RUNNING_JOBS) -> None:
        self._slots = threading.BoundedSemaphore(running)
        self._jobs: dict[JobKey, IngestJob] = {}
        self._lock = threading.Lock()

    def start(
        self,
        key: JobKey,
        files: Sequence[FileToIngest],
        work: IngestWork,
        on_done: Callable[[], None],
    ) -> IngestJob:
        """A new job for ``key``; JobRunning while its previous one is not finished."""
        with self._lock:
            previous = self._jobs.get(key)
            if previous is not None and not previous.view().finished:
                raise JobRunning("an import is already running")
            job = IngestJob(files, work, on_done, self._slots)
            self._jobs[key] = job
        job.start()
        return job

    def get(self, key: JobKey) -> IngestJob | None:
        with self._lock:
            return self._jobs.get(key)

    def dismiss(self, key: JobKey) -> None:
        """Forget the finished job of ``key`` (its report has been read)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.view().finished:
                del self._jobs[key]


JOBS = IngestJobs()
