"""Copies of files uploaded in the app, kept under the data directory only while they are
previewed and imported.

Each server process and user has a folder of their own (``uploads/<pid>/<storage key>/<session>``).
The page keeps a copy of each file it previews (gone once the file leaves the page); an import
takes a copy of its own, deleted when the import ends; a user's copies go when they forget all
their data, and a process's folder when it stops (``ui/server.py``) or, after a crash, when the
next one starts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Collection
from pathlib import Path

from elastic.user_ids import storage_key

IMPORTING = "import-"  # a copy an import is reading: its folder's name starts so


class UploadStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, user_id: str, session: str) -> Path:
        """This process's folder for one browser session of the user (created when used)."""
        return self.root / str(os.getpid()) / storage_key(user_id) / session

    def for_import(self, copy: Path) -> Path:
        """A copy of a previewed upload for an import of its own (which ``discard``s it when it
        ends), so the page may go on previewing the upload meanwhile."""
        target = copy.parent.parent / f"{IMPORTING}{uuid.uuid4().hex}" / copy.name
        target.parent.mkdir(parents=True)
        try:
            os.link(copy, target)
        except OSError:  # a file system without hard links
            shutil.copyfile(copy, target)
        return target

    def keep_previews(self, session: Path, shown: Collection[str]) -> None:
        """Delete the session's preview copies (folders by content digest) of files no longer
        on the page; copies of imports under way stay."""
        if not session.is_dir():
            return
        for folder in session.iterdir():
            if folder.name not in shown and not folder.name.startswith(IMPORTING):
                shutil.rmtree(folder, ignore_errors=True)

    def discard(self, copy: Path) -> None:
        """Delete an upload's copy, and its folder when that is left empty."""
        copy.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: other copies are still in use
            copy.parent.rmdir()

    def forget(self, user_id: str) -> None:
        """Delete every copy of the user's uploads, in every process's folder."""
        key = storage_key(user_id)
        for process in self._processes():
            shutil.rmtree(process / key, ignore_errors=True)

    def sweep(self, stopping: bool = False) -> None:
        """Delete the folders of processes no longer running, and this process's own when it
        is ``stopping``."""
        for process in self._processes():
            pid = int(process.name)
            if (pid == os.getpid() and stopping) or (pid != os.getpid() and not _running(pid)):
                shutil.rmtree(process, ignore_errors=True)

    def _processes(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return [p for p in self.root.iterdir() if p.is_dir() and p.name.isdigit()]


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process holds the number
        return True
    return True
