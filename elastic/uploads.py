"""Copies of files uploaded in the app, kept under the data directory only while they are
previewed and imported.

Each server process and user has a folder of their own (``uploads/<pid>/<storage key>/<session>``):
a copy is deleted when its import ends, a user's copies when they forget all their data, and
a process's folder when it stops (``ui/server.py``) or, after a crash, when the next one starts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from elastic.user_ids import storage_key


class UploadStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, user_id: str, session: str) -> Path:
        """This process's folder for one browser session of the user (created when used)."""
        return self.root / str(os.getpid()) / storage_key(user_id) / session

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
