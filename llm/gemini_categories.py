"""Gemini as the last resort of categorising: a merchant no rule and no history knows."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from google import genai
from google.genai import types

from elastic.errors import ModelError, ModelOutputRejected
from llm.prompts import CATEGORY_INSTRUCTION, category_prompt
from llm.vertex_client import make_client, request_options, vertex_call
from settings import Settings

log = logging.getLogger(__name__)


class GeminiCategoriser:
    """``fallback(merchant, descriptor)`` for the ingest categoriser: one call per merchant,
    answers constrained to the allowed categories, and None when Gemini names none, fails
    (``ModelUnavailable``) or answers outside them (``ModelOutputRejected``): the row is then
    "Uncategorized" and can be corrected on the Sources page. Other exceptions are bugs."""

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
        contents = category_prompt(merchant, descriptor, self._categories)
        try:
            with vertex_call("categorising a merchant"):
                response = self._client.models.generate_content(
                    model=self._model, contents=contents, config=self._config
                )
            return self._chosen(response.text or "")
        except ModelError as exc:  # the row stays uncategorised, never lost
            log.warning("Gemini could not categorise %r (%s): %s", merchant, exc.reason, exc)
            return None

    def _chosen(self, text: str) -> str | None:
        """The category Gemini chose, None for its "none fits" (an empty string)."""
        try:
            answer = json.loads(text)
        except ValueError as exc:
            raise ModelOutputRejected(f"not JSON: {text[:80]!r}") from exc
        chosen = answer.get("category") if isinstance(answer, dict) else None
        if chosen == "":
            return None
        if chosen not in self._categories:
            raise ModelOutputRejected(f"not an offered category: {str(chosen)[:80]!r}")
        return chosen
