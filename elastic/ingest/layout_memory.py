"""Column readings a person chose for a layout, remembered per user, so the next export of the
same layout lands the same way without asking again.

Kept as one small JSON file per user under the data directory (named by a hash of the user id,
like kept statement PDFs); a layout is known by ``bank_csv.layout_key``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from elastic.ingest import bank_csv

log = logging.getLogger(__name__)


class LayoutMemory:
    """One user's remembered readings: layout key → column mapping."""

    def __init__(self, folder: Path, user_id: str) -> None:
        name = hashlib.sha256(user_id.encode()).hexdigest()[:32]
        self._path = folder / f"{name}.json"

    def _load(self) -> dict[str, dict]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("remembered layouts unreadable, ignored: %s", exc)
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, path: Path) -> bank_csv.ColumnMapping | None:
        """The reading chosen for ``path``'s layout, if one was."""
        remembered = self._load()
        if not remembered:  # nothing to look up: the file's layout is not worked out
            return None
        key = bank_csv.layout_key(path)
        found = remembered.get(key) if key else None
        if found is None:
            return None
        try:
            return bank_csv.mapping_from_data(found)
        except (TypeError, ValueError) as exc:
            log.warning("a remembered layout is not a mapping, ignored: %s", exc)
            return None

    def remember(self, path: Path, mapping: bank_csv.ColumnMapping) -> bool:
        """Keep ``mapping`` for ``path``'s layout; False when the file has no layout to key."""
        key = bank_csv.layout_key(path)
        if key is None:
            return False
        data = self._load()
        data[key] = bank_csv.mapping_as_data(mapping)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self._path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(data, file)
        os.replace(temporary, self._path)
        return True
