"""Ids a file gives its rows never cost a row: another account's rows may use the same ids,
and an id stored with other content is reported on its line. On both backends."""

from __future__ import annotations

from pathlib import Path

import pytest

from elastic.ingest.landing import FileDefaults, ingest_file
from elastic.model.plan import Direction, Intent, IntentPlan, SortOrder
from llm.embeddings import LocalEmbedder
from tests.conftest import empty_backend
from tests.reliability import record

pytestmark = pytest.mark.reliability

HEADER = (
    "transaction_id,date,description,amount,currency,category,merchant,"
    "account_no,account_name,bank_name"
)


def _export(path: Path, account_no: str, name: str, rows: list[tuple[str, str, str]]) -> Path:
    lines = [HEADER]
    for tx_id, day, amount in rows:
        lines.append(
            f"{tx_id},{day},CARD {name} {tx_id},{amount},USD,Dining,Cafe {tx_id},"
            f"{account_no},{name},Test Bank"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("engine", ["embedded", "elasticsearch"])
def test_two_accounts_numbering_rows_alike_both_land_once(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder
) -> None:
    checking = _export(
        tmp_path / "checking.csv",
        "500011112222",
        "Checking",
        [
            ("1", "2024-03-01", "-10.00"),
            ("2", "2024-03-02", "-20.00"),
            ("3", "2024-03-03", "-30.00"),
        ],
    )
    card = _export(
        tmp_path / "card.csv",
        "400099998888",
        "Card",
        [("1", "2024-03-05", "-1.00"), ("2", "2024-03-06", "-2.00"), ("3", "2024-03-07", "-3.00")],
    )
    with empty_backend(engine, request, tmp_path / "data", embedder) as backend:
        first = ingest_file(backend, checking, "u", defaults=FileDefaults())
        second = ingest_file(backend, card, "u", defaults=FileDefaults())
        assert (first.indexed, second.indexed, second.skipped) == (3, 3, 0), second.problems
        assert not second.problems
        assert any("another account's rows" in note for note in second.assumed)

        again = [ingest_file(backend, f, "u", defaults=FileDefaults()) for f in (checking, card)]
        assert [(r.indexed, r.skipped, r.problems) for r in again] == [(0, 3, []), (0, 3, [])]

        spend = IntentPlan(intent=Intent.aggregate, direction=Direction.out)
        assert backend.aggregate("u", spend).value == pytest.approx(66.0)
        listing = IntentPlan(intent=Intent.listing, sort=SortOrder.oldest, limit=10)
        ids = [r.transaction_id for r in backend.listing("u", listing).rows]
        assert ids[:3] == ["1", "2", "3"]
        assert [i.split("@")[0] for i in ids[3:]] == ["1", "2", "3"] and len(set(ids)) == 6
        record(
            "rows",
            "two accounts' FinSync CSVs that both number their rows 1, 2, 3",
            "every row landed once; the second account's ids scoped by its account",
            backend=engine,
            rows_in=6,
            rows_stored=6,
            rows_reported=0,
        )


@pytest.mark.parametrize("engine", ["embedded", "elasticsearch"])
def test_an_id_stored_with_other_content_is_reported_on_its_line(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder
) -> None:
    rows = [("a-1", "2024-04-01", "-5.00"), ("a-2", "2024-04-02", "-6.00")]
    earlier = _export(tmp_path / "april.csv", "500011112222", "Checking", rows)
    changed = [
        ("a-1", "2024-04-01", "-5.00"),
        ("a-2", "2024-04-02", "-60.00"),
        ("a-3", "2024-04-03", "-7.00"),
    ]
    later = _export(tmp_path / "april-again.csv", "500011112222", "Checking", changed)
    with empty_backend(engine, request, tmp_path / "data", embedder) as backend:
        ingest_file(backend, earlier, "u", defaults=FileDefaults())
        report = ingest_file(backend, later, "u", defaults=FileDefaults())
        assert (report.indexed, report.skipped) == (1, 1)
        (problem,) = report.problems
        assert problem.location == "line 3" and "'a-2' is already stored" in str(problem)
        spend = IntentPlan(intent=Intent.aggregate, direction=Direction.out)
        assert backend.aggregate("u", spend).value == pytest.approx(18.0)  # the earlier 6.00 kept
        record(
            "rows",
            "a later file gives a stored transaction_id other content",
            "the stored row kept, the new one reported on its line (exit 1)",
            backend=engine,
            rows_in=3,
            rows_stored=2,
            rows_reported=1,
        )
