"""Gemini as the last resort of categorising: a merchant no rule and no history knows."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from google import genai
from google.genai import types

from llm.prompts import CATEGORY_INSTRUCTION, category_prompt
from llm.vertex_client import make_client, request_options
from settings import Settings

log = logging.getLogger(__name__)


class GeminiCategoriser:
    """``fallback(merchant, descriptor)`` for the ingest categoriser: one call per merchant,
    answers constrained to the allowed categories, and None on any failure (the row is then
    "Uncategorized" and can be corrected on the Sources page)."""

    def __init__(
        self,
        settings: Settings,
        categories: Sequence[str],
        client: genai.Client | None = None,
        *,
        backoff_s: float = 1.0,
    ) -> None:
        self._client = client or make_client(settings)
        self._model = settings.gemini_model
        self._categories = list(categories)
        schema = types.Schema(
            type=types.Type.OBJECT,
            properties={
                "category": types.Schema(type=types.Type.STRING, enum=[*self._categories, ""])
            },
            required=["category"],
        )
        self._config = types.GenerateContentConfig(
            system_instruction=CATEGORY_INSTRUCTION,
            response_mime_type="application/json",
            response_schema=schema,
            temperature=0,
            http_options=request_options(settings, backoff_s),
        )
        self._known: dict[str, str | None] = {}

    def __call__(self, merchant: str, descriptor: str) -> str | None:
        key = merchant or descriptor
        if key not in self._known:
            self._known[key] = self._ask(merchant, descriptor)
        return self._known[key]

    def _ask(self, merchant: str, descriptor: str) -> str | None:
        try:
            response = self._client.models.generate_content(
                model=self._model,
                contents=category_prompt(merchant, descriptor, self._categories),
                config=self._config,
            )
            chosen = json.loads(response.text or "{}").get("category")
        except Exception as exc:  # any failure: the row stays uncategorised, never lost
            log.warning("Gemini could not categorise %r: %s", merchant, exc)
            return None
        return chosen if chosen in self._categories else None
