"""Exports whose accounts or signs only their layout tells, landed through the importer and
asked about through the pipeline, on both engines: a file of two accounts' sections, each under
its own header, and a savings export whose unsigned amounts only its balance shows went out."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.backend import SearchBackend
from elastic.ingest import Importer
from elastic.model.plan import Direction, Intent, IntentPlan
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from tests.conftest import empty_backend
from tests.test_bank_csv import TWO_ACCOUNTS

USER = "sections"
AS_OF = date(2024, 12, 31)
# Every amount unsigned; the balance steps down by each: all of it went out.
SAVINGS = (
    "Buchungstag;Verwendungszweck;Betrag;Saldo\n"
    "02.01.2024;Miete Januar;850,00;4.150,00\n"
    "15.01.2024;Stadtwerke Strom;64,20;4.085,80\n"
    "31.01.2024;Versicherung;120,00;3.965,80\n"
)


def stored_accounts(backend: SearchBackend) -> dict[str, tuple[str, str]]:
    plan = IntentPlan(intent=Intent.listing, direction=Direction.any, limit=100)
    ids = [r.transaction_id for r in backend.listing(USER, plan).rows]
    return {
        tx.description: (tx.account_no, tx.account_name)
        for tx in backend.stored_transactions(USER, ids).values()
    }


def balances(backend: SearchBackend) -> dict[tuple[str, str], Decimal]:
    plan = IntentPlan(
        intent=Intent.text_qa, text="balance", facts=["opening_balance", "closing_balance"]
    )
    return {(f.account_name, f.name): f.amount for f in backend.facts(USER, plan)}


@pytest.mark.parametrize("kind", ["embedded", "elasticsearch"])
def test_sections_and_balance_signs_land_and_answer(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, embedder: LocalEmbedder
) -> None:
    accounts = tmp_path / "umsaetze.csv"
    accounts.write_text(TWO_ACCOUNTS, encoding="utf-8")
    savings = tmp_path / "sparkonto.csv"
    savings.write_text(SAVINGS, encoding="utf-8")
    with empty_backend(kind, request, tmp_path / "data", embedder) as backend:
        importer = Importer(backend, USER, currency="EUR")
        landed = importer.land(accounts)
        assert (landed.indexed, landed.problems) == (4, [])
        assert stored_accounts(backend) == {
            "Miete Januar": ("DE11 1111 1111 1111 1111 11", "Girokonto"),
            "Gehalt": ("DE11 1111 1111 1111 1111 11", "Girokonto"),
            "Zinsen": ("DE22 2222 2222 2222 2222 22", "Tagesgeld"),
            "Übertrag": ("DE22 2222 2222 2222 2222 22", "Tagesgeld"),
        }
        # Each account's running balance gives its own opening and closing balance.
        assert balances(backend) == {
            ("Girokonto", "opening_balance"): Decimal("2000.00"),
            ("Girokonto", "closing_balance"): Decimal("3150.00"),
            ("Tagesgeld", "opening_balance"): Decimal("5000.00"),
            ("Tagesgeld", "closing_balance"): Decimal("4501.20"),
        }

        report = importer.land(savings)
        assert (report.indexed, report.problems) == (3, [])
        assert any("the balance steps down by each positive amount" in n for n in report.notes)
        pipeline = ChatPipeline(backend, embedder, OfflineRouter)
        answer = pipeline.ask("How much did I spend at Stadtwerke Strom?", USER, AS_OF)
        assert answer.data()["value"] == 64.2, answer.text
