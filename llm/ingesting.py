"""Files into one person's data from the app: previews of the rows as they will land, and the
import itself, exactly as ``finsync ingest`` lands them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from elastic.ingest.bank_csv import ColumnMapping
from elastic.ingest.landing import (
    FileDefaults,
    FilePreview,
    Progress,
    ingest_file,
    preview_export,
    read_export,
)
from elastic.ingest.parsed import ParsedFile
from elastic.model.records import IngestReport
from elastic.statement_store import StatementStore
from llm.pipeline import ChatPipeline
from llm.services import category_fallback, upload_store
from settings import Settings

__all__ = ["FileDefaults", "FilePreview", "Importer", "Progress", "safe_file_name"]

_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_file_name(name: str, fallback: str = "upload") -> str:
    """An uploaded file's name reduced to a plain file name (no directories, no odd characters):
    what an upload is stored and reported as."""
    base = _UNSAFE_FILE_CHARS.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip("._")
    return base or fallback


@dataclass(frozen=True)
class Importer:
    """Reads, previews and lands files for ``user_id`` through the pipeline's backend and
    embedder, with the statement PDFs kept in ``store``."""

    pipeline: ChatPipeline
    settings: Settings
    store: StatementStore
    user_id: str

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
        """The file's rows as its format states them; None for a statement PDF. Raises
        ``UnreadableFile`` for a file no reader (or ``mapping``) can read."""
        return read_export(path, mapping)

    def preview(self, parsed: ParsedFile, source: str, defaults: FileDefaults) -> FilePreview:
        """The first rows as they would land, with what is assumed and what cannot be read."""
        return preview_export(
            self.pipeline.backend,
            parsed,
            self.user_id,
            source,
            defaults,
            self.settings.default_currency,
        )

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
            return ingest_file(
                self.pipeline.backend,
                path,
                self.user_id,
                self.pipeline.embedder,
                self.store,
                defaults,
                self.settings.default_currency,
                progress,
                mapping,
                category_fallback(self.settings),
            )
        finally:
            upload_store(self.settings).discard(path)
