"""What the API and the MCP server do for a user, written once: answers through the pipeline
the CLI and the app share, imports through the app's importer, forgetting through the
pipeline, page images through the drawing the app's viewer uses. Every method takes the user
the caller's token acts for, and nothing else names whose data it reaches."""

from __future__ import annotations

import logging
import re
import secrets
import shutil
import threading
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from api.conversations import Conversations, UnknownConversation
from api.tokens import TokenStore
from elastic.masking import mask_account
from elastic.model.records import IngestReport
from elastic.model.results import StatementInfo
from llm.ingest_jobs import FileToIngest, IngestJob, IngestJobs, JobRunning, JobView
from llm.ingesting import FileDefaults, Importer, Progress
from llm.pdf_pages import PageNotDrawn, bounded_page_png, readable_page_count
from llm.pipeline import ChatPipeline, Scope
from llm.services import build_pipeline, statement_store
from settings import Settings

log = logging.getLogger(__name__)

KEPT_JOBS = 200  # finished imports whose reports can still be read, across users
_PROBE_USER = "finsync-health-probe"  # /health asks the backend for this id's files
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def iso_day(text: str) -> date:
    """A calendar day written ``YYYY-MM-DD``, and only that (no timestamps, no other formats);
    ``ValueError`` saying why for anything else, an impossible day included."""
    if not _ISO_DAY.fullmatch(text):
        raise ValueError(f"{text!r} is not a date written YYYY-MM-DD")
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a date: {exc}") from None


class Refused(Exception):
    """A request FinSync turns down: the message says why in one line, ``status`` is the HTTP
    status that says the same."""

    status = 400


class NotFound(Refused):
    status = 404


class ImportRunning(Refused):
    status = 409


class TooLarge(Refused):
    status = 413


class Unusable(Refused):
    """Well-formed, but nothing FinSync can work with (an empty question, an undrawable page)."""

    status = 422


@dataclass(frozen=True)
class Upload:
    """A file received for an import, already written under a folder of its own."""

    name: str
    path: Path


