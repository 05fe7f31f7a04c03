"""API tokens: each acts for one user, and only a hash of it is kept.

A token reads ``fsk_<id>_<secret>``. The id finds its row; the secret (32 random bytes) is what
proves it, and the store holds the SHA-256 of the whole token, compared in constant time. A
token is shown once, when it is made. The store is a small SQLite file under
``FINSYNC_DATA_DIR`` (``Settings.api_tokens_file``), readable by its owner only, whichever
backend holds the data.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from elastic.user_ids import InvalidUserId, checked_user_id

PREFIX = "fsk"
MAX_NAME = 100
_TOKEN = re.compile(rf"{PREFIX}_([0-9a-f]{{12}})_[A-Za-z0-9_-]{{43}}")
_ABSENT = hashlib.sha256(b"no such token").hexdigest()  # compared when the id is unknown
_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    token_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    created TEXT NOT NULL
)
"""


@dataclass(frozen=True)
class TokenInfo:
    """A token as listed: never the token itself."""

    token_id: str
    user_id: str
    name: str
    created: datetime


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_id_of(text: str) -> str:
    """The id of a token, or ``text`` itself when it is not a token (an id typed as listed)."""
    match = _TOKEN.fullmatch(text.strip())
    return match.group(1) if match else text.strip()


class TokenStore:
    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def _db(self, writing: bool = False) -> Iterator[sqlite3.Connection]:
        if writing and not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch(mode=0o600)
        with closing(sqlite3.connect(self.path, timeout=5.0)) as db, db:
            db.execute(_SCHEMA)
            yield db

    def create(self, user_id: str, name: str = "") -> tuple[TokenInfo, str]:
        """A new token for ``user_id`` (checked), and the token: the only time it exists in the
        clear. ``InvalidUserId`` for an unusable id, ``ValueError`` for a name that is too long
        or holds control characters."""
        user_id = checked_user_id(user_id)
        name = name.strip()
        if len(name) > MAX_NAME or not name.isprintable():
            raise ValueError(f"a token's name is printable text of at most {MAX_NAME} characters")
        token_id = secrets.token_hex(6)
        token = f"{PREFIX}_{token_id}_{secrets.token_urlsafe(32)}"
        info = TokenInfo(token_id, user_id, name, datetime.now(UTC).replace(microsecond=0))
        with self._db(writing=True) as db:
            db.execute(
                "INSERT INTO tokens VALUES (?, ?, ?, ?, ?)",
                (token_id, user_id, name, _digest(token), info.created.isoformat()),
            )
        os.chmod(self.path, 0o600)
        return info, token

    def tokens(self, user_id: str | None = None) -> list[TokenInfo]:
        """Every token (of ``user_id`` when given), oldest first."""
        if not self.path.exists():
            return []
        with self._db() as db:
            rows = db.execute(
                "SELECT token_id, user_id, name, created FROM tokens "
                "WHERE ? IS NULL OR user_id = ? ORDER BY rowid",
                (user_id, user_id),
            ).fetchall()
        return [TokenInfo(t, u, n, datetime.fromisoformat(c)) for t, u, n, c in rows]

    def revoke(self, token_id: str) -> TokenInfo | None:
        """Remove a token (given by its id, or whole); the token it was, None when unknown."""
        token_id = token_id_of(token_id)
        found = [t for t in self.tokens() if t.token_id == token_id]
        if not found:
            return None
        with self._db(writing=True) as db:
            db.execute("DELETE FROM tokens WHERE token_id = ?", (token_id,))
        return found[0]

    def user_of(self, token: str) -> str | None:
        """The user a token acts for; None for a token that is malformed, unknown or revoked."""
        match = _TOKEN.fullmatch(token)
        if match is None or not self.path.exists():
            return None
        with self._db() as db:
            row = db.execute(
                "SELECT user_id, sha256 FROM tokens WHERE token_id = ?", (match.group(1),)
            ).fetchone()
        user_id, stored = row if row is not None else (None, _ABSENT)
        if not hmac.compare_digest(_digest(token), stored) or user_id is None:
            return None
        try:
            return checked_user_id(user_id)
        except InvalidUserId:
            return None
