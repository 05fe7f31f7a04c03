"""Synthetic data at scale: a transactions CSV in FinSync's own schema, and statement pages.

The accounts, merchants, descriptors, price ranges, bills and statement terms are those of the
sample data generator (``scripts/sample_data.py``); only the volume differs. Rows are written
month by month, so a million of them never sit in memory at once.
"""

from __future__ import annotations

import calendar
import csv
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Protocol

import numpy as np

from elastic.model.records import StatementChunk
from llm.embeddings import Embedder
from scripts.sample_data import (
    AIRLINES,
    ATMS,
    BIG_SHOPPING,
    CARD,
    CHECKING,
    COURSERA,
    CSV_COLUMNS,
    CURRENCY,
    DINING,
    ENTERTAINMENT,
    FINE_DINING,
    FUEL,
    GROCERS,
    HOTELS,
    PHARMACY,
    RIDES,
    SAVINGS,
    SHOPPING,
    TERMS,
    Account,
)

FIRST_MONTH = date(2021, 1, 1)
MONTHS = 60  # five years: 2021 to 2025
COLUMNS = CSV_COLUMNS[:-1]  # the schema without the optional running balance


@dataclass(frozen=True)
class Template:
    """One kind of row: who, where, what, and its amount range in cents (signed by ``sign``)."""

    description: str
    merchant: str
    category: str
    account: Account
    low: int
    high: int
    sign: int
    weight: float


class Merchant(Protocol):
    """A merchant of the sample data generator: its name, descriptor, category and the whole
    dollar range of its prices."""

    name: str
    description: str
    category: str
    low: int
    high: int


def _buy(merchants: Sequence[Merchant], account: Account, weight: float) -> list[Template]:
    """Purchases at the sample generator's merchants, sharing ``weight``."""
    share = weight / len(merchants)
    return [
        Template(m.description, m.name, m.category, account, m.low * 100, m.high * 100, -1, share)
        for m in merchants
    ]


def _fixed(
    description: str,
    merchant: str,
    category: str,
    account: Account,
    low: int,
    high: int,
    sign: int,
    weight: float,
) -> Template:
    """A row with whole-dollar bounds."""
    return Template(description, merchant, category, account, low * 100, high * 100, sign, weight)


