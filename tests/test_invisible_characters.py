"""Characters that draw nothing (bidi overrides, zero-width spaces) never make a second merchant
or a spoofed label: names lose them when a file lands, the raw descriptor keeps them, and the
app drops them from whatever it shows."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest.landing import FileDefaults, ingest_file
from elastic.model.plan import Direction, Intent, IntentPlan, SortOrder
from elastic.model.records import Transaction
from elastic.visible_text import visible
from llm.answering.wording import wording
from settings import Settings
from tests.reliability import record
from ui.answer_text import inert_text, plain_figure_text, plain_markdown
from ui.tables import transactions_html

pytestmark = pytest.mark.reliability

HIDDEN = ["\u200b", "\u202e", "\u2066", "\u2069", "\ufeff", "\u00ad", "\u200f", "\u2060"]


def test_visible_keeps_letters_and_drops_what_draws_nothing() -> None:
    assert visible("Ama\u200bzon\u202e\ufeff") == "Amazon"
    assert visible("café Zoë 7-Eleven") == "café Zoë 7-Eleven"
    assert visible("\u200f1,234.50\xa0US$", keep_marks=True) == "\u200f1,234.50\xa0US$"
    assert all(visible(f"a{c}b") == "ab" for c in HIDDEN)


def test_names_land_without_invisible_characters(tmp_path: Path) -> None:
    header = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name"
    rows = [
        "2024-06-01,AMAZON MKTP,-10.00,USD,Shopping,Amazon,500011112222,Everyday,Test Bank",
        "2024-06-02,AMA\u200bZON MKTP,-20.00,USD,Shopping,Ama\u200bzon,500011112222,Every\u202eday,"
        "Test Bank",
        "2024-06-03,\u202eeud 00.0001$ dnufeR,-5.00,USD,Shopping,\u202eeud 00.0001$ dnufeR,"
        "500011112222,Everyday,Test\u200b Bank",
    ]
    export = tmp_path / "june.csv"
    export.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    backend = EmbeddedBackend(Settings(data_dir=tmp_path / "data"))
    backend.prepare(384, "test-model")
    try:
        report = ingest_file(backend, export, "u", defaults=FileDefaults())
        assert report.indexed == 3 and not report.problems
        vocabulary = backend.vocabulary("u")
        assert sorted(vocabulary.merchants) == ["Amazon", "eud 00.0001$ dnufeR"]
        assert [a.account_name for a in vocabulary.accounts] == ["Everyday"]
        amazon = IntentPlan(intent=Intent.aggregate, direction=Direction.out, merchants=["Amazon"])
        assert backend.aggregate("u", amazon).count == 2
        worded = IntentPlan(intent=Intent.aggregate, direction=Direction.out, text="amazon mktp")
        assert backend.aggregate("u", worded).count == 2  # descriptions are searched as they read
        listing = IntentPlan(intent=Intent.listing, sort=SortOrder.oldest, limit=5)
        rows_back = backend.listing("u", listing).rows
        assert rows_back[1].raw_description == "AMA\u200bZON MKTP"  # the file's own text is kept
        assert {r.bank_name for r in rows_back} == {"Test Bank"}
        record(
            "markup",
            "a zero-width space in a merchant ('Ama\\u200bzon') and a bidi override in a name",
            "one Amazon; names land without them, the raw descriptor keeps them",
            backend="embedded",
        )
    finally:
        backend.close()


def test_the_app_shows_text_without_overrides_but_keeps_direction_marks() -> None:
    spoof = "\u202eeud 00.0001$ dnufeR"
    for shown in (plain_markdown(spoof), plain_figure_text(spoof), inert_text(spoof)):
        assert "\u202e" not in shown and "dnufeR" in shown
    money = wording("ar").money  # Arabic amounts lead with a right-to-left mark
    assert "\u200f" in inert_text(f"المبلغ {money(12, 'USD')}")
    row = Transaction(
        "t1", date(2024, 6, 1), "Ama\u200bzon", Decimal("-1"), "USD",
        "Shopping", "Ama\u200bzon", "5000", "Every\u2066day", "Bank",
    )  # fmt: skip
    table = transactions_html([row])
    assert "\u200b" not in table and "\u2066" not in table and "Amazon" in table
    record(
        "markup",
        "a bidi override spoofing a chart label ('Refund $1000.00 due')",
        "dropped from every text the app shows; direction marks of Arabic amounts kept",
    )
