"""Statement PDFs in other banks' layouts, landed on both backends and answered against their
truth: pages searchable, facts stated on the page, every readable row with how its statement
reconciles, and the rows that cannot be read named with their page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.backend import SearchBackend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest.landing import FileDefaults, ingest_file, preview_statement
from elastic.ingest.pdf.statement import OCR_MARK
from elastic.model.plan import Direction, Intent, IntentPlan
from elastic.model.records import IngestReport
from elastic.statement_store import StatementStore
from llm.answering.wording import money
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from settings import Settings
from tests.conftest import es_settings

AS_OF = date(2025, 1, 15)
FACT_QUESTIONS = {
    "closing_balance": "What was my closing balance?",
    "opening_balance": "What was my opening balance?",
    "amount_due": "What is the total amount due?",
    "minimum_payment": "What's the minimum payment due?",
    "credit_limit": "What is my credit limit?",
}


@pytest.fixture(scope="module")
def layouts(sample_set: SampleSet) -> tuple[Path, list[dict]]:
    out = sample_set.statement_layouts[0].parent
    return out, json.loads((out / "truth.json").read_text())


def user_of(truth: dict) -> str:
    return "pdf-" + truth["file"].removesuffix(".pdf")


@pytest.fixture(scope="module", params=["embedded", "elasticsearch"])
def landed(
    request: pytest.FixtureRequest,
    layouts: tuple[Path, list[dict]],
    embedder: LocalEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[SearchBackend, dict[str, IngestReport]]]:
    data_dir = tmp_path_factory.mktemp("pdf-data")
    if request.param == "elasticsearch":
        settings = es_settings(request.getfixturevalue("es_url"), data_dir)
        backend: SearchBackend = ElasticsearchBackend(settings)
    else:
        settings = Settings(data_dir=data_dir)
        backend = EmbeddedBackend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    out, truths = layouts
    store = StatementStore(settings.statements_dir)
    reports = {
        t["file"]: ingest_file(backend, out / t["file"], user_of(t), embedder, store)
        for t in truths
    }
    yield backend, reports
    if isinstance(backend, ElasticsearchBackend):
        backend.es.indices.delete(index=backend.indices, ignore_unavailable=True)
    backend.close()


def rows_of(backend: SearchBackend, user: str) -> list:
    plan = IntentPlan(intent=Intent.listing, direction=Direction.any, limit=100)
    return backend.listing(user, plan).rows


def test_every_statement_lands_its_pages_and_every_readable_row(landed, layouts):
    backend, reports = landed
    for truth in layouts[1]:
        name, report = truth["file"], reports[truth["file"]]
        assert report.format == "statement PDF"
        check, unread = truth["reconciliation"], truth["unread"]
        # A statement whose rows fall short is reported, and so is each row not read, by page.
        expected = [f"page {u['page']}" for u in unread] + (
            ["file"] if check["status"] == "off" else []
        )
        assert [p.location for p in report.problems] == expected, (name, report.problems)
        for problem, row in zip(report.problems, unread, strict=False):
            assert row["date"] in problem.reason and row["amount"] in problem.reason, name
        chunks = backend.statement_chunks(user_of(truth), _statement_id(backend, truth))
        assert {c.page for c in chunks} == set(range(1, truth["pages"] + 1)), name
        (info,) = backend.statements(user_of(truth))
        assert info.reconciliation is not None and info.reconciliation.status == check["status"]
        rows = rows_of(backend, user_of(truth))
        assert len(rows) == truth["transactions"] - len(unread), name
        assert {r.reconciliation for r in rows} == {check["status"]}, name
        gap = Decimal(check.get("gap", "0"))
        moved = Decimal(truth["closing_balance"]) - Decimal(truth["opening_balance"])
        assert sum(r.amount for r in rows) == moved + gap, name  # the missed rows are money out
        assert all(r.page and r.box for r in rows)  # each row can be shown on its page


def _statement_id(backend: SearchBackend, truth: dict) -> str:
    (info,) = backend.statements(user_of(truth))
    return info.statement_id


def test_scanned_pages_are_read_by_ocr_and_marked(landed, layouts):
    backend, _ = landed
    (truth,) = [t for t in layouts[1] if "scanned" in t["file"]]
    chunks = backend.statement_chunks(user_of(truth), _statement_id(backend, truth))
    assert chunks and all(c.text.startswith(OCR_MARK) for c in chunks)


def test_stated_facts_answer_exactly_with_the_spot_on_the_page(landed, layouts):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    for truth in layouts[1]:
        for name, question in FACT_QUESTIONS.items():
            if truth.get(name) is None:
                continue
            answer = pipeline.ask(question, user_of(truth), AS_OF)
            facts = answer.as_json()["data"].get("facts")
            assert facts, (truth["file"], question, answer.text)
            expected = abs(Decimal(truth[name]))
            assert abs(Decimal(str(facts[0]["value"]))) == expected, (truth["file"], question)
            citation = answer.citations[0]
            assert citation.page and citation.box, (truth["file"], question)


def test_hand_checked_questions_are_answered_exactly(landed, layouts):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    for truth in layouts[1]:
        for check in truth["checks"]:
            answer = pipeline.ask(check["question"], user_of(truth), AS_OF)
            data = answer.as_json()["data"]
            got = data["rows"][0]["amount"] if "rows" in data else data["value"]
            assert abs(Decimal(str(got))) == Decimal(check["answer"]), (
                truth["file"],
                check["question"],
                answer.text,
            )


def test_the_same_transactions_from_a_pdf_and_an_export_land_once(
    layouts, embedder: LocalEmbedder, tmp_path: Path
):
    out, truths = layouts
    (truth,) = [t for t in truths if t["file"].startswith("nl_")]
    backend = EmbeddedBackend(Settings(data_dir=tmp_path))
    backend.prepare(embedder.dims, embedder.model_name)
    store = StatementStore(tmp_path / "statements")
    pdf_report = ingest_file(backend, out / truth["file"], "u", embedder, store)
    (info,) = backend.statements("u")
    export = tmp_path / "export.csv"
    lines = ["Date,Description,Amount,Account number"]
    lines += [
        f"{d},{desc.replace(',', ' ')},{amount},{info.account_no}"
        for d, amount, desc in truth["rows"]
    ]
    export.write_text("\n".join(lines) + "\n")
    csv_report = ingest_file(
        backend,
        export,
        "u",
        defaults=FileDefaults(
            currency=truth["currency"], account_no=info.account_no, account_name="x", bank_name="y"
        ),
    )
    assert pdf_report.indexed >= truth["transactions"]
    assert csv_report.indexed == 0 and csv_report.skipped == truth["transactions"], csv_report
    backend.close()


def _truth(layouts: tuple[Path, list[dict]], layout: str) -> dict:
    (truth,) = [t for t in layouts[1] if t["layout"] == layout]
    return truth


def test_an_answer_on_rows_of_a_statement_that_does_not_reconcile_says_so_in_one_line(
    landed, layouts
):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    off, reconciled = _truth(layouts, "nz_everyday"), _truth(layouts, "uk_current")
    gap = Decimal(off["reconciliation"]["gap"])
    (check,) = [c for c in off["checks"] if c["kind"] == "spend_at"]
    answer = pipeline.ask(check["question"], user_of(off), AS_OF)
    notes = [line for line in answer.text.splitlines() if "not reconciled" in line]
    assert len(notes) == 1, answer.text
    assert f"off by {money(gap, off['currency'])}" in notes[0]
    assert "Everyday Account" in notes[0] and "Feb 1, 2023 – Feb 28, 2023" in notes[0]
    german = pipeline.ask(
        f"Wie viel habe ich bei {check['merchant']} ausgegeben?", user_of(off), AS_OF
    )
    assert "ohne Abgleich mit den ausgewiesenen Salden" in german.text, german.text
    assert "Differenz 40,00\xa0NZ$" in german.text
    french = pipeline.ask(f"Combien ai-je dépensé chez {check['merchant']} ?", user_of(off), AS_OF)
    assert "non rapproché des soldes imprimés" in french.text, french.text
    spanish = pipeline.ask(f"¿Cuánto gasté en {check['merchant']}?", user_of(off), AS_OF)
    assert "no conciliado con los saldos impresos" in spanish.text, spanish.text
    (check,) = [c for c in reconciled["checks"] if c["kind"] == "spend_at"]
    answer = pipeline.ask(check["question"], user_of(reconciled), AS_OF)
    assert "reconciled" not in answer.text, answer.text


def test_citations_of_rows_read_by_ocr_say_so(landed, layouts):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    scanned = _truth(layouts, "scanned")
    (check,) = [c for c in scanned["checks"] if c["kind"] == "spend_at"]
    answer = pipeline.ask(check["question"], user_of(scanned), AS_OF)
    assert answer.citations[0].source.endswith("(some read by OCR from a scanned page)")
    assert abs(Decimal(str(answer.as_json()["data"]["value"]))) == Decimal(check["answer"])


def test_a_payee_whose_row_did_not_land_is_answered_from_the_statement_line(landed, layouts):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    truth = _truth(layouts, "nz_everyday")
    (unread,) = truth["unread"]
    day = date.fromisoformat(truth["period"][0]).replace(day=int(unread["date"].split()[0]))
    (payee,) = {text for d, _, text in truth["rows"] if d == day.isoformat()}
    answer = pipeline.ask(f"How much did I pay {payee.title()}?", user_of(truth), AS_OF)
    assert "couldn't find" not in answer.text
    assert f"{payee} {unread['amount']} [1]" in answer.text, answer.text
    assert f"(“{unread['amount']}”)" in answer.text  # named as not counted
    (citation,) = answer.citations
    assert citation.kind == "statement" and citation.page == unread["page"]
    assert unread["amount"] in (citation.passage or "")


def test_a_figure_no_statement_states_names_the_statements_searched(landed, layouts):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    truth = _truth(layouts, "uk_current")
    assert truth.get("credit_limit") is None
    answer = pipeline.ask("What is my credit limit?", user_of(truth), AS_OF)
    first = answer.text.splitlines()[0]
    assert first.startswith("No statement states your credit limit. I searched 1 statement: ")
    assert "Harbour & Crane Bank Current Account, Feb 12, 2022 – Mar 11, 2022" in first
    assert answer.citations and all(c.kind == "statement" and c.page for c in answer.citations)
    assert "Your account summary" not in answer.text  # a heading is never the answer


def test_a_figure_named_as_statements_print_it_is_the_stated_one(landed, layouts):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    truth = _truth(layouts, "credit_card")
    answer = pipeline.ask("What was my previous balance?", user_of(truth), AS_OF)
    (fact,) = answer.as_json()["data"]["facts"]
    assert abs(Decimal(str(fact["value"]))) == abs(Decimal(truth["opening_balance"]))
    source = answer.citations[0].source
    # Named by the file as it was imported, never the name the store keeps it under.
    assert Path(truth["file"]).name in source and "page 1" in source, source
    assert not re.search(r"[0-9a-f]{16,}", source), source


def test_what_the_person_types_over_a_preview_wins_and_the_rows_are_checked_against_it(
    layouts, embedder: LocalEmbedder, tmp_path: Path
):
    out, _ = layouts
    backend = EmbeddedBackend(Settings(data_dir=tmp_path))
    backend.prepare(embedder.dims, embedder.model_name)
    uk, nz = _truth(layouts, "uk_current"), _truth(layouts, "nz_everyday")
    read = preview_statement(backend, out / uk["file"], "u", FileDefaults())
    assert (read.bank_name, read.currency) == (uk["bank"], uk["currency"])
    assert [d.isoformat() for d in read.period] == uk["period"]
    assert (read.opening_balance, read.closing_balance) == (
        Decimal(uk["opening_balance"]),
        Decimal(uk["closing_balance"]),
    )
    assert read.row_count == uk["transactions"] and read.reconciliation.status == "reconciled"
    # An opening balance typed 10.00 short: the rows are checked against it, not the printed one.
    short = Decimal(uk["opening_balance"]) - 10
    typed = preview_statement(backend, out / uk["file"], "u", FileDefaults(opening_balance=short))
    assert typed.opening_balance == short
    assert typed.reconciliation.status == "off" and typed.reconciliation.gap == Decimal("10.00")
    # The closing balance a misprinted row hides, typed: the rows read meet it.
    gap = Decimal(nz["reconciliation"]["gap"])
    closing = Decimal(nz["closing_balance"]) + gap
    edited = FileDefaults(
        account_name="Joint everyday",
        period=(date(2023, 2, 1), date(2023, 3, 3)),
        closing_balance=closing,
    )
    typed = preview_statement(backend, out / nz["file"], "u", edited)
    assert typed.reconciliation.status == "reconciled", typed.reconciliation.describe()
    assert typed.account_name == "Joint everyday" and typed.period[1] == date(2023, 3, 3)
    store = StatementStore(tmp_path / "statements")
    ingest_file(backend, out / nz["file"], "u", embedder, store, edited)
    (info,) = backend.statements("u")
    assert info.account_name == "Joint everyday" and info.statement_to == date(2023, 3, 3)
    assert info.reconciliation is not None and info.reconciliation.status == "reconciled"
    backend.close()


def test_a_stated_figure_answers_only_what_names_it(landed, layouts):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    user = user_of(_truth(layouts, "uk_current"))
    # The statement states "Total money in"; these ask for sums of rows.
    for question in ("Total rent paid in 2022", "What have I paid in total?"):
        assert pipeline.ask(question, user, AS_OF).plan.intent is Intent.aggregate, question
    deposits = pipeline.ask("What were the total deposits?", user, AS_OF)
    assert deposits.plan.facts == ["money_in"]
    (fact,) = deposits.as_json()["data"]["facts"]
    assert Decimal(str(fact["value"])) == Decimal(_truth(layouts, "uk_current")["money_in"])


def test_statement_lines_answer_a_payee_only(landed, layouts):
    backend, _ = landed
    pipeline = ChatPipeline(backend, LocalEmbedder(), OfflineRouter)
    user = user_of(_truth(layouts, "nz_everyday"))
    (check,) = [c for c in _truth(layouts, "nz_everyday")["checks"] if c["kind"] == "spend_at"]
    off_payee = check["merchant"]
    for question in (
        "Transfer $500 to my savings",  # a request to act, refused
        "How much did I spend at Costco in Feb?",  # "Feb" is printed on every row: a month
        "How much did I spend at Costco in 2023?",
        f"What's the weather at {off_payee} today?",  # about the world, not the statements
    ):
        answer = pipeline.ask(question, user, AS_OF)
        assert answer.intent is Intent.clarify, (question, answer.text)
        assert not answer.citations, question
