"""Balances over time from every balance a file states and the rows between them, on both
backends: a running balance whatever order a day's rows come in, a closing balance carried back
over rows that state none, the gap where a stated balance and the rows disagree, and accounts
no file states any balance of, said so."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.ingest.landing import FileDefaults, ingest_file
from elastic.model.plan import IntentPlan
from elastic.model.records import Transaction
from elastic.model.results import BalanceResult
from elastic.query.balances import Stated, account_balance, end_of_day
from llm.embeddings import LocalEmbedder
from llm.executor import account_for, execute
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from tests.conftest import empty_backend

ENGINES = ["embedded", pytest.param("elasticsearch", marks=pytest.mark.elasticsearch)]
HEADER = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name"


def _row(day: str, amount: str, balance: str | None, n: int = 0) -> Transaction:
    return Transaction(
        transaction_id=f"t{n}",
        date=date.fromisoformat(day),
        description="ROW",
        amount=Decimal(amount),
        currency="USD",
        category="",
        merchant="",
        account_no="1",
        account_name="A",
        bank_name="B",
        balance=None if balance is None else Decimal(balance),
    )


def test_a_days_last_balance_whatever_order_its_rows_come_in() -> None:
    rows = [
        _row("2025-01-02", "-10.00", "90.00", 1),
        _row("2025-01-02", "-5.00", "85.00", 2),
        _row("2025-01-02", "+20.00", "105.00", 3),
    ]
    assert end_of_day(rows) == 10500
    assert end_of_day(rows[::-1]) == 10500
    assert end_of_day([rows[1], rows[2], rows[0]]) == 10500
    assert end_of_day([*rows[:2], _row("2025-01-02", "20.00", None)]) is None  # one unstated
    assert end_of_day([rows[0], _row("2025-01-02", "-5.00", "50.00")]) is None  # no chain


def test_balances_are_carried_back_and_forward_and_gaps_are_kept() -> None:
    rows = [
        _row("2025-01-02", "-10.00", None),
        _row("2025-01-05", "-20.00", None),
        _row("2025-01-07", "-30.00", None),
    ]
    closing = Stated(date(2025, 1, 5), 7000, "jan.ofx, LEDGERBAL", False)
    disagrees = Stated(date(2025, 1, 7), 3000, "statement.pdf, page 1", False)
    carried = account_balance(rows, [closing, disagrees], None, None)
    days = {d.day: d.cents for d in carried.daily}
    assert (carried.first, carried.last) == (date(2025, 1, 1), date(2025, 1, 7))
    assert days[date(2025, 1, 1)] == 10000  # 70.00 back over -20.00 and -10.00
    assert days[date(2025, 1, 4)] == 9000 and days[date(2025, 1, 6)] == 7000
    (gap,) = carried.gaps
    assert (gap.day, gap.stated, gap.computed) == (
        date(2025, 1, 7),
        Decimal("30.00"),
        Decimal("40.00"),
    )
    assert gap.difference == Decimal("-10.00") and gap.source == "statement.pdf, page 1"
    assert days[date(2025, 1, 7)] == 3000  # the stated balance is taken from there on
    asked = account_balance(rows, [closing], date(2025, 1, 3), date(2025, 1, 3))
    assert [(d.day, d.cents) for d in asked.daily] == [(date(2025, 1, 3), 9000)]
    assert account_balance(rows, [], None, None).daily == []  # nothing stated: unknown


OFX = """OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252
COMPRESSION:NONE
OLDFILEUID:NONE
NEWFILEUID:NONE

