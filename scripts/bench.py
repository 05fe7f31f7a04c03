"""Latency per intent on the embedded backend at 100,000 and 1,000,000 transactions.

Synthetic but realistic data (three accounts, the sample merchants and categories, five years)
plus 10,000 statement pages with unit vectors; prints p50 / p95 per intent as a Markdown table.
Run with ``make bench`` (or ``python -m scripts.bench --sizes 100000``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import numpy as np

from elastic.embedded_backend import EmbeddedBackend
from elastic.records import StatementChunk, Transaction
from llm.intent_plan import GroupBy, Intent, IntentPlan, Interval, SortOrder
from settings import Settings

USER = "bench"
DIMS = 384
ACCOUNTS = [
    ("Everyday Checking", "4402718831", "Cedar Valley Bank"),
    ("High-Yield Savings", "4402719045", "Cedar Valley Bank"),
    ("Platinum Card", "5412750093614321", "Harbor National Bank"),
]
MERCHANTS = {
    "Groceries": ["Whole Foods Market", "Trader Joe's", "Safeway"],
    "Dining": ["Chipotle", "Starbucks", "The Capital Grille"],
    "Travel": ["Delta Air Lines", "United Airlines", "Marriott", "Hilton"],
    "Transportation": ["Uber", "Shell", "Chevron"],
    "Shopping": ["Amazon", "Target", "Best Buy"],
    "Utilities": ["City Power & Light", "Lumen Fiber", "Verizon"],
    "Entertainment": ["AMC Theatres", "Ticketmaster"],
    "Health": ["CVS Pharmacy", "Iron Works Gym"],
    "Fees": ["Cedar Valley Bank"],
    "Transfers": ["Cedar Valley Bank"],
    "Income": ["Acme Robotics"],
}
PAGE_TEXT = (
    "Terms and Fees\nOverdraft fee: $35.00 per item that overdraws the account.\n"
    "Monthly service fee: $12.00, waived when the daily balance stays at or above $1,500.00.\n"
    "{n} ATM WITHDRAWAL CARDTRONICS SAN FRANCISCO CA Cash -40.00"
)


def synthetic_transactions(count: int, seed: int = 11) -> list[Transaction]:
    rng = np.random.default_rng(seed)
    categories = list(MERCHANTS)
    start = date(2021, 1, 1)
    days = rng.integers(0, 5 * 365, count)
    cat_idx = rng.integers(0, len(categories), count)
    acct_idx = rng.integers(0, len(ACCOUNTS), count)
    cents = rng.integers(100, 250_000, count)
    rows = []
    for i in range(count):
        category = categories[cat_idx[i]]
        merchants = MERCHANTS[category]
        merchant = merchants[i % len(merchants)]
        name, number, bank = ACCOUNTS[acct_idx[i]]
        sign = 1 if category == "Income" else -1
        rows.append(
            Transaction(
                transaction_id=f"b-{i:08d}",
                date=start + timedelta(days=int(days[i])),
                description=f"{merchant.upper()} #{i % 997}",
                amount=Decimal(sign * int(cents[i])) / 100,
                currency="USD",
                category=category,
                merchant=merchant,
                account_no=number,
                account_name=name,
                bank_name=bank,
            )
        )
    return rows


def synthetic_pages(count: int, seed: int = 12) -> tuple[list[StatementChunk], np.ndarray]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(count, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = []
    for i in range(count):
        name, number, bank = ACCOUNTS[i % 3]
        month = date(2021, 1, 1) + timedelta(days=30 * (i // 30))
        text = PAGE_TEXT.format(n=i)
        chunks.append(
            StatementChunk(
                statement_id=f"st-{i // 4:06d}",
                account_no=number,
                account_name=name,
                bank_name=bank,
                statement_from=month,
                statement_to=month + timedelta(days=29),
                page=i % 4 + 1,
                chunk=0,
                text=text,
                summary_text=f"{bank} {name} statement page {i % 4 + 1}.\n{text}",
                source_file=f"bench/{i}.pdf",
            )
        )
    return chunks, vectors


PLANS: dict[str, list[IntentPlan]] = {
    "aggregate": [
        IntentPlan(intent=Intent.aggregate, categories=["Travel"]),
        IntentPlan(
            intent=Intent.aggregate,
            date_from=date(2024, 1, 1),
            date_to=date(2024, 12, 31),
            group_by=GroupBy.category,
        ),
        IntentPlan(intent=Intent.aggregate, merchants=["Starbucks"], accounts=["Platinum Card"]),
    ],
    "trend": [
        IntentPlan(intent=Intent.trend, categories=["Groceries"], interval=Interval.month),
        IntentPlan(
            intent=Intent.trend,
            date_from=date(2025, 1, 1),
            date_to=date(2025, 6, 30),
            interval=Interval.week,
            split_by_category=True,
        ),
    ],
    "listing": [
        IntentPlan(intent=Intent.listing, sort=SortOrder.largest, limit=5),
        IntentPlan(intent=Intent.listing, categories=["Dining"], limit=20),
        IntentPlan(
            intent=Intent.listing,
            date_from=date(2025, 3, 1),
            date_to=date(2025, 3, 31),
            sort=SortOrder.largest,
            limit=5,
        ),
    ],
    "text_qa": [
        IntentPlan(intent=Intent.text_qa, text="What is the overdraft fee?"),
        IntentPlan(intent=Intent.text_qa, text="monthly service fee", accounts=["Platinum Card"]),
    ],
}


def _timed(call: Callable[[], object], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def measure(backend: EmbeddedBackend, runs: int) -> dict[str, tuple[float, float]]:
    query_vector = np.ones(DIMS, dtype=np.float32) / np.sqrt(DIMS)
    calls = {
        "aggregate": lambda p: backend.aggregate(USER, p),
        "trend": lambda p: backend.trend(USER, p),
        "listing": lambda p: backend.listing(USER, p),
        "text_qa": lambda p: backend.text_qa(USER, p, query_vector),
    }
    figures = {}
    for intent, plans in PLANS.items():
        call = calls[intent]
        samples = [ms for plan in plans for ms in _timed(lambda p=plan, c=call: c(p), runs)]
        samples.sort()
        p95 = samples[min(len(samples) - 1, int(0.95 * len(samples)))]
        figures[intent] = (statistics.median(samples), p95)
    return figures


def run(size: int, pages: int, runs: int) -> dict[str, tuple[float, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        backend = EmbeddedBackend(Settings(data_dir=Path(tmp)))
        backend.prepare(DIMS, "bench-random-unit-vectors")
        started = time.perf_counter()
        rows = synthetic_transactions(size)
        for start in range(0, len(rows), 50_000):
            backend.add_transactions(USER, rows[start : start + 50_000])
        chunks, vectors = synthetic_pages(pages)
        backend.add_statement_chunks(USER, chunks, vectors, "bench-random-unit-vectors")
        elapsed = time.perf_counter() - started
        print(f"loaded {size:,} transactions and {pages:,} pages in {elapsed:.1f} s")
        backend.text_qa(USER, PLANS["text_qa"][0], vectors[0])  # warm the vector cache
        try:
            return measure(backend, runs)
        finally:
            backend.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    results = {size: run(size, args.pages, args.runs) for size in args.sizes}
    print("\n| intent | " + " | ".join(f"{s:,} tx p50 / p95 (ms)" for s in args.sizes) + " |")
    print("|---|" + "---:|" * len(args.sizes))
    for intent in PLANS:
        cells = [f"{results[s][intent][0]:.1f} / {results[s][intent][1]:.1f}" for s in args.sizes]
        print(f"| {intent} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
