"""Stored documents ↔ records, for both engines and the flows above them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from typing import Any

from elastic.model.records import Box, Reconciliation, StatementFact, Transaction
from elastic.model.results import StatementHit, StatementInfo, cents_to_amount


def transaction_from_source(src: dict[str, Any]) -> Transaction:
    balance = src.get("balance_cents")
    return Transaction(
        transaction_id=src["transaction_id"],
        date=date.fromisoformat(src["date"]),
        description=src["description"],
        amount=cents_to_amount(src["amount_cents"]),
        currency=src["currency"],
        category=src["category"],
        merchant=src["merchant"],
        account_no=src["account_no"],
        account_name=src["account_name"],
        bank_name=src["bank_name"],
        balance=None if balance is None else cents_to_amount(balance),
        source_file=src.get("source_file") or "",
        location=src.get("location") or "",
        raw_description=src.get("raw_description") or "",
        merchant_inferred=bool(src.get("merchant_inferred")),
        category_inferred=bool(src.get("category_inferred")),
        page=src.get("page"),
        box=box_from_source(src.get("box")),
        payment_kind=src.get("payment_kind") or "",
        reconciliation=src.get("reconciliation") or "",
    )


def box_from_source(value: object) -> Box | None:
    """A stored box: a list from Elasticsearch, JSON text from SQLite, or nothing."""
    if value is None:
        return None
    x0, top, x1, bottom = json.loads(value) if isinstance(value, str) else value
    return (float(x0), float(top), float(x1), float(bottom))


def fact_from_source(src: Mapping[str, Any]) -> StatementFact:
    cents, day = src.get("amount_cents"), src.get("day")
    return StatementFact(
        statement_id=src["statement_id"],
        name=src["name"],
        amount=None if cents is None else cents_to_amount(cents),
        currency=src["currency"],
        as_of=date.fromisoformat(src["as_of"]),
        account_no=src["account_no"],
        account_name=src["account_name"],
        bank_name=src["bank_name"],
        source_file=src["source_file"],
        location=src["location"],
        page=src.get("page"),
        box=box_from_source(src.get("box")),
        day=None if day is None else date.fromisoformat(day),
        file_name=src.get("file_name") or "",
    )


def _statement_fields(src: Mapping[str, Any]) -> dict[str, Any]:
    """What every chunk of a statement stores about the statement itself."""
    return {
        "statement_id": src["statement_id"],
        "bank_name": src["bank_name"],
        "account_name": src["account_name"],
        "account_no": src["account_no"],
        "statement_from": date.fromisoformat(src["statement_from"]),
        "statement_to": date.fromisoformat(src["statement_to"]),
        "source_file": src["source_file"],
        "file_name": src.get("file_name") or "",
    }


def hit_from_source(src: Mapping[str, Any], score: float) -> StatementHit:
    return StatementHit(
        page=int(src["page"]),
        chunk=int(src["chunk"]),
        score=score,
        text=src["text"],
        **_statement_fields(src),
    )


def statement_info(src: Mapping[str, Any], pages: int) -> StatementInfo:
    """One statement as the Sources page lists it, from any of its stored chunks."""
    reconciliation = Reconciliation.from_json(src.get("reconciliation"))
    return StatementInfo(pages=pages, reconciliation=reconciliation, **_statement_fields(src))
