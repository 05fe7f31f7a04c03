"""Route a validated plan to the backend call for its intent. Routing only: no query logic."""

from __future__ import annotations

import numpy as np

from elastic.backend import SearchBackend
from llm.answer import Result
from llm.intent_plan import Intent, IntentPlan


def execute(
    backend: SearchBackend,
    user_id: str,
    plan: IntentPlan,
    query_vector: np.ndarray | None = None,
) -> Result | None:
    """Run ``plan`` for ``user_id``; the backend applies the user filter to every query."""
    match plan.intent:
        case Intent.aggregate:
            return backend.aggregate(user_id, plan)
        case Intent.trend:
            return backend.trend(user_id, plan)
        case Intent.listing:
            return backend.listing(user_id, plan)
        case Intent.text_qa:
            return backend.text_qa(user_id, plan, query_vector)
    return None