class FinSyncService:
    """One per server process: the pipeline (built on first use, so a backend that is down at
    start is tried again on the next request), conversations, imports and tokens."""

    def __init__(self, settings: Settings, pipeline: ChatPipeline | None = None) -> None:
        self.settings = settings
        self.tokens = TokenStore(settings.api_tokens_file)
        self.store = statement_store(settings)
        self.conversations = Conversations()
        self._pipeline = pipeline
        self._pipeline_lock = threading.Lock()
        self._imports = IngestJobs()
        self._jobs: dict[str, tuple[str, IngestJob]] = {}
        self._jobs_lock = threading.Lock()

    def pipeline(self) -> ChatPipeline:
        """The pipeline; raises the backend's error (``BackendUnavailable``) while it is down."""
        with self._pipeline_lock:
            if self._pipeline is None:
                self._pipeline = build_pipeline(self.settings)
            return self._pipeline

    def close(self) -> None:
        with self._pipeline_lock:
            if self._pipeline is not None:
                self._pipeline.backend.close()
                self._pipeline = None

    def health(self) -> dict[str, str]:
        """The engine answering, after one real read of it."""
        pipeline = self.pipeline()
        pipeline.source_files(_PROBE_USER)
        return {"status": "ok", "backend": pipeline.backend_name}

    # --- answers ---------------------------------------------------------------------------

    def ask(
        self,
        user_id: str,
        question: str,
        as_of: date | None = None,
        conversation_id: str | None = None,
        scope: Scope | None = None,
    ) -> dict[str, Any]:
        """The object ``finsync ask --json`` prints, plus the ``conversation_id`` to continue
        with: a follow-up amends the plan of the conversation's last answer with a result."""
        question = question.strip()
        if not question:
            raise Unusable("question: the question is empty")
        limit = self.settings.api_max_question_chars
        if len(question) > limit:
            raise TooLarge(
                f"the question is {len(question):,} characters long; at most {limit:,} are taken"
            )
        previous = None
        if conversation_id is None:
            conversation_id = self.conversations.new_id()
        else:
            try:
                previous = self.conversations.previous(user_id, conversation_id)
            except UnknownConversation:
                raise NotFound(
                    f"no conversation {conversation_id!r} of yours: leave conversation_id out "
                    "to start one"
                ) from None
        answer = self.pipeline().ask(question, user_id, as_of or date.today(), previous, scope)
        basis = answer.follow_up_basis if answer.result is not None else previous
        self.conversations.record(user_id, conversation_id, basis)
        return {**answer.as_json(), "conversation_id": conversation_id}

    def accounts(self, user_id: str) -> dict[str, Any]:
        """The user's accounts (numbers masked) and the dates their transactions span."""
        vocabulary = self.pipeline().vocabulary(user_id)
        return {
            "accounts": [
                {
                    "account_name": a.account_name,
                    "bank_name": a.bank_name,
                    "account_no": mask_account(a.last4),
                }
                for a in vocabulary.accounts
            ],
            "first_date": _iso(vocabulary.first_date),
            "last_date": _iso(vocabulary.last_date),
        }

    # --- sources ---------------------------------------------------------------------------

    def sources(self, user_id: str) -> list[dict[str, Any]]:
        """Each of the user's files, as ``finsync forget --list`` names them (a statement PDF by
        the name it was imported with), with the period it covers, its rows and pages, and the
        statements a PDF held."""
        return [
            {
                "file": source.name,
                "kind": source.kind,
                "date_from": _iso(source.first),
                "date_to": _iso(source.last),
                "rows": source.rows,
                "pages": source.pages,
                "statements": [_statement(s) for s in source.statements],
            }
            for source in self.pipeline().sources(user_id)
        ]

    def forget(self, user_id: str, source_file: str) -> dict[str, Any]:
        """Delete one of the user's files (named as ``sources`` names it): its rows, pages,
        facts and kept PDF."""
        forgotten = self.pipeline().forget(user_id, self.store, [source_file])
        if forgotten.unknown:
            raise NotFound(f"{source_file!r} is not one of your files (see GET /sources)")
        return {"file": source_file, "documents": forgotten.documents, "pdfs": len(forgotten.pdfs)}

    def page_png(self, user_id: str, statement_id: str, page: int) -> bytes:
        """Page ``page`` of one of the user's statements as PNG, account number masked."""
        chunks = self.pipeline().statement_pages(user_id, statement_id)
        if not chunks:
            raise NotFound(f"no statement {statement_id!r} among your data")
        first = chunks[0]
        try:
            pdf = self.store.path(first.source_file, user_id)
        except ValueError:
            pdf = None
        pages = readable_page_count(pdf) if pdf is not None and pdf.exists() else None
        if pdf is None or pages is None:
            raise NotFound("the original PDF of this statement is not stored")
        if not 1 <= page <= pages:
            raise NotFound(f"the statement has {pages} page{'s' if pages != 1 else ''}")
        try:
            return bounded_page_png(pdf, page, first.account_no)
        except PageNotDrawn as exc:
            raise Unusable(f"page {page} is not drawn: {exc}") from None

    # --- imports ---------------------------------------------------------------------------

    def start_import(
        self, user_id: str, uploads: list[Upload], defaults: FileDefaults, folder: Path
    ) -> str:
        """Land ``uploads`` in the background as the Ingest page does; the job's id. The
        folder holding the uploads is removed when the job is done. ``ImportRunning`` while
        the user's previous import is not finished."""
        pipeline = self.pipeline()
        importer = Importer(pipeline, self.settings, self.store, user_id)

        def land(upload: FileToIngest, progress: Progress) -> IngestReport:
            return importer.land(upload.path, upload.defaults, upload.mapping, progress)

        def done() -> None:
            pipeline.data_changed(user_id)
            shutil.rmtree(folder, ignore_errors=True)

        files = [FileToIngest(u.name, u.path, defaults) for u in uploads]
        try:
            job = self._imports.start(("api", user_id), files, land, done)
        except JobRunning:
            shutil.rmtree(folder, ignore_errors=True)
            raise ImportRunning(
                "an import of yours is still running: wait for its report (GET /ingest/{job})"
            ) from None
        job_id = secrets.token_urlsafe(12)
        with self._jobs_lock:
            self._jobs[job_id] = (user_id, job)
            finished = [k for k, (_, j) in self._jobs.items() if j.view().finished]
            for old in finished[: max(len(self._jobs) - KEPT_JOBS, 0)]:
                del self._jobs[old]
        return job_id

    def job(self, user_id: str, job_id: str) -> dict[str, Any]:
        """Where one of the user's imports stands, with each file's report once landed."""
        with self._jobs_lock:
            owner, job = self._jobs.get(job_id, (None, None))
        if job is None or owner != user_id:
            raise NotFound(f"no import {job_id!r} of yours")
        return _job(job_id, job.view())


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


def _statement(info: StatementInfo) -> dict[str, Any]:
    return {
        "statement_id": info.statement_id,
        "bank_name": info.bank_name,
        "account_name": info.account_name,
        "account_no": mask_account(info.account_no),
        "statement_from": _iso(info.statement_from),
        "statement_to": _iso(info.statement_to),
        "pages": info.pages,
    }


def _report(report: IngestReport) -> dict[str, Any]:
    """A file's report, as ``finsync ingest`` prints it."""
    return {
        "source": report.source,
        "format": report.format or "unreadable",
        "indexed": report.indexed,
        "skipped": report.skipped,
        "pending": report.pending,
        "summary": report.summary(),
        "assumed": list(report.assumed),
        "problems": [{"location": p.location, "reason": p.reason} for p in report.problems],
    }


def _job(job_id: str, view: JobView) -> dict[str, Any]:
    return {
        "job": job_id,
        "state": view.state.value,
        "label": view.label,
        "progress": round(view.fraction, 4),
        "files": list(view.files),
        "files_done": view.files_done,
        "current": view.current,
        "rows_done": view.rows_done,
        "rows_total": view.rows_total,
        "reports": [_report(r) for r in view.reports],
        "failure": view.failure,
    }
