"""Every type a result can be has one rule in each table that dispatches on it: the composer,
the JSON writer, the checker of Gemini's numbers, the chart code and the line of what was
counted. A kind added to ``Result`` without them fails here, not in front of a user."""

from __future__ import annotations

import pytest

from llm.answering import answer, composer, gemini_composer
from llm.answering.answer import RESULT_TYPES
from llm.executor import BASES
from ui import charts

TABLES = {
    "composer": composer.COMPOSERS,
    "JSON writer": answer.DATA,
    "Gemini's number checker": gemini_composer.FACTS,
    "chart code": charts.CHARTS,
    "basis": BASES,
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_result_type_has_a_rule(name: str) -> None:
    table = TABLES[name]
    missing = [kind.__name__ for kind in RESULT_TYPES if kind not in table]
    assert not missing, f"the {name} has no rule for {missing}"
    unknown = [kind.__name__ for kind in table if kind not in RESULT_TYPES]
    assert not unknown, f"the {name} has rules for types no result is: {unknown}"


def test_the_result_types_are_the_kinds_of_answer() -> None:
    names = {kind.__name__ for kind in RESULT_TYPES}
    assert {
        "AggregateResult", "TrendResult", "ListingResult", "TextQAResult", "CompareResult",
        "ShareResult", "PeakResult", "ChangesResult", "BalanceResult", "RecurringResult",
        "AnomalyResult",
    } == names  # fmt: skip