# Weights are shares of the single (non-transfer) rows; a month's mix follows them.
SINGLE_ROWS: tuple[Template, ...] = (
    *_buy(GROCERS, CHECKING, 0.20),
    *_buy(FUEL, CHECKING, 0.07),
    *_buy(DINING, CARD, 0.25),
    *_buy(SHOPPING, CARD, 0.08),
    *_buy(ENTERTAINMENT, CARD, 0.02),
    *_buy((PHARMACY,), CARD, 0.03),
    *_buy((RIDES,), CARD, 0.07),
    *_buy((FINE_DINING,), CARD, 0.01),
    *_buy((BIG_SHOPPING,), CARD, 0.01),
    *_buy(AIRLINES, CARD, 0.01),
    *_buy(HOTELS, CARD, 0.01),
    *_buy((COURSERA,), CARD, 0.005),
    *(_fixed(d, m, "Cash", CHECKING, 40, 200, -1, 0.02 / len(ATMS)) for d, m, _ in ATMS),
    _fixed(
        "MAPLE STREET APARTMENTS RENT",
        "Maple Street Apartments",
        "Housing",
        CHECKING,
        1950,
        2025,
        -1,
        0.01,
    ),
    _fixed(
        "CITY POWER & LIGHT AUTOPAY", "City Power & Light", "Utilities", CHECKING, 55, 165, -1, 0.01
    ),
    _fixed("LUMEN FIBER INTERNET", "Lumen Fiber", "Utilities", CHECKING, 75, 75, -1, 0.01),
    _fixed("VERIZON WIRELESS PAYMENT", "Verizon", "Utilities", CHECKING, 86, 87, -1, 0.01),
    _fixed("NETFLIX.COM LOS GATOS CA", "Netflix", "Subscriptions", CHECKING, 15, 18, -1, 0.01),
    _fixed("SPOTIFY USA NEW YORK NY", "Spotify", "Subscriptions", CHECKING, 12, 12, -1, 0.005),
    _fixed("GEICO AUTO INSURANCE", "Geico", "Insurance", CHECKING, 142, 143, -1, 0.01),
    _fixed("IRON WORKS GYM MEMBERSHIP", "Iron Works Gym", "Health", CHECKING, 49, 49, -1, 0.01),
    _fixed("OVERDRAFT FEE", CHECKING.bank_name, "Fees", CHECKING, 35, 35, -1, 0.005),
    _fixed("MONTHLY SERVICE FEE", CHECKING.bank_name, "Fees", CHECKING, 12, 12, -1, 0.005),
    _fixed("FOREIGN TRANSACTION FEE", CARD.bank_name, "Fees", CARD, 1, 60, -1, 0.005),
    _fixed("ACME ROBOTICS PAYROLL", "Acme Robotics", "Income", CHECKING, 2650, 2780, 1, 0.04),
    _fixed("UPWORK ESCROW FREELANCE PAYMENT", "Upwork", "Income", CHECKING, 450, 1600, 1, 0.01),
    _fixed("INTEREST PAYMENT", SAVINGS.bank_name, "Interest", SAVINGS, 5, 60, 1, 0.01),
    _fixed("REFUND AMZN MKTP US SEATTLE WA", "Amazon", "Shopping", CARD, 12, 160, 1, 0.01),
)
# Money moved between the user's own accounts: two rows each, both ``Transfers``.
TRANSFER_SHARE = 0.04  # pairs per row written
TRANSFERS: tuple[tuple[Account, str, Account, str, int, int], ...] = (
    (
        CHECKING,
        "AUTOMATIC TRANSFER TO SAVINGS",
        SAVINGS,
        "AUTOMATIC TRANSFER FROM CHECKING",
        400,
        500,
    ),
    (
        CHECKING,
        "PAYMENT TO HARBOR NATIONAL PLATINUM CARD",
        CARD,
        "PAYMENT RECEIVED - THANK YOU",
        300,
        4000,
    ),
    (SAVINGS, "ONLINE TRANSFER TO CHECKING", CHECKING, "ONLINE TRANSFER FROM SAVINGS", 600, 2000),
)


def _month(index: int) -> tuple[date, int]:
    """The first day of month ``index`` after ``FIRST_MONTH`` and its number of days."""
    year, month = divmod(FIRST_MONTH.month - 1 + index, 12)
    first = date(FIRST_MONTH.year + year, month + 1, 1)
    return first, calendar.monthrange(first.year, first.month)[1]


def _month_rows(rng: np.random.Generator, first: date, days: int, count: int) -> list[tuple]:
    """``count`` rows of one month as (day, account_no, description, cents, template) tuples."""
    pairs = int(count * TRANSFER_SHARE)
    singles = count - 2 * pairs
    weights = np.array([t.weight for t in SINGLE_ROWS])
    picks = rng.choice(len(SINGLE_ROWS), singles, p=weights / weights.sum())
    offsets = rng.integers(0, days, singles)
    fractions = rng.random(singles)
    rows = []
    for pick, offset, fraction in zip(picks, offsets, fractions, strict=True):
        t = SINGLE_ROWS[pick]
        cents = t.sign * int(t.low + fraction * (t.high - t.low))
        rows.append(
            (
                first + timedelta(days=int(offset)),
                t.description,
                t.merchant,
                t.category,
                t.account,
                cents,
            )
        )
    for kind, offset in zip(
        rng.integers(0, len(TRANSFERS), pairs), rng.integers(0, days, pairs), strict=True
    ):
        source, out_text, target, in_text, low, high = TRANSFERS[kind]
        cents = int(rng.integers(low, high + 1)) * 100
        day = first + timedelta(days=int(offset))
        rows.append((day, out_text, source.bank_name, "Transfers", source, -cents))
        rows.append((day, in_text, target.bank_name, "Transfers", target, cents))
    rows.sort(key=lambda r: (r[0], r[4].account_no))
    return rows