<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS>
<DTSERVER>20250310<LANGUAGE>ENG<FI><ORG>Birch Bank<FID>7</FI></SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>USD
<BANKACCTFROM><BANKID>1<ACCTID>778899001122<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20250301<DTEND>20250310
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20250301<TRNAMT>1000.00<FITID>b1<NAME>PAYROLL</STMTTRN>
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250303<TRNAMT>-250.00<FITID>b2<NAME>RENT</STMTTRN>
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250308<TRNAMT>-40.25<FITID>b3<NAME>GROCER</STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>2209.75<DTASOF>20250310</LEDGERBAL>
</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>
"""
# A running balance that skips a row: 400.00 after the 5th should be 450.00 after -50.00.
RUNNING = (
    HEADER + ",balance\n"
    "2025-03-01,COFFEE,-5.00,USD,Dining,Cafe,55550001,Joint,Birch Bank,495.00\n"
    "2025-03-02,BOOKS,-45.00,USD,Shopping,Books,55550001,Joint,Birch Bank,450.00\n"
    "2025-03-05,SHOES,-50.00,USD,Shopping,Shoes,55550001,Joint,Birch Bank,350.00\n"
)
NO_BALANCE = HEADER + "\n2025-03-04,TAXI,-12.00,USD,Transportation,Cab,99990002,Card,Oak Bank\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_balances_from_files_on_both_backends(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder
) -> None:
    files = {"birch.ofx": OFX, "joint.csv": RUNNING, "card.csv": NO_BALANCE}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with empty_backend(engine, request, tmp_path / "data", embedder) as backend:
        for name in files:
            report = ingest_file(backend, tmp_path / name, "u", defaults=FileDefaults())
            assert report.indexed and not report.problems, report.problems
        plan = IntentPlan(
            intent="aggregate", balance=True, date_from=date(2025, 3, 4), date_to=date(2025, 3, 4)
        )
        result = execute(backend, "u", plan)
        assert isinstance(result, BalanceResult)
        by_name = {a.account_name: a for a in result.accounts}
        checking = next(a for name, a in by_name.items() if name not in ("Joint", "Card"))
        # 2,209.75 stated on the 10th, carried back over -40.25 on the 8th: 2,250.00
        assert [(d.day, d.amount) for d in checking.daily] == [
            (date(2025, 3, 4), Decimal("2250.00"))
        ]
        assert not checking.gaps
        joint = by_name["Joint"]
        assert [d.amount for d in joint.daily] == [Decimal("450.00")]
        card = by_name["Card"]
        assert card.daily == [] and card.known_from is None
        # The gap of the running balance shows in March, with its line.
        march = plan.model_copy(
            update={"date_from": date(2025, 3, 1), "date_to": date(2025, 3, 31)}
        )
        (gap,) = (
            execute(backend, "u", march)
            .accounts[[a.account_name for a in result.accounts].index("Joint")]
            .gaps
        )
        assert (gap.day, gap.stated, gap.computed) == (
            date(2025, 3, 5),
            Decimal("350.00"),
            Decimal("400.00"),
        )
        assert "joint.csv" in gap.source
        basis = account_for(backend, "u", march, execute(backend, "u", march))
        assert basis is not None and (basis.gaps, basis.unknown) == (1, 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_balance_questions_are_answered_with_gaps_and_unknowns(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder
) -> None:
    for name, text in {"joint.csv": RUNNING, "card.csv": NO_BALANCE}.items():
        (tmp_path / name).write_text(text)
    with empty_backend(engine, request, tmp_path / "data", embedder) as backend:
        for name in ("joint.csv", "card.csv"):
            ingest_file(backend, tmp_path / name, "u", defaults=FileDefaults())
        pipeline = ChatPipeline(backend, embedder, OfflineRouter)
        answer = pipeline.ask("What was my lowest balance in March 2025?", "u", date(2025, 4, 1))
        assert isinstance(answer.result, BalanceResult), answer.plan
        text = answer.text
        assert (
            "Your lowest Joint ***0001 balance from Mar 1, 2025 to Mar 31, 2025 was **$350.00**"
            in text
        )
        assert "states **$350.00**, but the rows since the balance before give $400.00" in text
        assert "a gap of **-$50.00**" in text
        assert "No file states a balance of Card ***0002, so its balance is not known." in text
        data = answer.as_json()["data"]
        assert data["basis"] == {
            "kind": "balances",
            "counted": 4,
            "stated": 3,
            "gaps": 1,
            "unknown": 1,
        }
        joint = next(a for a in data["accounts"] if a["account_name"] == "Joint")
        assert joint["lowest"] == {"day": "2025-03-05", "value": 350.0}
        assert joint["gaps"][0]["difference"] == -50.0
        before = pipeline.ask("What was my balance on February 10, 2025?", "u", date(2025, 4, 1))
        assert before.intent.value == "clarify"  # before any data: said what is loaded


def test_days_run_one_by_one() -> None:
    rows = [_row("2025-01-01", "1.00", "1.00"), _row("2025-01-31", "1.00", "2.00")]
    carried = account_balance(rows, [], None, None)
    assert len(carried.daily) == 32 and carried.daily[-1].day - carried.daily[0].day == timedelta(
        31
    )
