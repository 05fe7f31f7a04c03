"""Files into one person's data from the app: previews of the rows as they will land, and the
import itself, exactly as ``finsync ingest`` lands them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elastic.ingest.bank_csv import ColumnMapping
from elastic.ingest.landing import (
    FileDefaults,
    FilePreview,
    Progress,
    StatementPreview,
    ingest_file,
    preview_export,
    preview_statement,
    read_export,
)
from elastic.ingest.parsed import ParsedFile
from elastic.ingest.pdf.page_reader import read_pages
from elastic.ingest.pdf.page_words import PageText
from elastic.model.records import IngestReport
from elastic.statement_store import StatementStore
from llm.pipeline import ChatPipeline
from llm.services import category_fallback
from settings import Settings

__all__ = ["FileDefaults", "FilePreview", "Importer", "PageText", "Progress", "StatementPreview"]


@dataclass(frozen=True)
class Importer:
    """Reads, previews and lands files for ``user_id`` through the pipeline's backend and
    embedder, with the statement PDFs kept in ``store``."""

    pipeline: ChatPipeline
    settings: Settings
    store: StatementStore
    user_id: str

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

    def statement_pages(self, path: Path) -> list[PageText]:
        """A statement PDF's words, page by page (OCR for a scanned page): the slow part of a
        preview, kept by the page while its fields are edited. Raises ``UnreadableFile``."""
        return read_pages(path)

    def preview_statement(
        self, path: Path, defaults: FileDefaults, pages: list[PageText] | None = None
    ) -> StatementPreview:
        """A statement PDF as it would land with ``defaults`` (its edited fields)."""
        return preview_statement(
            self.pipeline.backend,
            path,
            self.user_id,
            defaults,
            self.settings.default_currency,
            pages,
        )

    def land(
        self,
        path: Path,
        defaults: FileDefaults,
        mapping: ColumnMapping | None,
        progress: Progress,
    ) -> IngestReport:
        """Land one file; never raises for bad input (the report says what was not read)."""
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
