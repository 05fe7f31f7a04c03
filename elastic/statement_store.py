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

    def keep(self, pdf: Path, user_id: str) -> str:
        """Copy ``pdf`` into the store (content-addressed, so re-ingesting is free).

        Returns the stored file's path relative to the store, recorded as ``source_file``.
        """
        digest = hashlib.sha256(pdf.read_bytes()).hexdigest()[:20]
        relative = f"{_SAFE.sub('_', user_id)}/{digest}.pdf"
        target = self.root / relative
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(pdf, target)
        return relative

    def path(self, source_file: str) -> Path:
        """The stored PDF for a ``source_file`` value; never a path outside the store."""
        target = (self.root / source_file).resolve()
        if self.root.resolve() not in target.parents:
            raise ValueError(f"{source_file!r} is not a stored statement")
        return target
