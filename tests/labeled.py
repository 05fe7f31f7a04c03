"""The labeled question set, shared by the routing, pandas and differential tests.

A case is one question with the plan it must get (``expect``, only the fields that matter) and
the rule that should fire for it (``rule``); a chain is a conversation whose turns are asked one
after the other, each after the plan the router gave the turn before. A case may be asked over
another vocabulary than the sample data's (``vocabulary``: a user with two cards, three
currencies and categories named their own way), may say its language (``language``) and tags
what it exercises (``tags``: scope, typo, chain, ...).

``expect`` holds plan fields, plus ``message`` (the key of a clarification) and, for cases
written before clarifications were messages, ``clarification`` and ``suggestions`` as the
English answer words them.

``labeled_questions.jsonl`` is what the router is built against; ``labeled_holdout.jsonl`` was
set aside before the rules it tests were written, and is scored on its own.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from elastic.model.plan import CompareSide, IntentPlan
from elastic.model.results import AccountInfo, Vocabulary
from llm.answering.messages import word
from llm.answering.wording import wording
from llm.pipeline import Router

DATA = Path(__file__).parent / "data"
LABELED = DATA / "labeled_questions.jsonl"
HOLDOUT = DATA / "labeled_holdout.jsonl"
# Cases the offline router still routes wrongly; this set may only shrink. "fee-03" names a trip
# ("the Tokyo trip") that no merchant, category or description carries; "wd-09" ("car
# repairs") is not close enough in meaning to the auto repair shop or Transportation to place.
KNOWN_MISSES = frozenset({"fee-03", "wd-09"})
# The held-out questions routed wrongly when they were first scored (116 of 120 right), after
# the rules were written; none was fixed after: chatter after an answer ("tell me a joke",
# "thanks, that's all") is taken as a follow-up and answered with the last figure; "Qui a fondé
# Amazon ?" has one French marker in four words, so it is read as English and answered as
# spending at Amazon; "haircuts" is not close enough in meaning to "Personal Care" to place.
# The 46 held-out questions of the kinds beyond totals were first scored 43 of 46; the three
# misses were fixed after ("savings rate" naming the savings account, "am 3. März" read as the
# month, "withdraw cash" read as the Cash category) and now pass.
KNOWN_HOLDOUT_MISSES = frozenset({"ch-joke.2", "ch-thanks.2", "fr-29", "hh-16"})
SAMPLE = "sample"

# A household whose data FinSync's sample does not have: two credit cards, accounts in three
# currencies, and categories named the way other banking apps name them.
HOUSEHOLD = Vocabulary(
    merchants=[
        "Acme Robotics",
        "Airbnb",
        "Amazon",
        "BP",
        "Boots",
        "Carrefour",
        "Costa Coffee",
        "Deliveroo",
        "Mercadona",
        "Monoprix",
        "Netflix",
        "Pret A Manger",
        "PureGym",
        "Ryanair",
        "Shell",
        "Starbucks",
        "Tesco",
        "Trader Joe's",
        "Uber",
        "Whole Foods Market",
    ],
    categories=[
        "Auto & Transport",
        "Bills & Utilities",
        "Eating Out",
        "Entertainment",
        "Fees & Charges",
        "Groceries",
        "Health & Wellness",
        "Home",
        "Income",
        "Personal Care",
        "Pets",
        "Shopping",
        "Subscriptions",
        "Transfers",
        "Travel",
    ],
    accounts=[
        AccountInfo("Amex Gold Card", "American Express", "1005"),
        AccountInfo("Euro Current Account", "Revolut", "4410"),
        AccountInfo("Everyday Checking", "Cedar Valley Bank", "8831"),
        AccountInfo("Sapphire Preferred Card", "Chase", "7788"),
        AccountInfo("UK Current Account", "Monzo", "2231"),
    ],
    first_date=date(2024, 1, 1),
    last_date=date(2025, 6, 30),
    currency="USD",
    currencies=["EUR", "GBP", "USD"],
    descriptors={
        "Amazon": "AMZN MKTP US*2K4LM0TZ1",
        "PureGym": "PUREGYM LTD MEMBERSHIP",
        "Deliveroo": "DELIVEROO.CO.UK LONDON",
    },
)
VOCABULARIES = {"household": HOUSEHOLD}


def _cases(path: Path) -> list[dict[str, Any]]:
    """Every question of ``path``; a chain's turns each become a case that remembers the
    questions before it (``before``)."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        turns = case.pop("turns", None)
        if turns is None:
            cases.append(case)
            continue
        before: list[str] = []
        for number, turn in enumerate(turns, start=1):
            cases.append(
                case | turn | {"id": f"{case['id']}.{number}", "previous": None, "before": before}
            )
            before = [*before, turn["question"]]
    return cases


def load_cases(path: Path = LABELED, every_vocabulary: bool = False) -> list[dict[str, Any]]:
    """The cases of ``path`` over the sample data (all of them with ``every_vocabulary``)."""
    cases = _cases(path)
    return cases if every_vocabulary else [c for c in cases if vocabulary_of(c) == SAMPLE]


def vocabulary_of(case: dict[str, Any]) -> str:
    return str(case.get("vocabulary", SAMPLE))


def route_case(router: Router, case: dict[str, Any]) -> IntentPlan:
    """The case's plan: its chain asked turn by turn, or the question after its ``previous``."""
    as_of = date.fromisoformat(case["as_of"])
    previous = case["previous"] and IntentPlan.model_validate(case["previous"])
    for question in case.get("before", []):
        previous = router.route(question, as_of, previous or None)
    return router.route(case["question"], as_of, previous or None)


def previous_plan(router: Router, case: dict[str, Any]) -> IntentPlan | None:
    """The plan the case's question follows: its ``previous``, or its chain's last turn's."""
    as_of = date.fromisoformat(case["as_of"])
    previous = case["previous"] and IntentPlan.model_validate(case["previous"])
    for question in case.get("before", []):
        previous = router.route(question, as_of, previous or None)
    return previous or None


def clarification(plan: IntentPlan) -> str | None:
    """The plan's clarification as the English answer words it."""
    return word(plan.message, wording("en")) if plan.message else plan.clarification


def suggestions(plan: IntentPlan) -> list[str]:
    """The questions a clarification suggests, as the English answer words them."""
    return [word(m, wording("en")) for m in plan.suggested] + plan.suggestions


def _english(plan: IntentPlan) -> dict[str, Any]:
    """The plan as JSON, with its clarification and suggestions as the English answer words
    them (messages), for cases that pin the English text."""
    got = plan.model_dump(mode="json")
    got["clarification"] = clarification(plan)
    got["suggestions"] = suggestions(plan)
    got["message"] = plan.message.key if plan.message else None
    return got


def _same(field: str, expected: Any, got: Any) -> bool:
    if field == "compare":  # sides in order: periods in time order, names as asked
        sides = [CompareSide.model_validate(side).model_dump(mode="json") for side in expected]
        return sides == got
    if field in ("min_amount", "max_amount"):
        return (expected is None and got is None) or (
            expected is not None and got is not None and Decimal(str(expected)) == Decimal(got)
        )
    if isinstance(expected, list) and field != "suggestions":
        return sorted(expected) == sorted(got)
    return bool(expected == got)


def misses(plan: IntentPlan, expect: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """The expected fields ``plan`` gets wrong: field -> (expected, got)."""
    got = _english(plan)
    return {f: (v, got.get(f)) for f, v in expect.items() if not _same(f, v, got.get(f))}
