"""Rows stored before payment kinds were read have none; importing their file again gives them
the kind the file states, on both engines, and leaves a kind a row already has alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from elastic.backend import SearchBackend
from elastic.ingest import Importer, landing
from elastic.model.plan import Direction, Intent, IntentPlan, PaymentKind
from elastic.model.records import Transaction
from llm.embeddings import LocalEmbedder
from tests.conftest import empty_backend

USER = "kinds-later"
# Only the type column says how each payment was made: the descriptors name none.
EXPORT = """Date,Type,Description,Amount,Balance
2025-03-01,ATM,HIGH STREET 12,-60.00,940.00
2025-03-02,Direct Debit,CITY POWER LTD,-45.10,894.90
2025-03-03,Card Payment,CORNER SHOP,-12.40,882.50
2025-03-04,ATM,STATION ROAD,-40.00,842.50
2025-03-05,Bank Transfer,J SMITH,250.00,1092.50
"""


def kinds_by_description(backend: SearchBackend) -> dict[str, str]:
    plan = IntentPlan(intent=Intent.listing, direction=Direction.any, limit=100)
    rows = backend.listing(USER, plan).rows
    stored = backend.stored_transactions(USER, [r.transaction_id for r in rows])
    return {tx.description: tx.payment_kind for tx in stored.values()}


def atm_total(backend: SearchBackend) -> tuple[str, int]:
    plan = IntentPlan(
        intent=Intent.aggregate, direction=Direction.out, payment_kinds=[PaymentKind.atm]
    )
    found = backend.aggregate(USER, plan)
    return str(found.value), found.count


@pytest.mark.parametrize("kind", ["embedded", "elasticsearch"])
def test_importing_a_file_again_gives_its_stored_rows_their_payment_kinds(
    kind: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    export = tmp_path / "current.csv"
    export.write_text(EXPORT, encoding="utf-8")
    read_kind = landing._Cleaner.transaction

    def as_stored_before_kinds(cleaner: landing._Cleaner, row: object) -> Transaction:
        tx = read_kind(cleaner, row)  # type: ignore[arg-type]
        # Rows stored before payment kinds were read have none; one was given a kind since.
        tx.payment_kind = "transfer" if tx.description == "CORNER SHOP" else ""
        return tx

    with empty_backend(kind, request, tmp_path / "data", embedder) as backend:
        importer = Importer(backend, USER)
        with monkeypatch.context() as patch:
            patch.setattr(landing._Cleaner, "transaction", as_stored_before_kinds)
            first = importer.land(export)
        assert (first.indexed, first.problems) == (5, [])
        assert atm_total(backend) == ("0.00", 0)  # nothing says these were ATM withdrawals

        again = importer.land(export)
        assert (again.indexed, again.skipped, again.problems) == (0, 5, [])
        assert "4 row(s) stored before now say how the money moved (payment kind)" in again.notes
        assert kinds_by_description(backend) == {
            "HIGH STREET 12": "atm",
            "CITY POWER LTD": "direct_debit",
            "CORNER SHOP": "transfer",  # a kind it had is kept
            "STATION ROAD": "atm",
            "J SMITH": "transfer",
        }
        assert atm_total(backend) == ("100.00", 2)

        third = importer.land(export)  # every row has its kind: nothing more to give
        assert (third.skipped, third.notes) == (5, again.notes[:-1])