def _csv_rows(count: int, seed: int) -> Iterator[tuple[str, ...]]:
    """The CSV's data rows, oldest first, spread evenly over the five years."""
    rng = np.random.default_rng(seed)
    serial = 0
    for index in range(MONTHS):
        first, days = _month(index)
        share = count * (index + 1) // MONTHS - count * index // MONTHS
        for day, description, merchant, category, account, cents in _month_rows(
            rng, first, days, share
        ):
            serial += 1
            yield (
                f"b-{serial:08d}",
                day.isoformat(),
                description,
                f"{cents / 100:.2f}",
                CURRENCY,
                category,
                merchant,
                account.account_no,
                account.account_name,
                account.bank_name,
            )


def write_transactions_csv(path: Path, count: int, seed: int = 11) -> int:
    """Write ``count`` transactions to ``path`` as a stream; the number of rows written."""
    written = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in _csv_rows(count, seed):
            writer.writerow(row)
            written += 1
    return written


PAGES_PER_STATEMENT = 4
ACCOUNTS = (CHECKING, SAVINGS, CARD)


def _page_text(account: Account, first: date, page: int, rng: np.random.Generator) -> str:
    """Page 1 a summary, pages 2-3 transaction lines, page 4 the account's terms and fees."""
    header = f"{account.bank_name} {account.account_name} ****{account.account_no[-4:]}"
    period = f"Statement period {first:%B %d, %Y} to {first + timedelta(days=29):%B %d, %Y}"
    if page == 1:
        opening, moved = rng.integers(100_000, 900_000), rng.integers(-200_000, 200_000)
        return (
            f"{header}\n{period}\nAccount summary\nOpening balance ${opening / 100:,.2f}\n"
            f"Closing balance ${(opening + moved) / 100:,.2f}"
        )
    if page == PAGES_PER_STATEMENT:
        return f"{header}\n{period}\nTerms and fees\n" + "\n".join(TERMS[account.kind])
    lines = []
    for pick in rng.integers(0, len(SINGLE_ROWS), 30):
        t = SINGLE_ROWS[pick]
        if t.account is account:
            day = first + timedelta(days=int(rng.integers(0, 28)))
            lines.append(f"{day:%m/%d} {t.description} {t.sign * t.low / 100:,.2f}")
    return f"{header}\n{period}\nTransactions\n" + "\n".join(lines)


def statement_pages(
    count: int, embedder: Embedder, seed: int = 12
) -> tuple[list[StatementChunk], np.ndarray]:
    """``count`` pages of four-page statements over the five years, with vectors.

    Embedding every page would take minutes; each page's vector is its kind's (summary,
    transactions or terms, per account) real embedding plus a little noise, so the vector
    half of hybrid search still finds the right kind of page.
    """
    rng = np.random.default_rng(seed)
    kinds = [(a, p) for a in ACCOUNTS for p in range(1, PAGES_PER_STATEMENT + 1)]
    bases = embedder.embed([_page_text(a, FIRST_MONTH, p, rng) for a, p in kinds])
    chunks, vectors = [], np.empty((count, embedder.dims), dtype=np.float32)
    for i in range(count):
        statement, page = divmod(i, PAGES_PER_STATEMENT)
        account = ACCOUNTS[statement % len(ACCOUNTS)]
        first, days = _month(statement // len(ACCOUNTS) % MONTHS)
        text = _page_text(account, first, page + 1, rng)
        noisy = bases[kinds.index((account, page + 1))] + rng.normal(0, 0.02, embedder.dims)
        vectors[i] = noisy / np.linalg.norm(noisy)
        chunks.append(
            StatementChunk(
                statement_id=f"bench-st-{statement:06d}",
                account_no=account.account_no,
                account_name=account.account_name,
                bank_name=account.bank_name,
                statement_from=first,
                statement_to=first + timedelta(days=days - 1),
                page=page + 1,
                chunk=0,
                text=text,
                summary_text=text,
                source_file=f"bench/statement-{statement:06d}.pdf",
            )
        )
    return chunks, vectors
