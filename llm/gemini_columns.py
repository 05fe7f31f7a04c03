"""Gemini proposes which column holds what, for an export whose offline reading is missing or
unsure; the proposal is kept only when the file then reads at least as well.

The model sees the header names and a few rows (data between markers, never instructions) and
answers JSON constrained to the file's own header names. Its mapping is tried on the whole file
with the same reader: it must land a share of the rows no smaller than the offline reading did
(``MIN_READ``), else it is dropped and the offline reading (or the question to the person) stands.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from google import genai
from google.genai import types

from elastic.errors import ModelError, ModelOutputRejected
from elastic.ingest import bank_csv
from elastic.ingest.parsed import UnreadableFile
from llm.prompts import COLUMNS_INSTRUCTION, columns_prompt
from llm.vertex_client import make_client, request_options, vertex_call
from settings import Settings

log = logging.getLogger(__name__)

ROLES = ("date", "description", "amount", "debit", "credit", "merchant", "balance", "currency")
MIN_READ = 0.9  # the share of rows a proposal must read when no offline reading exists


class GeminiColumns:
    """``propose(path)``: a ``ColumnMapping`` Gemini proposes and the file confirms, or None
    (no proposal, a failed call, or a proposal that reads fewer rows)."""

    def __init__(
        self, settings: Settings, client: genai.Client | None = None, *, backoff_s: float = 1.0
    ) -> None:
        self._client = client or make_client(settings)
        self._model = settings.gemini_model
        self._backoff_s = backoff_s
        self._settings = settings

    def propose(self, path: Path) -> bank_csv.ColumnMapping | None:
        try:
            layout = bank_csv.inspect(path)
        except UnreadableFile:
            return None
        if layout.mapping is not None and not any(not r.sure for r in layout.readings):
            return None  # read offline with nothing unsure: no call
        try:
            roles = self._ask(layout)
        except ModelError as exc:
            log.warning("Gemini proposed no column mapping (%s): %s", exc.reason, exc)
            return None
        if roles is None:
            return None
        try:
            mapping = bank_csv.ColumnMapping.from_roles(roles)
        except (TypeError, ValueError) as exc:
            log.warning("Gemini's column mapping is not one: %s", exc)
            return None
        proposed = _read_share(path, mapping)
        offline = _read_share(path, None) if layout.mapping is not None else MIN_READ
        if proposed < max(offline, MIN_READ) or proposed == 0:
            log.info("Gemini's column mapping read %.0f%% of rows; not used", proposed * 100)
            return None
        return mapping

    def _ask(self, layout: bank_csv.CsvLayout) -> dict[str, str] | None:
        headers = list(layout.headers)
        schema = types.Schema(
            type=types.Type.OBJECT,
            properties={
                role: types.Schema(type=types.Type.STRING, enum=[*headers, ""]) for role in ROLES
            },
            required=list(ROLES),
        )
        config = types.GenerateContentConfig(
            system_instruction=COLUMNS_INSTRUCTION,
            response_mime_type="application/json",
            response_schema=schema,
            temperature=0,
            http_options=request_options(self._settings, self._backoff_s),
        )
        contents = columns_prompt(headers, [list(row) for row in layout.rows])
        with vertex_call("reading an export's columns"):
            response = self._client.models.generate_content(
                model=self._model, contents=contents, config=config
            )
        return _roles(response.text or "", headers)


def _roles(text: str, headers: list[str]) -> dict[str, str] | None:
    """The roles Gemini named, each a header of the file; None when it named no date."""
    try:
        answer = json.loads(text)
    except ValueError as exc:
        raise ModelOutputRejected(f"not JSON: {text[:80]!r}") from exc
    if not isinstance(answer, dict):
        raise ModelOutputRejected("not a JSON object")
    roles = {r: v for r, v in answer.items() if r in ROLES and isinstance(v, str) and v}
    if unknown := [v for v in roles.values() if v not in headers]:
        raise ModelOutputRejected(f"columns the file does not have: {unknown}")
    return roles if "date" in roles else None


def _read_share(path: Path, mapping: bank_csv.ColumnMapping | None) -> float:
    """The share of the file's records that read as rows under ``mapping``."""
    try:
        parsed = bank_csv.read(path, mapping)
    except UnreadableFile:
        return 0.0
    rows = len(parsed.rows) + len(parsed.balances)
    total = rows + len(parsed.problems)
    return rows / total if total else 0.0
