"""The app's statement PDF screens, driven with Streamlit's AppTest on a real embedded store: the
Ingest page previews a statement before it lands (every field editable), the Sources page marks
how each statement reconciles, and a row's citation opens its statement page with the row
marked. The statements are the sample layouts of ``scripts/sample_statements.py``, checked
against the truth written beside them."""

from __future__ import annotations

import hashlib
import json
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import ui.source_viewer
from elastic.engines import open_backend
from elastic.ingest import Importer
from elastic.model.records import Box
from elastic.statement_store import StatementStore
from llm.answering.wording import money
from llm.embeddings import LocalEmbedder
from scripts.sample_statements import generate_statements
from settings import Settings
from tests.app_server import APP, copy_data_dir
from tests.statement_truths import every_row
from tests.test_ui_apptest import (
    TIMEOUT_S,
    ask,
    page,
    report_shown,
    shown_tables,
    started,
    use_data_dir,
)

LANDED = ("uk_current", "nz_everyday")  # reconciled; off by a misprinted row


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Each sample layout's PDF and its truth."""
    folder = tmp_path_factory.mktemp("sample-statements")
    paths = {path.name: path for path in generate_statements(folder)}
    truths = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    return {truth["layout"]: (paths[truth["file"]], truth) for truth in truths}


@pytest.fixture(scope="module")
def statement_dir(
    samples: dict[str, tuple[Path, dict[str, Any]]],
    embedder: LocalEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """A store holding two sample statements of the default user."""
    data_dir = tmp_path_factory.mktemp("statement-ui")
    settings = Settings(data_dir=data_dir, es_url=None)
    backend = open_backend(settings)
    try:
        backend.prepare(embedder.dims, embedder.model_name)
        pdfs = [samples[layout][0] for layout in LANDED]
        store = StatementStore(settings.statements_dir)
        Importer(backend, settings.user, embedder, store).land_all(pdfs)
    finally:
        backend.close()
    return data_dir


def uploaded(at: AppTest, pdf: Path) -> str:
    """Upload ``pdf`` on the Ingest page; the key its preview's widgets share."""
    data = pdf.read_bytes()
    at.file_uploader(key="uploads").upload(pdf.name, data, "application/pdf").run()
    assert not at.exception, at.exception
    return hashlib.sha256(data).hexdigest()[:16]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


def test_a_statement_is_previewed_then_lands_with_what_was_edited(
    samples: dict[str, tuple[Path, dict[str, Any]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf, truth = samples["uk_current"]
    data_dir = tmp_path / "data"
    use_data_dir(monkeypatch, data_dir)
    at = started(page("ingest_page", "ui.pages.ingest_page"))
    key = uploaded(at, pdf)
    # Before anything lands: what the statement says about itself, each field editable.
    assert at.text_input(key=f"{key}-bank_name").value == truth["bank"]
    assert at.text_input(key=f"{key}-currency").value == truth["currency"]
    account = at.text_input(key=f"{key}-account_name").value
    assert account and "THISTLEWOOD" not in account.upper() and "pdf" not in account
    assert at.text_input(key=f"{key}-account_no").placeholder == truth["account"]
    start, end = (date.fromisoformat(day) for day in truth["period"])
    assert at.date_input(key=f"{key}-period-from").value == start
    assert at.date_input(key=f"{key}-period-to").value == end
    assert at.text_input(key=f"{key}-opening").value == truth["opening_balance"]
    assert at.text_input(key=f"{key}-closing").value == truth["closing_balance"]
    assert metrics(at) == {
        "Rows read": str(truth["transactions"]),
        "Reconciliation": "✓ Reconciled",
    }
    assert page_images(at) == 1, "a thumbnail of the first page, its data in the page"
    assert len(shown_tables(at)[0]) > 0
    # A balance that is not a number is said so; the name typed wins when the file lands.
    at.text_input(key=f"{key}-opening").set_value("12,O5").run()
    assert [e.value for e in at.error] == ["The opening balance is not a number."]
    at.text_input(key=f"{key}-opening").set_value(truth["opening_balance"])
    at.text_input(key=f"{key}-account_name").set_value("Household current account").run()
    assert not at.error
    next(b for b in at.button if b.label.startswith("Ingest 1 file")).click().run()
    report_shown(at)
    assert at.metric[0].value == str(truth["transactions"])
    notes = captions(at)
    assert any(f"{truth['transactions']} rows read\\; reconciled" in note for note in notes), notes

    backend = open_backend(Settings(data_dir=data_dir, es_url=None))
    try:
        (statement,) = backend.statements(Settings().user)
    finally:
        backend.close()
    assert statement.account_name == "Household current account"
    assert statement.reconciliation is not None and statement.reconciliation.status == "reconciled"


def test_a_statement_that_does_not_reconcile_is_previewed_with_its_gap_and_unread_row(
    samples: dict[str, tuple[Path, dict[str, Any]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf, truth = samples["nz_everyday"]
    use_data_dir(monkeypatch, tmp_path / "data")
    at = started(page("ingest_page", "ui.pages.ingest_page"))
    uploaded(at, pdf)
    gap = money(Decimal(truth["reconciliation"]["gap"]), truth["currency"])
    (unread,) = truth["unread"]
    assert metrics(at) == {
        "Rows read": str(truth["transactions"] - 1),
        "Reconciliation": f"✗ Off by {gap}",
    }
    not_read = [c for c in captions(at) if c.startswith("Not read — ")]
    assert any(
        f"page {unread['page']}" in c and unread["amount"].replace(".", "\\.") in c
        for c in not_read
    ), not_read
    # The printed 29 February of a year without one is named, and kept at the 28th.
    assert any("29 Feb" in c and "2023\\-02\\-28" in c for c in captions(at)), captions(at)


def test_sources_page_marks_how_each_statement_reconciles(
    samples: dict[str, tuple[Path, dict[str, Any]]],
    statement_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_data_dir(monkeypatch, statement_dir)
    at = started(page("sources_page", "ui.pages.sources_page"))
    statements = at.dataframe[0].value
    marks = dict(zip(statements["Bank"], statements["Check"], strict=True))
    rows = dict(zip(statements["Bank"], statements["Rows"], strict=True))
    uk, nz = samples["uk_current"][1], samples["nz_everyday"][1]
    gap = money(Decimal(nz["reconciliation"]["gap"]), nz["currency"])
    assert marks == {uk["bank"]: "✓ Reconciled", nz["bank"]: f"✗ Off by {gap}"}
    assert rows == {uk["bank"]: uk["transactions"], nz["bank"]: nz["transactions"] - 1}


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Box | None]:
    """The regions marked on the statement pages the viewer draws (the real drawing runs)."""
    regions: list[Box | None] = []
    draw = ui.source_viewer.bounded_page_png

    def recording(pdf: Path, page: int, account_no: str, *args: Any) -> bytes:
        regions.append(args[1] if len(args) > 1 else None)
        return draw(pdf, page, account_no, *args)

    monkeypatch.setattr(ui.source_viewer, "bounded_page_png", recording)
    return regions


def page_images(at: AppTest) -> int:
    """Statement pages drawn on the page, each an image holding its own data."""
    return " ".join(h.value for h in at.html).count('<img src="data:image/png;base64,')


def stored_rows(data_dir: Path, merchant: str) -> list[Any]:
    backend = open_backend(Settings(data_dir=data_dir, es_url=None))
    try:
        return [r for r in every_row(backend, Settings().user) if r.merchant == merchant]
    finally:
        backend.close()


def test_a_row_citation_opens_its_statement_page_with_the_row_marked(
    statement_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, drawn: list[Box | None]
) -> None:
    data_dir = copy_data_dir(statement_dir, tmp_path / "data")
    use_data_dir(monkeypatch, data_dir)
    (row,) = stored_rows(data_dir, "Mercury Energy")
    chat = started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))
    ask(chat, "How much did I spend at Mercury Energy?")
    answer = " ".join(m.value for m in chat.chat_message[1].markdown)
    # The row comes from a statement that does not reconcile: the answer says so in one line.
    assert "not reconciled with the balances printed" in answer, answer
    chat.button(key="cite-0-1").click().run()
    assert not chat.exception, chat.exception
    assert page_images(chat) == 1, "the statement page is shown as an image"
    assert drawn and drawn[-1] == row.box and row.page == 1
    total = f"1 transaction · signed total {money(row.amount, row.currency)}"
    assert any(c.value.startswith(total) for c in chat.caption)
    page_text = " ".join(h.value for h in chat.html)
    assert "MERCURY ENERGY" in page_text
    sources = list(shown_tables(chat)[0]["Source"])
    # The statement is named as it was imported, with its month; never the path it is kept at.
    assert sources and all(s.startswith("nz_everyday_2023-02.pdf · February 2023") for s in sources)
    assert not any("/" in s for s in sources), sources


def test_a_citation_of_several_rows_offers_each_printed_row_on_its_page(
    statement_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, drawn: list[Box | None]
) -> None:
    data_dir = copy_data_dir(statement_dir, tmp_path / "data")
    use_data_dir(monkeypatch, data_dir)
    rows = stored_rows(data_dir, "Tesco")
    assert len(rows) > 1
    chat = started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))
    ask(chat, "How much did I spend at Tesco?")
    chat.button(key="cite-0-1").click().run()
    assert not page_images(chat) and not drawn, "several rows: the table first"
    assert len(shown_tables(chat)[0]) == len(rows)
    # Choosing one opens its page (a dialog's own rerun: see test_statement_browser.py).
    (chooser,) = [s for s in chat.selectbox if s.label == "Show a row on its statement page"]
    assert sorted(chooser.options) == sorted(
        f"{r.date.isoformat()} · Tesco · {money(r.amount, r.currency)}" for r in rows
    )
