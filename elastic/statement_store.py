"""Original statement PDFs, kept under the data directory so a citation can show the page."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class StatementStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def name_for(self, pdf: Path, user_id: str) -> str:
        """Where ``pdf`` is (or will be) kept, relative to the store: its ``source_file``.

        Content-addressed, so re-ingesting the same file keeps one copy.
        """
        digest = hashlib.sha256(pdf.read_bytes()).hexdigest()[:20]
        return f"{_SAFE.sub('_', user_id)}/{digest}.pdf"

    def keep(self, pdf: Path, source_file: str) -> None:
        """Copy ``pdf`` into the store under the name ``name_for`` gave it."""
        target = self.root / source_file
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(pdf, target)

    def path(self, source_file: str) -> Path:
        """The stored PDF for a ``source_file`` value; never a path outside the store."""
        target = (self.root / source_file).resolve()
        if self.root.resolve() not in target.parents:
            raise ValueError(f"{source_file!r} is not a stored statement")
        return target

    def remove(self, source_files: list[str] | None, user_id: str) -> None:
        """Delete kept PDFs: the named ones, or every one of ``user_id``'s when None."""
        if source_files is None:
            shutil.rmtree(self.root / _SAFE.sub("_", user_id), ignore_errors=True)
            return
        for source_file in source_files:
            try:
                self.path(source_file).unlink(missing_ok=True)
            except ValueError:  # an export's name, not a stored statement
                continue
