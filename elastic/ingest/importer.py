"""The one way files come in: ``finsync ingest`` and ``finsync sample --ingest``, the app's
Ingest page and the JSON API (through ``llm.ingesting``), the tests and the benchmark all hold
an ``Importer`` and call it, so every import reads and lands a file the same way.

An importer is what one person's import needs to know once: the store and the user, the
embedder and the statement store for PDFs, what the person said about the files
(``FileDefaults``), the currency of files that name none, the column reading chosen for a
layout (the person's, or a proposal; ``llm.ingesting.chosen_reading``), the category fallback
(Gemini) and where progress goes. Its methods read, preview and land files; the work itself
is ``landing``'s.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from elastic.backend import SearchBackend
from elastic.ingest import bank_csv
from elastic.ingest.landing import (
    CategoryFallback,
    FileDefaults,
    FilePreview,
    Progress,
    StatementPreview,
    ingest_file,
    land_files,
    no_progress,
    preview_export,
    preview_statement,
    read_export,
)
from elastic.ingest.parsed import ParsedFile
from elastic.ingest.pdf.page_words import PageText
from elastic.model.embedder import Embedder
from elastic.model.records import IngestReport
from elastic.statement_store import StatementStore

log = logging.getLogger(__name__)

Reading = Callable[[Path, bank_csv.ColumnMapping | None], bank_csv.ColumnMapping | None]
"""``reading(path, mapping)``: the columns to read an export with: ``mapping`` when one is
given, else one chosen for the file's layout before, else None (read by the file's content)."""


@dataclass(frozen=True)
class Importer:
    """Reads, previews and lands files for ``user_id`` in ``backend``.

    ``embedder`` and ``store`` are needed for statement PDFs only: without them a PDF is
    reported as one. ``defaults`` fill what a file does not state, ``currency`` is the
    currency of a file that names none, ``progress(done, total, label)`` hears of the rows
    stored of the file in hand.
    """

    backend: SearchBackend
    user_id: str
    embedder: Embedder | None = None
    store: StatementStore | None = None
    defaults: FileDefaults = dataclasses.field(default_factory=FileDefaults)
    currency: str = "USD"
    reading: Reading | None = None
    fallback: CategoryFallback | None = None
    progress: Progress = no_progress

    def with_progress(self, progress: Progress) -> Importer:
        """This importer telling ``progress`` how far each file is."""
        return dataclasses.replace(self, progress=progress)

    def chosen(
        self, path: Path, mapping: bank_csv.ColumnMapping | None = None
    ) -> bank_csv.ColumnMapping | None:
        """The columns to read ``path`` with (``reading``), or None: read by its content. A
        file that cannot be opened has none; landing it says why."""
        if self.reading is None:
            return mapping
        try:
            return self.reading(path, mapping)
        except OSError as exc:
            log.debug("no reading chosen for %s: %s", path.name, exc)
            return mapping

    def read(self, path: Path, mapping: bank_csv.ColumnMapping | None = None) -> ParsedFile | None:
        """The file's rows as its format states them; None for a statement PDF. Raises
        ``UnreadableFile`` for a file no reader (or ``mapping``) can read."""
        return read_export(path, self.chosen(path, mapping))

    def preview(
        self,
        parsed: ParsedFile,
        source: str,
        defaults: FileDefaults | None = None,
        limit: int = 20,
    ) -> FilePreview:
        """The first ``limit`` rows as they would land, with what is assumed and what cannot be
        read; nothing is written."""
        return preview_export(
            self.backend,
            parsed,
            self.user_id,
            source,
            defaults or self.defaults,
            self.currency,
            limit,
        )

    def preview_statement(
        self, path: Path, defaults: FileDefaults | None = None, pages: list[PageText] | None = None
    ) -> StatementPreview:
        """A statement PDF as it would land with ``defaults`` (``pages``: its words read
        before); nothing is written. Raises ``UnreadableFile``."""
        return preview_statement(
            self.backend, path, self.user_id, defaults or self.defaults, self.currency, pages
        )

    def land(
        self,
        path: Path,
        defaults: FileDefaults | None = None,
        mapping: bank_csv.ColumnMapping | None = None,
    ) -> IngestReport:
        """Land one file of any format; never raises for bad input (the report says what was
        not read). ``defaults`` and ``mapping`` are what the person said about this file."""
        return ingest_file(
            self.backend,
            path,
            self.user_id,
            self.embedder,
            self.store,
            defaults or self.defaults,
            self.currency,
            self.progress,
            self.chosen(path, mapping),
            self.fallback,
        )

    def land_each(self, paths: Sequence[Path]) -> Iterator[IngestReport]:
        """Land every file in turn, each report as its file is done; the next statement PDF is
        read while the one before it is stored (``landing.land_files``)."""
        return land_files(
            self.backend,
            paths,
            self.user_id,
            self.embedder,
            self.store,
            self.defaults,
            self.currency,
            self.progress,
            self.chosen,
            self.fallback,
        )

    def land_all(self, paths: Sequence[Path]) -> IngestReport:
        """``land_each``, its reports merged into one."""
        report = IngestReport()
        for landed in self.land_each(paths):
            report.merge(landed)
        return report
