"""The chat's tools and the pages' forms, driven through the real app (``AppTest``) over the
sample in a real SQLite file: next steps, a trend's numbers and chart type, editing and asking
again, regenerating, the conversation across sessions and its clearing, Forget asking first
and naming files, and the Ingest form keeping its fields in its own words. Numbers are checked
against the sample CSV computed independently."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from llm.answering.wording import money
from scripts.sample_data import SampleSet
from tests.app_server import copy_data_dir, spent
from tests.test_ui_apptest import (
    APP,
    TIMEOUT_S,
    answer_markdown,
    ask,
    page,
    started,
    use_data_dir,
)
from tests.test_ui_apptest import app as app  # the app over the ingested sample
from tests.test_ui_apptest import data_dir as data_dir
from tests.test_ui_apptest import transactions as transactions
from ui.answer_text import plain_markdown

LLOYDS_LACKS_A_BANK = "lloyds_current.csv"  # a sample export that names no bank


def _new_session() -> AppTest:
    """Another browser session of the same user: a reload."""
    return started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))


def _labels(at: AppTest, prefix: str) -> list[str]:
    return [b.label for b in at.button if b.key and b.key.startswith(prefix)]


def _click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def _chart(at: AppTest, index: int = -1) -> dict:
    return json.loads(at.get("plotly_chart")[index].proto.spec)


def test_every_answer_offers_next_steps_that_answer(
    app: AppTest, transactions: pd.DataFrame
) -> None:
    ask(app, "How much did I spend on groceries in 2025?")
    assert _labels(app, "next-0-") == [
        "By month",
        "By merchant",
        "Compared with last year",
        "Show the transactions",
    ]
    _click(app, "next-0-0")
    assert app.chat_message[2].markdown[0].value == "By month"
    (trace,) = _chart(app)["data"]
    total, _ = spent(transactions, "2025-01-01", "2025-12-31", category="Groceries")
    assert Decimal(str(round(sum(trace["y"]), 2))) == total
    _click(app, "next-0-2")  # compared with last year: 2024 against 2025
    before, _ = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
    text = answer_markdown(app, 2).replace("\\$", "$")
    assert money(before) in text and money(total) in text


def test_a_trend_opens_its_numbers_and_changes_its_chart(
    app: AppTest, transactions: pd.DataFrame
) -> None:
    ask(app, "Show monthly grocery spending for 2024")
    assert _chart(app)["data"][0]["type"] == "scatter"
    (table,) = [frame.value for frame in app.dataframe]
    assert list(table.columns) == ["Period", "Sum", "Transactions"]
    assert len(table) == 12 and table["Period"].iloc[2] == "March 2024"
    total, count = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
    assert Decimal(str(round(table["Sum"].sum(), 2))) == total
    assert table["Transactions"].sum() == count
    assert "Download CSV" in [b.label for b in app.download_button]
    app.segmented_control(key="turn-0-kind").set_value("bars").run()
    assert _chart(app)["data"][0]["type"] == "bar"
    assert "Select a bar, point or slice" in " ".join(c.value for c in app.caption)


def test_a_question_is_edited_and_asked_again(app: AppTest, transactions: pd.DataFrame) -> None:
    ask(app, "How much did I spend on groceries in 2024?")
    ask(app, "How much did I spend on travel in 2024?")
    _click(app, "edit-button-0")
    app.text_area(key="edit-0").set_value("How much did I spend on dining in 2024?")
    next(b for b in app.button if b.label == "Ask again").click().run()
    assert not app.exception, app.exception
    assert len(app.chat_message) == 2  # the edited question replaces it and what followed
    assert app.chat_message[0].markdown[0].value == plain_markdown(
        "How much did I spend on dining in 2024?"
    )
    dining, _ = spent(transactions, "2024-01-01", "2024-12-31", category="Dining")
    assert app.metric[0].value == money(dining)


def test_the_newest_answer_is_regenerated_in_place(app: AppTest) -> None:
    ask(app, "How much did I spend on groceries in 2024?")
    first = app.metric[0].value
    assert _labels(app, "regenerate-") == ["Regenerate"]
    _click(app, "regenerate-0")
    assert len(app.chat_message) == 2 and app.metric[0].value == first
    ask(app, "How much did I spend on travel in 2024?")
    assert [b.key for b in app.button if b.key and b.key.startswith("regenerate-")] == [
        "regenerate-1"
    ]


def test_the_conversation_survives_a_reload_until_it_is_cleared(
    app: AppTest, transactions: pd.DataFrame
) -> None:
    ask(app, "How much did I spend on groceries in 2024?")
    _click(app, "next-0-0")  # a next step, asked from its plan
    reloaded = _new_session()
    assert len(reloaded.chat_message) == 4
    groceries, _ = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
    assert reloaded.metric[0].value == money(groceries)
    assert reloaded.chat_message[2].markdown[0].value == "By month"
    assert len(reloaded.get("plotly_chart")) == 1
    reloaded.button(key="clear-chat").click().run()
    assert not reloaded.chat_message
    assert not _new_session().chat_message


def test_sources_name_statements_by_file_and_month(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, sample_set: SampleSet
) -> None:
    use_data_dir(monkeypatch, data_dir)
    at = started(page("sources_page", "ui.pages.sources_page"))
    statements = at.dataframe[0].value
    assert sorted(statements["File"]) == sorted(p.name for p in sample_set.statement_pdfs)
    march = statements[statements["File"].str.endswith("everyday-checking_2025-03.pdf")]
    assert list(march["Month"]) == ["March 2025"]
    assert not statements["File"].str.contains("/").any()


def test_forget_asks_first_naming_what_goes(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_set: SampleSet
) -> None:
    use_data_dir(monkeypatch, copy_data_dir(data_dir, tmp_path / "data"))
    at = started(page("sources_page", "ui.pages.sources_page"))
    options = at.selectbox(key="forget-file").options
    names = [option.split(" · ")[0] for option in options]
    assert names == sorted(names, key=str.casefold) and "transactions.csv" in names
    january = next(o for o in options if o.startswith(sample_set.statement_pdfs[0].name))
    assert " · January 2024 · 3 pages, 0 transactions" in january
    at.selectbox(key="forget-file").select_index(options.index(january)).run()
    _click(at, "forget-one")
    said = " ".join(m.value for m in at.markdown)
    assert plain_markdown(sample_set.statement_pdfs[0].name) in said
    assert "January 2024" in said and "3 pages" in said and "cannot be undone" in said
    assert len(at.dataframe[0].value) == len(sample_set.statement_pdfs)  # nothing gone yet
    _click(at, "forget-one-confirm")
    assert any("Forgot" in s.value for s in at.success)
    assert len(at.dataframe[0].value) == len(sample_set.statement_pdfs) - 1


def _report_shown(at: AppTest) -> AppTest:
    deadline = time.monotonic() + TIMEOUT_S
    while not any(h.value == "Report" for h in at.subheader):
        assert time.monotonic() < deadline, "the import did not finish"
        time.sleep(0.2)
        at.run()
        assert not at.exception, at.exception
    return at


def test_the_ingest_form_keeps_its_fields_and_its_own_words(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample_set: SampleSet
) -> None:
    use_data_dir(monkeypatch, copy_data_dir(data_dir, tmp_path / "data"))
    exports = sample_set.exports[0].parent
    at = started(page("ingest_page", "ui.pages.ingest_page"))
    lloyds = (exports / LLOYDS_LACKS_A_BANK).read_bytes()
    at.file_uploader(key="uploads").upload(LLOYDS_LACKS_A_BANK, lloyds, "text/csv").run()
    assert not at.exception, at.exception
    fields = [t.label for t in at.text_input]
    assert fields == ["Account name", "Account number", "Bank", "Currency (ISO code)"]
    (lacking,) = [w.value for w in at.warning]
    assert "fill in “Bank” below" in lacking and "--" not in lacking

    bank = next(t for t in at.text_input if t.label == "Bank")
    bank.set_value("Lloyds Bank").run()
    assert [t.label for t in at.text_input] == fields  # nothing folds or vanishes
    assert [w.value for w in at.warning] == [lacking]

    next(b for b in at.button if b.label.startswith("Ingest 1 file")).click().run()
    _report_shown(at)
    assert not any("--" in c.value for c in at.caption)
    halifax = (exports / "halifax_card.csv").read_bytes()
    at.file_uploader(key="uploads").upload("halifax_card.csv", halifax, "text/csv").run()
    assert not at.exception, at.exception
    assert not any(h.value == "Report" for h in at.subheader)  # the new file replaces it
