"""Each user's conversation in the app, kept with their data so a reload shows it again.

A user's conversation is one JSON file in a folder named by ``storage_key`` (a hash of the
exact user id) that records its owner, as kept statements are (``statement_store.py``): every
operation takes the caller's id and reads or writes only a folder whose recorded owner is the
caller. The turns are opaque here (``llm/conversation.py`` says what they hold); writes replace
the file whole, so a reader never sees half of one.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from elastic.user_ids import storage_key

log = logging.getLogger(__name__)

OWNER = "OWNER"
CHAT_FILE = "chat.json"
MAX_TURNS = 200  # the newest are kept


class ChatStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _folder(self, user_id: str) -> Path:
        return self.root / storage_key(user_id)

    def _owned(self, folder: Path, user_id: str) -> bool:
        try:
            return (folder / OWNER).read_text(encoding="utf-8") == user_id
        except (FileNotFoundError, NotADirectoryError):
            return False

    def load(self, user_id: str) -> list[dict[str, Any]]:
        """The user's turns, oldest first; none when nothing is kept or the file is unreadable
        (a damaged file is logged and left for the next save to replace)."""
        folder = self._folder(user_id)
        if not self._owned(folder, user_id):
            return []
        try:
            turns = json.loads((folder / CHAT_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("the kept conversation could not be read: %s", exc)
            return []
        return [turn for turn in turns if isinstance(turn, dict)] if isinstance(turns, list) else []

    def save(self, user_id: str, turns: list[dict[str, Any]]) -> None:
        """Keep ``turns`` (the newest ``MAX_TURNS``) as the user's conversation."""
        folder = self._folder(user_id)
        if not folder.exists():
            folder.mkdir(parents=True)
            (folder / OWNER).write_text(user_id, encoding="utf-8")
        if not self._owned(folder, user_id):
            raise ValueError("the conversation folder belongs to another user")
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".chat-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(turns[-MAX_TURNS:], file, ensure_ascii=False)
            os.replace(temporary, folder / CHAT_FILE)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def forget(self, user_id: str) -> bool:
        """Delete the user's conversation; whether there was one."""
        folder = self._folder(user_id)
        if not self._owned(folder, user_id):
            return False
        shutil.rmtree(folder, ignore_errors=True)
        return True
