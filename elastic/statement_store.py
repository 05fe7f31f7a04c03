"""Original statement PDFs, kept under the data directory so a citation can show the page.

Each user's files live in a folder of their own, named by ``storage_key`` (a hash of the exact
user id) and holding an ``OWNER`` file with that id. Every operation takes the caller's id and
touches a file only when it sits in the caller's folder and that folder's recorded owner is the
caller, so no name a user types (``local/<digest>.pdf``, ``../x``) reaches another user's files.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from elastic.user_ids import storage_key

OWNER = "OWNER"


class StatementStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def name_for(self, pdf: Path, user_id: str) -> str:
        """Where ``pdf`` is (or will be) kept, relative to the store: its ``source_file``.

        Content-addressed, so re-ingesting the same file keeps one copy.
        """
        digest = hashlib.sha256(pdf.read_bytes()).hexdigest()[:20]
        return f"{storage_key(user_id)}/{digest}.pdf"

    def keep(self, pdf: Path, source_file: str, user_id: str) -> None:
        """Copy ``pdf`` into the user's folder under the name ``name_for`` gave it."""
        target = self._own(source_file, user_id, creating=True)
        if not target.exists():
            shutil.copyfile(pdf, target)

    def path(self, source_file: str, user_id: str) -> Path:
        """The user's stored PDF for a ``source_file`` value; ``ValueError`` for any name that
        is not one of the user's own kept statements."""
        return self._own(source_file, user_id)

    def remove(self, source_files: list[str] | None, user_id: str) -> list[str]:
        """Delete the user's kept PDFs: the named ones, or all of them when None. Names that
        are not the user's kept statements (an export's name, another user's file) are left
        alone. The ``source_file`` names of the PDFs deleted."""
        folder = self.root / storage_key(user_id)
        if not self._owned(folder, user_id):
            return []
        if source_files is None:
            removed = sorted(f"{folder.name}/{p.name}" for p in folder.glob("*.pdf"))
            shutil.rmtree(folder, ignore_errors=True)
            return removed
        removed = []
        for source_file in source_files:
            try:
                target = self._own(source_file, user_id)
            except ValueError:
                continue
            if target.exists():
                target.unlink()
                removed.append(source_file)
        return removed

    def _own(self, source_file: str, user_id: str, creating: bool = False) -> Path:
        """The path of ``source_file`` inside the user's own folder, checked."""
        folder = self.root / storage_key(user_id)
        name = source_file.partition("/")[2]
        if (
            source_file != f"{folder.name}/{name}"
            or not name.endswith(".pdf")
            or Path(name).name != name
        ):
            raise ValueError(f"{source_file!r} is not one of your stored statements")
        if creating and not folder.exists():
            folder.mkdir(parents=True)
            (folder / OWNER).write_text(user_id, encoding="utf-8")
        if not self._owned(folder, user_id):
            raise ValueError(f"{source_file!r} is not one of your stored statements")
        return folder / name

    @staticmethod
    def _owned(folder: Path, user_id: str) -> bool:
        try:
            return (folder / OWNER).read_text(encoding="utf-8") == user_id
        except (FileNotFoundError, NotADirectoryError):
            return False
