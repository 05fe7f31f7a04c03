"""Files into one person's data: the importer ``finsync ingest``, the app and the API build
from settings (``file_importer``), and the app's own view of it (``Importer``: previews of the
rows as they will land, uploads, remembered readings, and the import itself)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path

from elastic.backend import SearchBackend
from elastic.ingest import bank_csv
from elastic.ingest import importer as files
from elastic.ingest.bank_csv import ColumnMapping
from elastic.ingest.landing import FileDefaults, FilePreview, Progress, StatementPreview
from elastic.ingest.layout_memory import LayoutMemory
from elastic.ingest.parsed import ParsedFile
from elastic.ingest.pdf.page_reader import read_pages
from elastic.ingest.pdf.page_words import PageText
from elastic.model.embedder import Embedder
from elastic.model.records import IngestReport
from elastic.statement_store import StatementStore
from llm.pipeline import ChatPipeline
from llm.services import category_fallback, column_proposer, statement_store, upload_store
from settings import Settings

__all__ = [
    "FileDefaults",
    "FilePreview",
    "Importer",
    "PageText",
    "Progress",
    "StatementPreview",
    "file_importer",
    "safe_file_name",
]

_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_file_name(name: str, fallback: str = "upload") -> str:
    """An uploaded file's name reduced to a plain file name (no directories, no odd characters):
    what an upload is stored and reported as."""
    base = _UNSAFE_FILE_CHARS.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip("._")
    return base or fallback


def file_importer(
    settings: Settings,
    backend: SearchBackend,
    embedder: Embedder,
    user_id: str,
    store: StatementStore | None = None,
    defaults: FileDefaults | None = None,
) -> files.Importer:
    """The importer for ``user_id`` as the settings configure it: statement PDFs kept in the
    statement store, the default currency, the reading each layout was given
    (``chosen_reading``) and, with Vertex AI, Gemini's categories."""
    return files.Importer(
        backend,
        user_id,
        embedder,
        store or statement_store(settings),
        defaults or FileDefaults(),
        settings.default_currency,
        partial(chosen_reading, settings, user_id),
        category_fallback(settings),
    )


@dataclass(frozen=True)
class Importer:
    """The app's importer: reads, previews and lands files for ``user_id`` through the
    pipeline's backend and embedder (``file_importer``), with the statement PDFs kept in
    ``store``, and looks after the uploads and the readings remembered per layout."""

    pipeline: ChatPipeline
    settings: Settings
    store: StatementStore
    user_id: str

    @cached_property
    def files(self) -> files.Importer:
        """The importer the pipeline's stores are written with."""
        return file_importer(
            self.settings, self.pipeline.backend, self.pipeline.embedder, self.user_id, self.store
        )

    @property
    def layouts(self) -> LayoutMemory:
        return LayoutMemory(self.settings.layouts_dir, self.user_id)

    def reading(self, path: Path, mapping: ColumnMapping | None) -> ColumnMapping | None:
        """The mapping to read ``path`` with (``chosen_reading``)."""
        return self.files.chosen(path, mapping)

    def remember(self, path: Path, mapping: ColumnMapping) -> bool:
        """Keep ``mapping`` for every later export of ``path``'s layout."""
        return self.layouts.remember(path, mapping)

    def upload_folder(self, session: str) -> Path:
        """Where this browser session's uploads are copied (the user's own folder)."""
        return upload_store(self.settings).folder(self.user_id, session)

    def for_import(self, upload: Path) -> Path:
        """The import's own copy of a previewed upload (``land`` deletes it when it ends)."""
        return upload_store(self.settings).for_import(upload)

    def keep_previews(self, session: str, shown: set[str]) -> None:
        """Delete the session's preview copies of files no longer on the page."""
        uploads = upload_store(self.settings)
        uploads.keep_previews(uploads.folder(self.user_id, session), shown)

    def discard(self, copy: Path) -> None:
        """Delete an import's copy of an upload that will not be imported after all."""
        upload_store(self.settings).discard(copy)

    def forget_uploads(self) -> None:
        """Delete every copy of the user's uploads (when they forget all their data)."""
        upload_store(self.settings).forget(self.user_id)

    def read(self, path: Path, mapping: ColumnMapping | None = None) -> ParsedFile | None:
        """The file's rows as its format states them (with the reading chosen for its layout,
        if any); None for a statement PDF. Raises ``UnreadableFile`` for a file no reader (or
        ``mapping``) can read."""
        chosen = self.files.chosen(path, mapping)
        parsed = self.files.read(path, chosen)
        if parsed is not None and chosen is not None and mapping is None:
            parsed.notes.insert(0, "read with the columns you chose for this layout before")
        return parsed

    def preview(self, parsed: ParsedFile, source: str, defaults: FileDefaults) -> FilePreview:
        """The first rows as they would land, with what is assumed and what cannot be read."""
        return self.files.preview(parsed, source, defaults)

    def statement_pages(self, path: Path) -> list[PageText]:
        """A statement PDF's words, page by page (OCR for a scanned page): the slow part of a
        preview, kept by the page while its fields are edited. Raises ``UnreadableFile``."""
        return read_pages(path)

    def preview_statement(
        self, path: Path, defaults: FileDefaults, pages: list[PageText] | None = None
    ) -> StatementPreview:
        """A statement PDF as it would land with ``defaults`` (its edited fields)."""
        return self.files.preview_statement(path, defaults, pages)

    def land(
        self,
        path: Path,
        defaults: FileDefaults,
        mapping: ColumnMapping | None,
        progress: Progress,
    ) -> IngestReport:
        """Land one uploaded file and delete its copy; never raises for bad input (the report
        says what was not read)."""
        try:
            return self.files.with_progress(progress).land(path, defaults, mapping)
        finally:
            upload_store(self.settings).discard(path)


def chosen_reading(
    settings: Settings, user_id: str, path: Path, mapping: ColumnMapping | None
) -> ColumnMapping | None:
    """The mapping to read ``path`` with, for the app and ``finsync ingest`` alike: the one
    given, else the one this user chose for its layout before, else one Gemini proposes and
    the file confirms (Vertex AI only, for a layout read offline with doubt), else None
    (profiles, synonyms and content)."""
    if mapping is not None:
        return mapping
    with path.open("rb") as handle:
        if not bank_csv.sniff(handle.read(4096)):
            return None
    remembered = LayoutMemory(settings.layouts_dir, user_id).get(path)
    if remembered is not None:
        return remembered
    return _proposal(settings, path) if settings.vertex_enabled else None


_PROPOSALS: dict[tuple[str, int, int], ColumnMapping | None] = {}


def _proposal(settings: Settings, path: Path) -> ColumnMapping | None:
    """One proposal per file version: the Ingest page reruns on every widget, and Gemini's
    client is built only when a version has none yet."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _PROPOSALS:
        if len(_PROPOSALS) > 64:
            _PROPOSALS.clear()
        propose = column_proposer(settings)
        _PROPOSALS[key] = propose(path) if propose is not None else None
    return _PROPOSALS[key]
