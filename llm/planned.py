"""Questions FinSync offers with the plan they stand for: the examples and overview tiles of the
first screen, the next steps under an answer, a point of a chart.

Asked, such a question is answered from its plan as it is (``ChatPipeline.ask(planned=...)``),
without routing its words again: what a tile or a button shows is what the chat answers, in
every language the app speaks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from elastic.model.plan import Intent, IntentPlan

# A plan's shape fields, reset to the plan's defaults whenever a plan is turned into another
# kind of question.
_SHAPE = (
    "metric",
    "per",
    "group_by",
    "top",
    "compare",
    "interval",
    "split_by_category",
    "sort",
    "limit",
    "facts",
    "clarification",
    "suggestions",
)
_SHAPE_DEFAULTS: dict[str, Any] = {
    name: IntentPlan.model_fields[name].get_default(call_default_factory=True) for name in _SHAPE
}


@dataclass(frozen=True)
class PlannedQuestion:
    """What a button says (in ``language``) and the plan it asks."""

    text: str
    plan: IntentPlan
    language: str = "en"


def reshaped(plan: IntentPlan, intent: Intent, **changes: Any) -> IntentPlan:
    """``plan``'s filters (dates, accounts, categories, merchants, currency, direction, amounts,
    text) as a question of ``intent``, with ``changes``; validated like a routed plan."""
    fields = plan.model_dump(mode="json")
    fields.update(_SHAPE_DEFAULTS)
    if intent is not Intent.text_qa and plan.intent is Intent.text_qa:
        fields["text"] = None  # a statement question's words are not a filter on rows
    fields.update(changes)
    fields["intent"] = intent.value
    return IntentPlan.model_validate(fields)
