"""User ids: the name every document is filtered by, and never a path.

An id arrives from ``--user``, ``FINSYNC_USER``, a sign-in provider or an API token. It is
checked once at each entry (``checked_user_id``) and used as given everywhere else; files kept
for a user live under ``storage_key(user_id)``, a hash of the exact id, so no id (``..``, ``.``,
``a/b``) can name another folder, and ids that differ only in punctuation or accents
(``john_doe@…`` and ``john+doe@…``) never share one.
"""

from __future__ import annotations

import hashlib
import unicodedata

from elastic.errors import FinSyncError

MAX_LENGTH = 254  # the longest e-mail address; sign-in providers give e-mails or subjects
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, formats (bidi, zero-width)


class InvalidUserId(FinSyncError, ValueError):
    """A user id FinSync refuses; the message says why, in one line."""


def checked_user_id(raw: str | None) -> str:
    """``raw`` when it is a usable user id, else ``InvalidUserId`` saying what is wrong.

    Refused: empty or blank, spaces around it, only dots, a path separator, an invisible or
    control character, longer than ``MAX_LENGTH`` characters. The id is never altered: two
    spellings are two users.
    """
    if raw is None or not raw.strip():
        raise InvalidUserId("the user id is empty: give a name such as an e-mail address")
    shown = ascii(raw[:40]) + ("…" if len(raw) > 40 else "")
    if len(raw) > MAX_LENGTH:
        raise InvalidUserId(
            f"the user id {shown} is {len(raw)} characters long; at most {MAX_LENGTH} are allowed"
        )
    if raw != raw.strip():
        raise InvalidUserId(f"the user id {shown} starts or ends with a space")
    if set(raw) == {"."}:
        raise InvalidUserId(f"the user id {shown} is only dots")
    if "/" in raw or "\\" in raw:
        raise InvalidUserId(f"the user id {shown} contains a path separator (/ or \\)")
    if any(unicodedata.category(c) in _INVISIBLE for c in raw):
        raise InvalidUserId(f"the user id {shown} contains a control or invisible character")
    return raw


def storage_key(user_id: str) -> str:
    """The folder name for the user's files: the SHA-256 of the exact id, in hex (32 digits,
    128 bits: no two ids in any real store share one)."""
    return hashlib.sha256(checked_user_id(user_id).encode("utf-8")).hexdigest()[:32]
