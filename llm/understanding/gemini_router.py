"""Gemini routes questions to an IntentPlan, with the offline router as the fallback.

Gemini answers in JSON constrained by a response schema derived from IntentPlan; the JSON is
validated with the IntentPlan model itself. When Vertex AI fails (HTTP error after retries,
transport error, timeout: ``ModelUnavailable``) or its output is unusable (invalid JSON, an
invalid plan, names the user's data does not have: ``ModelOutputRejected``), the offline
router's plan is used, with a warning in the log naming the reason. Any other exception is a bug
and propagates. A valid plan about dates with none of the user's transactions, or a currency
none of them are in, becomes the same clarification the offline router gives
(``coverage.outside_data``). The filters Gemini says it carried over from the previous plan
(``inherited``) are kept only where the plan really holds the previous plan's values.
"""

from __future__ import annotations

import logging
from datetime import date
from functools import cache
from typing import Any, Literal, TypeVar

from google import genai
from google.genai import types
from pydantic import ValidationError

from elastic.errors import ModelError, ModelOutputRejected
from elastic.model.plan import CompareSide, IntentPlan
from elastic.model.results import Vocabulary
from llm.pipeline import Router
from llm.prompts import ROUTER_INSTRUCTION, router_prompt
from llm.understanding.coverage import outside_data
from llm.understanding.follow_ups import inherited
from llm.vertex_client import DEFAULT_BACKOFF_S, make_client, request_options, vertex_call
from settings import Settings

log = logging.getLogger(__name__)

# The subset of OpenAPI schema fields Vertex AI's responseSchema accepts, besides the structure
# (properties, items, required, nullable, propertyOrdering) rebuilt below.
_KEPT = ("description", "enum", "minimum", "maximum")
# Plan fields Gemini does not write: clarifications as messages are the offline router's, which
# the composer words; Gemini writes its clarification as text in the asker's language.
_NOT_ASKED = ("message", "suggested")


def _vertex_schema(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """One node of pydantic's JSON schema in the form Vertex accepts: ``$ref`` inlined,
    ``anyOf [X, null]`` as nullable X (the first alternative kept: NUMBER for a Decimal),
    ``date`` strings described, titles, defaults and ``additionalProperties`` dropped."""
    if "$ref" in node:  # the enum itself; its docstring is for developers, not for Gemini
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        node = {**{k: v for k, v in target.items() if k != "description"}, **node}
    out: dict[str, Any] = {}
    if options := node.get("anyOf"):
        kept = [option for option in options if option.get("type") != "null"]
        out = _vertex_schema(kept[0], defs)
        if len(kept) < len(options):
            out["nullable"] = True
    if "type" in node:
        out["type"] = node["type"].upper()
    out.update({key: node[key] for key in _KEPT if key in node})
    if node.get("format") == "date":
        out["description"] = "a date, YYYY-MM-DD"
    if "items" in node:
        out["items"] = _vertex_schema(node["items"], defs)
    if "properties" in node:
        out["properties"] = {k: _vertex_schema(v, defs) for k, v in node["properties"].items()}
        out["required"] = node.get("required", [])
        out["property_ordering"] = list(node["properties"])
    return out


@cache
def plan_schema() -> types.Schema:
    """IntentPlan's response schema for Gemini on Vertex AI (without the offline router's
    message fields)."""
    source = IntentPlan.model_json_schema()
    schema = _vertex_schema(source, source.get("$defs", {}))
    for name in _NOT_ASKED:
        schema["properties"].pop(name)
        schema["property_ordering"].remove(name)
    return types.Schema.model_validate(schema)


def conform(
    plan: IntentPlan, vocabulary: Vocabulary, previous: IntentPlan | None = None
) -> IntentPlan:
    """The plan, and each side of a comparison, with names spelled as indexed, listing as
    inherited only the filters it really kept from ``previous``; ``ModelOutputRejected`` for
    names the data does not have."""
    sides = [_spelled(side, vocabulary) for side in plan.compare]
    spelled = _spelled(plan, vocabulary).model_copy(update={"compare": sides})
    kept = inherited(spelled, previous) if previous else []
    return spelled.model_copy(update={"inherited": [f for f in spelled.inherited if f in kept]})


Named = TypeVar("Named", IntentPlan, CompareSide)


def _spelled(named: Named, vocabulary: Vocabulary) -> Named:
    known = {
        "accounts": [a.account_name for a in vocabulary.accounts],
        "categories": vocabulary.categories,
        "merchants": vocabulary.merchants,
    }
    update: dict[str, list[str]] = {}
    for name, values in known.items():
        spelling = {value.casefold(): value for value in values}
        asked: list[str] = getattr(named, name)
        if unknown := [value for value in asked if value.casefold() not in spelling]:
            raise ModelOutputRejected(f"{name} not in the user's data: {unknown}")
        update[name] = [spelling[value.casefold()] for value in asked]
    return named.model_copy(update=update)


class GeminiRouter:
    """Router protocol: Gemini first, ``fallback`` (any Router) whenever Gemini fails.

    ``last_source`` says which one produced the last plan.
    """

    def __init__(
        self,
        settings: Settings,
        fallback: Router,
        vocabulary: Vocabulary,
        client: genai.Client | None = None,
        *,
        backoff_s: float = DEFAULT_BACKOFF_S,
    ) -> None:
        self._client = client or make_client(settings)
        self._model = settings.gemini_model
        self._fallback = fallback
        self._vocabulary = vocabulary
        self._config = types.GenerateContentConfig(
            system_instruction=ROUTER_INSTRUCTION,
            response_mime_type="application/json",
            response_schema=plan_schema(),
            temperature=0,
            http_options=request_options(settings, backoff_s),
        )
        self.last_source: Literal["gemini", "offline"] | None = None

    def route(self, question: str, as_of: date, previous: IntentPlan | None = None) -> IntentPlan:
        try:
            plan = self._ask(question, as_of, previous)
        except ModelError as exc:
            log.warning("Gemini routing failed (%s), using the offline router: %s", exc.reason, exc)
            self.last_source = "offline"
            return self._fallback.route(question, as_of, previous)
        self.last_source = "gemini"
        return plan

    def _ask(self, question: str, as_of: date, previous: IntentPlan | None) -> IntentPlan:
        contents = router_prompt(question, as_of, self._vocabulary, previous)
        with vertex_call("routing the question"):
            response = self._client.models.generate_content(
                model=self._model, contents=contents, config=self._config
            )
        try:
            plan = IntentPlan.model_validate_json(response.text or "")
        except ValidationError as exc:  # not JSON, or JSON that is not a valid plan
            raise ModelOutputRejected(f"not a valid plan: {_summary(exc)}") from exc
        plan = conform(plan, self._vocabulary, previous)
        return outside_data(plan, self._vocabulary) or plan


def _summary(exc: ValidationError) -> str:
    """Pydantic's summary line plus its first error, enough for the log."""
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0] if errors else {}
    return f"{exc.error_count()} error(s), first at {first.get('loc')}: {first.get('msg')}"
