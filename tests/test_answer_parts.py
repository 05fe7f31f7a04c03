"""The answer's parts: the composer fills them, their markdown is the answer text, and a rewording
(Gemini's) keeps them in step with the text. Wording shared by answers and pages agrees."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest

from elastic.model.plan import Direction, GroupBy, Intent, IntentPlan, Metric
from elastic.model.records import Transaction
from elastic.model.results import AggregateResult, Group, ListingResult
from llm.answering.answer import Answer, Note, Prose, Suggestions, Table, parts_markdown
from llm.answering.composer import MAX_TABLE_ROWS, compose, compose_answer
from llm.answering.wording import CURRENCY_SYMBOLS, currency_symbol, money
from ui.tables import money_format

PLAN = IntentPlan(intent=Intent.aggregate, direction=Direction.out, group_by=GroupBy.category)


def _groups(count: int, currency: str = "USD") -> AggregateResult:
    groups = [Group(f"Category {n}", Decimal(100 - n), 1) for n in range(count)]
    total = sum((g.value or Decimal(0) for g in groups), Decimal(0))
    return AggregateResult(Metric.sum, Direction.out, total, count, currency, groups)


def _row(n: int) -> Transaction:
    return Transaction(
        transaction_id=f"t{n}",
        date=date(2025, 3, 1 + n % 28),
        description=f"CARD PAYMENT {n} [1](http://x.example)",
        amount=Decimal(f"-{n + 1}.50"),
        currency="USD",
        category="Shopping",
        merchant=f"Shop {n}",
        account_no="4402718831",
        account_name="Checking",
        bank_name="Bank",
    )


def test_a_breakdown_is_a_sentence_and_a_table_whose_markdown_is_the_text() -> None:
    answer = compose_answer(PLAN, _groups(MAX_TABLE_ROWS + 3))
    lead, table = answer.parts
    assert isinstance(lead, Prose) and lead.text.startswith("You spent **$")
    assert isinstance(table, Table)
    assert table.columns == ("Category", "Sum", "Transactions")
    assert len(table.rows) == MAX_TABLE_ROWS and table.rows[0] == ("Category 0", "$100.00", "1")
    assert table.more == "…and 3 more."
    assert answer.text == f"{lead.text}\n\n{table.markdown()}"
    assert answer.text == compose(PLAN, _groups(MAX_TABLE_ROWS + 3))[0]
    assert answer.as_json()["answer"] == answer.text


def test_a_listing_table_holds_the_rows_as_worded_with_accounts_masked() -> None:
    plan = IntentPlan(intent=Intent.listing, limit=MAX_TABLE_ROWS + 2)
    rows = [_row(n) for n in range(MAX_TABLE_ROWS + 2)]
    answer = compose_answer(plan, ListingResult(rows=rows, total=40))
    lead, table = answer.parts
    assert isinstance(lead, Prose) and lead.text.endswith("[1]:")
    assert isinstance(table, Table) and table.numeric == (False, False, False, False, True)
    assert table.rows[0][1] == "CARD PAYMENT 0 (1)(http://x.example)"  # no link, no marker
    assert table.rows[0][3] == "Checking ***8831"
    assert table.more == "…and 2 more in the table of rows [1]."


def test_per_currency_answers_keep_each_currency_apart() -> None:
    result = replace(_groups(0), by_currency=[_groups(2, "USD"), _groups(2, "EUR")])
    answer = compose_answer(PLAN, result)
    kinds = [type(part).__name__ for part in answer.parts]
    assert kinds == ["Prose", "Prose", "Table", "Prose", "Table"]
    assert answer.parts[1].markdown().startswith("**USD:** You spent **$")
    assert answer.parts[3].markdown().startswith("**EUR:** You spent **€")
    assert answer.parts[4].rows[0][1] == "€100.00"  # type: ignore[union-attr]


def test_notes_and_suggestions_are_parts_of_their_own() -> None:
    clarify = IntentPlan(
        intent=Intent.clarify, clarification="Which account?", suggestions=["Spend in 2024?"]
    )
    answer = compose_answer(clarify, None)
    assert answer.parts == [Prose("Which account?"), Suggestions(("Spend in 2024?",))]
    assert answer.text == "Which account?\n\nYou could ask:\n- Spend in 2024?"
    noted = [Prose("The fee is **$35.00** [1]."), Note("Keyword search only")]
    assert parts_markdown(noted) == "The fee is **$35.00** [1].\n\n_Keyword search only_"


def test_a_reworded_answer_keeps_its_table_and_replaces_its_first_paragraph() -> None:
    answer = compose_answer(PLAN, _groups(3))
    rest = answer.text.partition("\n\n")[2]
    reworded = answer.reworded("Mostly Category 0 [1].")
    assert reworded.text == f"Mostly Category 0 [1].\n\n{rest}"
    assert reworded.parts[0] == Prose("Mostly Category 0 [1].")
    assert reworded.parts[1:] == answer.parts[1:]
    one_paragraph = Answer(PLAN.intent, "Computed [1].", PLAN)
    rewritten = one_paragraph.reworded("All new [1].")
    assert rewritten.parts == [Prose("All new [1].")] and rewritten.text == "All new [1]."


@pytest.mark.parametrize("currency", sorted(CURRENCY_SYMBOLS))
def test_every_currency_reads_the_same_in_answers_and_tables(currency: str) -> None:
    symbol = currency_symbol(currency)
    assert money(Decimal("-1234.5"), currency) == f"-{symbol}1,234.50"
    shown = money_format(currency)
    presets = {"dollar": "$", "euro": "€", "yen": "¥"}
    assert presets.get(shown, shown).startswith(symbol)


def test_a_currency_without_a_symbol_reads_as_its_code_everywhere() -> None:
    assert money(Decimal("3"), "CHF") == "CHF 3.00"
    assert money_format("CHF") == "CHF %.2f"
    assert money_format("GBP") == "£%.2f" and money_format("JPY") == "yen"
