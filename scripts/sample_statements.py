"""Sample statement PDFs in the layouts real banks print, with the truth they must answer to.

Seven statements, each one account over about a month, at fictional banks for fictional people:

1. ``uk_current``: a UK current account. "Your account summary", a ``Date | Payment type and
   details | Paid out | Paid in | Balance`` table with dates like ``12 Feb 22`` printed once per
   day, the balance at the end of each day, balances carried and brought forward between pages.
2. ``us_checking``: a US checking account. CHECKING SUMMARY, two pages of transactions grouped
   in sections with MM/DD dates and descriptions that wrap, a daily ending balance, then a page
   with a blank "balancing your checkbook" worksheet.
3. ``de_kontoauszug``: a German Kontoauszug. ``Buchungstag | Wert | Verwendungszweck | Soll |
   Haben``, multi-line Verwendungszweck, ``1.234,56``, EUR.
4. ``credit_card``: a Singapore credit card. Summary on the first page, one Amount column where
   payments and credits show ``CR``, S$.
5. ``eu_numbers``: an English statement from a Dutch bank. Beginsaldo and Eindsaldo, debit and
   credit columns, ``1.234,56``.
6. ``scanned``: the next month of the UK account as page images only, with no text layer.
7. ``nz_everyday``: a New Zealand everyday account whose one Amount column prints no signs, no
   sections and no balances: only the money in and out of its summary tell which way each row
   goes. Its summary prints labels over their values, one label over two lines; dates have no
   year and stand only on a day's first row; the bank printed 29 February in a year without one;
   and one row's amount is misprinted ("4O.00"), a row the extractor cannot read, so the rows
   fall short of the closing balance by that amount.

``truth.json`` is computed from the ledger each PDF was written from: one object per file with
its balances and totals, 3-5 ``checks`` (questions a user would ask, with their answers),
``reconciliation`` (``status`` and, when off, the ``gap``), ``unread`` (the rows that cannot be
read, with their page) and ``rows``, every transaction as ``[date, signed amount, description]``
in statement order (a date the month lacks is the day it is kept at).
Amounts are negative for money out; a description is its column's printed lines joined by single
spaces. A card's balances are negative for what the holder owes, as FinSync stores them.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from pathlib import Path

import pypdfium2 as pdfium
from fpdf import FPDF
from fpdf.enums import MethodReturnValue
from PIL import Image

__all__ = ["UK_BALANCE", "generate_statements"]

PDF_TIMESTAMP = datetime(2025, 7, 1, 9, 0, tzinfo=UTC)
CREATOR = "FinSync Chat sample statements"
CENT = Decimal("0.01")
ZERO = Decimal("0.00")
# English month names, independent of the process locale.
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
SCAN_DPI = 200
MARGIN = 15.0


class Kind(StrEnum):
    DEPOSIT = "deposit"  # pay, transfers in, a card's payments received
    PURCHASE = "purchase"  # spending at a merchant
    BILL = "bill"  # rent, direct debits, payments to others, cash
    TRANSFER = "transfer"  # to the holder's own account or card: not spend
    FEE = "fee"
    INTEREST = "interest"
    REFUND = "refund"


@dataclass(frozen=True)
class Entry:
    day: date  # the booking date
    amount: Decimal  # signed: negative is money out
    lines: tuple[str, ...]  # the description as printed, one item per line
    kind: Kind
    merchant: str = ""  # the payee as a person names it
    code: str = ""  # a UK payment type (VIS, DD, SO, CR ...) printed before the details
    value_day: date | None = None  # a German booking's Wert, when it differs
    printed_day: str = ""  # the date as printed when it is no real day ("29 Feb" of 2023)
    misprinted: str = ""  # the amount as misprinted when it cannot be read ("4O.00")

    @property
    def description(self) -> str:
        return " ".join(part for part in (self.code, *self.lines) if part)


@dataclass(frozen=True)
class CardTerms:
    credit_limit: Decimal
    apr: Decimal  # percent a year
    due: date
    minimum_payment: Decimal


@dataclass(frozen=True)
class Statement:
    layout: str
    file: str
    bank: str
    account_no: str
    currency: str
    start: date
    end: date
    opening: Decimal
    entries: tuple[Entry, ...]  # in statement order
    regular: str  # the merchant shopped at three or four times, for the spend check
    pages: int
    card: CardTerms | None = None

    @property
    def closing(self) -> Decimal:
        return self.opening + sum((e.amount for e in self.entries), ZERO)

    @property
    def money_in(self) -> Decimal:
        return sum((e.amount for e in self.entries if e.amount > 0), ZERO)

    @property
    def money_out(self) -> Decimal:
        return -sum((e.amount for e in self.entries if e.amount < 0), ZERO)

    def total(self, *kinds: Kind) -> Decimal:
        """The size of the entries of these kinds, as the statement prints it (unsigned)."""
        return abs(sum((e.amount for e in self.entries if e.kind in kinds), ZERO))


@dataclass(frozen=True)
class Shop:
    merchant: str  # as a person names it
    descriptors: tuple[str, ...]  # what the bank prints; one is picked per purchase
    low: int  # whole currency units
    high: int


def generate_statements(out: Path, seed: int = 7) -> list[Path]:
    """Write the seven statement PDFs and ``truth.json`` under ``out``; the same seed, the same
    bytes."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    uk, scanned = _uk_statements(rng)
    statements = (
        uk,
        _us_statement(rng),
        _de_statement(rng),
        _card_statement(rng),
        _eu_statement(rng),
        scanned,
    )
    skew = rng.uniform(-0.6, 0.6)  # degrees the scanner turned the pages
    writers: dict[str, Callable[[Statement], bytes]] = {
        "uk_current": _write_uk,
        "us_checking": _write_us,
        "de_kontoauszug": _write_de,
        "credit_card": _write_card,
        "eu_numbers": _write_eu,
        "scanned": lambda s: _write_scan(_write_uk(s), skew),
    }
    # Drawn after the others, so their bytes stay what they were.
    statements = (*statements, _nz_statement(rng))
    writers["nz_everyday"] = _write_nz
    paths = []
    for statement in statements:
        path = out / statement.file
        path.write_bytes(writers[statement.layout](statement))
        paths.append(path)
    truths = [_truth(statement) for statement in statements]
    (out / "truth.json").write_text(json.dumps(truths, indent=2, ensure_ascii=False) + "\n")
    return paths


# --- ledgers ----------------------------------------------------------------------------------


def _amount(rng: random.Random, low: int, high: int) -> Decimal:
    """A random amount between two whole-unit bounds, drawn in cents."""
    return Decimal(rng.randint(low * 100, high * 100)).scaleb(-2)


def _cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _day(rng: random.Random, start: date, end: date) -> date:
    return start + timedelta(days=rng.randint(0, (end - start).days))


def _on(start: date, end: date, day_of_month: int) -> date:
    """The date in ``start..end`` that falls on ``day_of_month``, moved back off a weekend."""
    day = start.replace(day=day_of_month)
    if day < start:
        day = end.replace(day=day_of_month)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return max(day, start)


def _visits(rng: random.Random, shops: Sequence[Shop], count: int) -> list[Shop]:
    """``count`` purchases: the first shop, the regular, three or four times; others at random."""
    regular = rng.randint(3, 4)
    return [shops[0]] * regular + [rng.choice(shops[1:]) for _ in range(count - regular)]


def _by_day(entries: Iterable[Entry]) -> tuple[Entry, ...]:
    return tuple(sorted(entries, key=lambda e: e.day))


def _cushion(rng: random.Random, entries: Iterable[Entry]) -> Decimal:
    """An opening balance that keeps every running balance a few hundred above zero."""
    balance = lowest = ZERO
    for entry in entries:
        balance += entry.amount
        lowest = min(lowest, balance)
    return _amount(rng, 250, 1400) - lowest


def _digits(rng: random.Random, count: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(count))


def _iban(country: str, bban: str) -> str:
    """An IBAN with a valid ISO 13616 check number."""
    number = int("".join(str(int(ch, 36)) for ch in bban + country + "00"))
    return f"{country}{98 - number % 97:02d}{bban}"


def _grouped(iban: str) -> str:
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))


UK_BANK = "Harbour & Crane Bank"
UK_HOLDER = "MS IMOGEN THISTLEWOOD"
UK_SORT_CODE = "20-44-18"
UK_ACCOUNT_NO = "71934528"
UK_SHOPS = (
    Shop("Tesco", ("TESCO STORES 2231 LONDON", "TESCO EXPRESS 4410 LONDON"), 4, 68),
    Shop("Sainsbury's", ("SAINSBURYS S/MKT 0712 LONDON",), 9, 74),
    Shop("Pret A Manger", ("PRET A MANGER KINGS X",), 3, 12),
    Shop("Costa Coffee", ("COSTA COFFEE 43017 LONDON",), 3, 8),
    Shop("TfL", ("TFL TRAVEL CH TFL.GOV.UK/CP",), 3, 14),
    Shop("Amazon", ("AMAZON.CO.UK*RT4KX9 AMAZON.CO.UK", "AMZNMKTPLACE AMAZON.CO.UK"), 6, 85),
    Shop("Deliveroo", ("DELIVEROO LONDON",), 14, 38),
    Shop("Boots", ("BOOTS 1182 LONDON",), 4, 30),
)
UK_CONTACTLESS = frozenset({"Pret A Manger", "Costa Coffee", "TfL"})


def _uk_month(rng: random.Random, start: date, end: date) -> tuple[Entry, ...]:
    """About a month of a UK current account: pay, rent, direct debits and card spending."""
    label = _mon(start).upper()
    cash_day = _day(rng, start, end)
    abroad = _day(rng, start, end)
    euros = _amount(rng, 80, 190)
    rate = Decimal(rng.randint(11700, 11990)).scaleb(-4)
    spent_abroad = _cents(euros / rate)
    entries = [
        Entry(
            _on(start, end, 25),
            _amount(rng, 2180, 2460),
            ("LANTERNWICK DESIGN LTD", f"SALARY {label}"),
            Kind.DEPOSIT,
            code="CR",
        ),
        Entry(
            _on(start, end, 1),
            Decimal(-rng.choice((875, 925, 950))),
            ("R ASHCOMBE", "RENT FLAT 2"),
            Kind.BILL,
            code="SO",
        ),
        Entry(
            _on(start, end, 1), Decimal("-143.00"), ("BRACKENFORD BC CTAX",), Kind.BILL, code="DD"
        ),
        Entry(_on(start, end, 18), -_amount(rng, 58, 72), ("BRITISH GAS",), Kind.BILL, code="DD"),
        Entry(_on(start, end, 20), -_amount(rng, 24, 30), ("VODAFONE LTD",), Kind.BILL, code="DD"),
        Entry(_on(start, end, 5), -_amount(rng, 31, 38), ("THAMES WATER",), Kind.BILL, code="DD"),
        Entry(
            cash_day,
            Decimal(-rng.choice((20, 40, 60, 80, 100))),
            ("CASH HARBOUR & CRANE", f"BRACKENFORD {cash_day.day:02d}{_mon(cash_day).upper()}"),
            Kind.BILL,
            code="ATM",
        ),
        Entry(
            _day(rng, start, end),
            -_amount(rng, 15, 60),
            ("T OKONKWO-BRAY", "DINNER"),
            Kind.BILL,
            code="BP",
        ),
        Entry(
            _day(rng, start, end),
            _amount(rng, 20, 70),
            ("J FAIRWEATHER", "CONCERT TICKETS"),
            Kind.DEPOSIT,
            code="CR",
        ),
        Entry(
            abroad,
            -spent_abroad,
            (f"INT'L 00{_digits(rng, 8)}", "BOOKING.COM AMSTERDAM", f"EUR {euros} @ {rate}"),
            Kind.PURCHASE,
            "Booking.com",
            code="VIS",
        ),
        Entry(
            abroad,
            -_cents(spent_abroad * Decimal("0.0275")),
            ("NON-STERLING", "TRANSACTION FEE"),
            Kind.FEE,
            code="DR",
        ),
    ]
    for shop in _visits(rng, UK_SHOPS, rng.randint(26, 32) - len(entries)):
        code = ")))" if shop.merchant in UK_CONTACTLESS else "VIS"
        entries.append(
            Entry(
                _day(rng, start, end),
                -_amount(rng, shop.low, shop.high),
                (rng.choice(shop.descriptors),),
                Kind.PURCHASE,
                shop.merchant,
                code=code,
            )
        )
    return _by_day(entries)


def _uk_statements(rng: random.Random) -> tuple[Statement, Statement]:
    """Two consecutive months of one UK account: the printed one and the scanned one."""
    first = _uk_month(rng, date(2022, 2, 12), date(2022, 3, 11))
    second = _uk_month(rng, date(2022, 3, 12), date(2022, 4, 11))
    opening = _cushion(rng, first + second)
    printed = Statement(
        "uk_current",
        "uk_current_2022-02.pdf",
        UK_BANK,
        UK_ACCOUNT_NO,
        "GBP",
        date(2022, 2, 12),
        date(2022, 3, 11),
        opening,
        first,
        UK_SHOPS[0].merchant,
        pages=2,
    )
    scanned = Statement(
        "scanned",
        "uk_scanned_2022-03.pdf",
        UK_BANK,
        UK_ACCOUNT_NO,
        "GBP",
        date(2022, 3, 12),
        date(2022, 4, 11),
        printed.closing,
        second,
        UK_SHOPS[0].merchant,
        pages=2,
    )
    return printed, scanned


US_BANK = "Tallgrass Meridian Bank"
US_HOLDER = "DANA R WHITCOMBE"
US_ACCOUNT_NO = "000009173640457"
US_CARD = "7731"
US_SHOPS = (
    Shop("Safeway", ("Safeway #1552 Oakland CA", "Safeway #2606 Berkeley CA"), 24, 140),
    Shop("Trader Joe's", ("Trader Joe's #187 Oakland CA",), 18, 95),
    Shop("Shell", ("Shell Oil 57442131 Oakland CA",), 32, 72),
    Shop("Chipotle", ("Chipotle 1874 Oakland CA",), 11, 19),
    Shop("Target", ("Target 00027551 Emeryville CA",), 18, 140),
    Shop("Amazon", ("Amzn Mktp US*2K4Lm8Q31 Amzn.Com/Bill WA",), 12, 160),
    Shop("Starbucks", ("Starbucks Store 05521 Oakland CA",), 4, 11),
    Shop("CVS Pharmacy", ("CVS/Pharmacy #09721 Oakland CA",), 8, 55),
)


def _ach(rng: random.Random, company: str, purpose: str, day: date) -> str:
    """An ACH entry as US banks print it, long enough to wrap."""
    return (
        f"Orig CO Name:{company} Orig ID:{_digits(rng, 10)} Desc Date:{day:%y%m%d} "
        f"CO Entry Descr:{purpose} Sec:PPD Trace#:{_digits(rng, 15)} Eed:{day:%y%m%d} "
        f"Ind ID:{_digits(rng, 9)} Ind Name:Dana R Whitcombe Trn: {_digits(rng, 10)}Tc"
    )


def _us_statement(rng: random.Random) -> Statement:
    start, end = date(2022, 7, 1), date(2022, 7, 31)
    pay = _amount(rng, 1850, 2150)
    atm_day = _day(rng, start, end)
    deposits = [
        Entry(
            date(2022, 7, 15),
            pay,
            (_ach(rng, "Quillmark Analytics", "Payroll", date(2022, 7, 15)),),
            Kind.DEPOSIT,
        ),
        Entry(
            date(2022, 7, 29),
            pay,
            (_ach(rng, "Quillmark Analytics", "Payroll", date(2022, 7, 29)),),
            Kind.DEPOSIT,
        ),
        Entry(
            _day(rng, start, end),
            _amount(rng, 40, 180),
            (f"Zelle Payment From Marisol Quenby Bac{_digits(rng, 9)}",),
            Kind.DEPOSIT,
        ),
        Entry(
            _day(rng, start, end), _amount(rng, 75, 400), ("Remote Online Deposit 1",), Kind.DEPOSIT
        ),
    ]
    withdrawals = [
        Entry(
            date(2022, 7, 1),
            Decimal("-1625.00"),
            (f"Online Payment {_digits(rng, 11)} To Brightwater Commons Apartments 07/01",),
            Kind.BILL,
        ),
        Entry(
            date(2022, 7, 12),
            -_amount(rng, 80, 120),
            (_ach(rng, "Comcast", "Cable", date(2022, 7, 12)),),
            Kind.BILL,
        ),
        Entry(
            date(2022, 7, 18),
            -_amount(rng, 70, 160),
            (_ach(rng, "Pacific Gas & Elec", "Web Online", date(2022, 7, 18)),),
            Kind.BILL,
        ),
        Entry(
            date(2022, 7, 20),
            -_amount(rng, 300, 900),
            ("Payment To Tallgrass Card Ending IN 3390 07/20",),
            Kind.TRANSFER,
        ),
        Entry(
            _day(rng, start, end),
            -_amount(rng, 25, 120),
            (f"Zelle Payment To Theo Marchetti-Lund Jpm{_digits(rng, 9)}",),
            Kind.BILL,
        ),
        Entry(
            atm_day,
            Decimal(-rng.choice((60, 80, 100, 200))),
            (
                f"Non-Tallgrass ATM Withdrawal {atm_day:%m/%d} 7-Eleven 2231 Oakland CA "
                f"Card {US_CARD}",
            ),
            Kind.BILL,
        ),
        Entry(
            date(2022, 7, 8),
            Decimal("-15.49"),
            (f"Recurring Card Purchase 07/08 Netflix.Com Netflix.Com CA Card {US_CARD}",),
            Kind.PURCHASE,
            "Netflix",
        ),
    ]
    for shop in _visits(rng, US_SHOPS, rng.randint(10, 14)):
        day = _day(rng, start, end)
        bought = day - timedelta(days=rng.randint(0, 2))  # cards post a day or two later
        how = "Card Purchase With Pin" if shop.merchant == "Safeway" else "Card Purchase"
        withdrawals.append(
            Entry(
                day,
                -_amount(rng, shop.low, shop.high),
                (f"{how} {bought:%m/%d} {rng.choice(shop.descriptors)} Card {US_CARD}",),
                Kind.PURCHASE,
                shop.merchant,
            )
        )
    fees = [
        Entry(atm_day, Decimal("-2.50"), ("Non-Tallgrass ATM Fee-With",), Kind.FEE),
        Entry(date(2022, 7, 29), Decimal("-12.00"), ("Monthly Service Fee",), Kind.FEE),
    ]
    entries = _by_day(deposits) + _by_day(withdrawals) + _by_day(fees)
    return Statement(
        "us_checking",
        "us_checking_2022-07.pdf",
        US_BANK,
        US_ACCOUNT_NO,
        "USD",
        start,
        end,
        _cushion(rng, _by_day(entries)),
        entries,
        US_SHOPS[0].merchant,
        pages=3,
    )


DE_BANK = "Nordlicht Sparkasse"
DE_HOLDER = "Jonas Feldhügel"
DE_IBAN = _iban("DE", "217999901042873365")
DE_HOLIDAYS = frozenset({date(2024, 3, 29)})  # Karfreitag
DE_SHOPS = (
    Shop("REWE", ("REWE Markt GmbH//Luetjenmoor/DE", "REWE Markt GmbH//Kiel/DE"), 9, 96),
    Shop("EDEKA", ("EDEKA Hansen//Luetjenmoor/DE",), 6, 74),
    Shop("Aldi", ("ALDI NORD 0734//Kiel/DE",), 8, 62),
    Shop("dm", ("dm-drogerie markt//Kiel/DE",), 4, 38),
    Shop("Aral", ("ARAL Station 2271//Kiel/DE",), 30, 85),
    Shop("Bäckerei Strandgut", ("Baeckerei Strandgut//Luetjenmoor/DE",), 3, 14),
)


def _workday(rng: random.Random, start: date, end: date) -> date:
    """A random day on which a German bank books: not a weekend, not a holiday."""
    days = (start + timedelta(days=n) for n in range((end - start).days + 1))
    return rng.choice([d for d in days if d.weekday() < 5 and d not in DE_HOLIDAYS])


def _de_statement(rng: random.Random) -> Statement:
    start, end = date(2024, 3, 1), date(2024, 3, 31)
    cash_day = _workday(rng, start, end)
    entries = [
        Entry(
            start,
            Decimal("-845.00"),
            ("Dauerauftrag", "Hausverwaltung Krögerhof GmbH", "Miete Birkenweg 12 WE 3"),
            Kind.BILL,
        ),
        Entry(
            start,
            -_amount(rng, 11, 14),
            ("Lastschrift", "Nordsee Assekuranz AG", "Hausratversicherung HR-2210473"),
            Kind.BILL,
        ),
        Entry(
            date(2024, 3, 5),
            Decimal(-rng.choice((78, 84, 92, 96))),
            (
                "Lastschrift",
                "Stadtwerke Lütjenmoor GmbH",
                f"Abschlag Strom 03/2024 VK {_digits(rng, 9)}",
            ),
            Kind.BILL,
        ),
        Entry(
            date(2024, 3, 12),
            Decimal("-39.95"),
            ("Lastschrift", "Telekom Deutschland GmbH", f"Festnetz Rechnung {_digits(rng, 12)}"),
            Kind.BILL,
        ),
        Entry(
            date(2024, 3, 28),
            _amount(rng, 2850, 3300),
            ("Gutschrift", "Nordwind Logistik GmbH", "Lohn/Gehalt 03/2024 PersNr 00417"),
            Kind.DEPOSIT,
        ),
        Entry(
            _workday(rng, start, end),
            _amount(rng, 120, 260),
            ("Gutschrift", "Hanne Feldhügel", "Anteil Ferienwohnung Ostern"),
            Kind.DEPOSIT,
        ),
        Entry(
            cash_day,
            Decimal(-rng.choice((50, 100, 150))),
            ("Bargeldauszahlung", "GA NR00004711 BLZ21799990 0", f"{cash_day:%d.%m}/11.42UHR Kiel"),
            Kind.BILL,
        ),
        Entry(
            _workday(rng, start, end),
            -_amount(rng, 35, 120),
            (
                "Lastschrift",
                "PayPal Europe S.a.r.l. et Cie S.C.A",
                f"{_digits(rng, 13)} PP.4821.PP",
                "Ihr Einkauf bei Zalando SE",
            ),
            Kind.PURCHASE,
            "Zalando",
        ),
    ]
    for shop in _visits(rng, DE_SHOPS, rng.randint(10, 15)):
        booked = _workday(rng, start, end)
        paid = booked - timedelta(days=rng.randint(0, 2))  # the Wert is the day of payment
        stamp = f"{paid.isoformat()}T{rng.randint(8, 20):02d}:{rng.randint(0, 59):02d}"
        entries.append(
            Entry(
                booked,
                -_amount(rng, shop.low, shop.high),
                (
                    "Kartenzahlung girocard",
                    rng.choice(shop.descriptors),
                    f"{stamp} Debitk.1 2026-12",
                ),
                Kind.PURCHASE,
                shop.merchant,
                value_day=paid,
            )
        )
    postings = len(entries)
    closing_day = date(2024, 3, 28)  # the last working day before Easter
    entries += [
        Entry(
            closing_day,
            Decimal("-4.95"),
            ("Entgelt", "Kontoführung 03/2024"),
            Kind.FEE,
            value_day=end,
        ),
        Entry(
            closing_day,
            -Decimal(postings) * Decimal("0.25"),
            ("Entgelt", f"Buchungsposten 03/2024 {postings} x 0,25 EUR"),
            Kind.FEE,
            value_day=end,
        ),
    ]
    ordered = _by_day(entries)
    return Statement(
        "de_kontoauszug",
        "de_kontoauszug_2024-03.pdf",
        DE_BANK,
        DE_IBAN,
        "EUR",
        start,
        end,
        _cushion(rng, ordered),
        ordered,
        DE_SHOPS[0].merchant,
        pages=2,
    )


CARD_BANK = "Merlion Quay Bank"
CARD_HOLDER = "MS AURELIA GOH MEI XIN"
CARD_NO = "4921730018274821"
CARD_APR = Decimal("24.99")
CARD_LIMIT = Decimal("12000.00")
CARD_MIN_RATE = Decimal("0.03")
CARD_MIN_FLOOR = Decimal("50.00")
CARD_SHOPS = (
    Shop("Grab", ("GRAB*A-5KQ8RTBGWJAV SINGAPORE SG", "GRABFOOD*A-5M2JN7WQ SINGAPORE SG"), 6, 38),
    Shop(
        "FairPrice",
        ("NTUC FP-BEDOK MALL SINGAPORE SG", "FAIRPRICE FINEST-PLAZA SINGAPORE SG"),
        14,
        160,
    ),
    Shop("Cold Storage", ("COLD STORAGE-JEWEL SINGAPORE SG",), 12, 120),
    Shop("Shopee", ("SHOPEE SINGAPORE MP SINGAPORE SG",), 9, 140),
    Shop("Toast Box", ("TOAST BOX-TAMPINES 1 SINGAPORE SG",), 4, 15),
    Shop("SimplyGo", ("BUS/MRT 128374651 SINGAPORE SG",), 8, 40),
    Shop("Uniqlo", ("UNIQLO-ION ORCHARD SINGAPORE SG",), 29, 180),
    Shop("Guardian", ("GUARDIAN HEALTH-BEDOK SINGAPORE SG",), 6, 55),
)


def _card_statement(rng: random.Random) -> Statement:
    start, end = date(2023, 9, 19), date(2023, 10, 18)
    owed = _amount(rng, 1100, 2400)
    paid = _cents(owed * Decimal(rng.randint(45, 75)) / 100)
    paid_on = date(2023, 10, 5)
    # Interest on the part of last statement's balance left unpaid, day by day to this statement.
    interest = _cents(
        (owed * (paid_on - start).days + (owed - paid) * ((end - paid_on).days + 1))
        * CARD_APR
        / 100
        / 365
    )
    dollars = _amount(rng, 12, 90)
    rate = Decimal(rng.randint(13620, 13790)).scaleb(-4)
    abroad = _day(rng, start, end)
    charged = _cents(dollars * rate)
    entries = [
        Entry(
            paid_on,
            paid,
            ("FAST PAYMENT - THANK YOU", f"REF NO: {_digits(rng, 12)}"),
            Kind.DEPOSIT,
        ),
        Entry(
            abroad,
            -charged,
            (f"AMAZON.COM*{_digits(rng, 6)} AMZN.COM/BILL US", f"U.S. DOLLAR {dollars}"),
            Kind.PURCHASE,
            "Amazon",
        ),
        Entry(abroad, -_cents(charged / 100), ("CCY CONVERSION FEE",), Kind.FEE),
        Entry(_day(rng, start, end), Decimal("-196.20"), ("ANNUAL FEE",), Kind.FEE),
        Entry(
            _day(rng, start, end),
            _amount(rng, 12, 60),
            ("SHOPEE SINGAPORE MP SINGAPORE SG",),
            Kind.REFUND,
            "Shopee",
        ),
        Entry(
            _day(rng, start, end),
            -_amount(rng, 45, 88),
            ("SINGTEL-IDEAS SINGAPORE SG",),
            Kind.PURCHASE,
            "Singtel",
        ),
        Entry(
            _day(rng, start, end),
            Decimal("-19.98"),
            ("NETFLIX.COM SINGAPORE SG",),
            Kind.PURCHASE,
            "Netflix",
        ),
    ]
    for shop in _visits(rng, CARD_SHOPS, rng.randint(10, 16)):
        entries.append(
            Entry(
                _day(rng, start, end),
                -_amount(rng, shop.low, shop.high),
                (rng.choice(shop.descriptors),),
                Kind.PURCHASE,
                shop.merchant,
            )
        )
    ordered = (*_by_day(entries), Entry(end, -interest, ("INTEREST CHARGED",), Kind.INTEREST))
    owed_now = owed - sum((e.amount for e in ordered), ZERO)
    minimum = min(owed_now, max(CARD_MIN_FLOOR, _cents(owed_now * CARD_MIN_RATE)))
    return Statement(
        "credit_card",
        "sg_card_2023-10.pdf",
        CARD_BANK,
        CARD_NO,
        "SGD",
        start,
        end,
        -owed,
        ordered,
        CARD_SHOPS[0].merchant,
        pages=2,
        card=CardTerms(CARD_LIMIT, CARD_APR, date(2023, 11, 13), minimum),
    )


EU_BANK = "Polderhaven Bank"
EU_HOLDER = "S. van Dijkhorst"
EU_IBAN = _iban("NL", "PLDH0417283956")
EU_SHOPS = (
    Shop("Albert Heijn", ("Albert Heijn 1418 AMSTERDAM", "AH to go 5834 AMSTERDAM"), 6, 88),
    Shop("Jumbo", ("Jumbo Amsterdam Oost AMSTERDAM",), 9, 74),
    Shop("NS", ("NS Groep IZ NS Reizigers UTRECHT",), 4, 42),
    Shop("HEMA", ("HEMA Kalverstraat AMSTERDAM",), 5, 45),
    Shop("Etos", ("Etos 7712 AMSTERDAM",), 4, 30),
    Shop("Coffee Company", ("Coffee Company Oost AMSTERDAM",), 3, 9),
    Shop("bol.com", ("bol.com b.v. UTRECHT",), 15, 160),
)


def _eu_statement(rng: random.Random) -> Statement:
    start, end = date(2024, 4, 1), date(2024, 4, 30)
    entries = [
        Entry(
            date(2024, 4, 25),
            _amount(rng, 3100, 3600),
            ("SEPA Credit Transfer Grachtwerk B.V.", "Salary April 2024"),
            Kind.DEPOSIT,
        ),
        Entry(
            start,
            Decimal("-1285.00"),
            ("SEPA Direct Debit Woonstichting Oeverhof", "Rent April 2024 contract 88120"),
            Kind.BILL,
        ),
        Entry(
            date(2024, 4, 3),
            -_amount(rng, 118, 164),
            ("SEPA Direct Debit Vattenfall Klantenservice N.V.", "Instalment April 2024"),
            Kind.BILL,
        ),
        Entry(
            start,
            -_amount(rng, 130, 150),
            ("SEPA Direct Debit Zilveren Kruis Zorgverzekeringen", "Premium April 2024"),
            Kind.BILL,
        ),
        Entry(
            date(2024, 4, 22),
            -_amount(rng, 49, 62),
            ("SEPA Direct Debit Ziggo Services B.V.", "Internet and TV April 2024"),
            Kind.BILL,
        ),
        Entry(
            _day(rng, start, end),
            _amount(rng, 18, 45),
            ("SEPA Credit Transfer AAB INZ TIKKIE", f"Tikkie ID {_digits(rng, 12)} L. Zwanenburg"),
            Kind.DEPOSIT,
        ),
        Entry(
            start,
            Decimal("-3.40"),
            ("Costs basic package", "Period 01-03-2024 to 31-03-2024"),
            Kind.FEE,
        ),
    ]
    for shop in _visits(rng, EU_SHOPS, rng.randint(9, 14)):
        day = _day(rng, start, end)
        entries.append(
            Entry(
                day,
                -_amount(rng, shop.low, shop.high),
                (
                    f"Card payment {rng.choice(shop.descriptors)} {day:%d-%m-%Y} "
                    f"{rng.randint(8, 21):02d}:{rng.randint(0, 59):02d}",
                ),
                Kind.PURCHASE,
                shop.merchant,
            )
        )
    ordered = _by_day(entries)
    return Statement(
        "eu_numbers",
        "nl_statement_2024-04.pdf",
        EU_BANK,
        EU_IBAN,
        "EUR",
        start,
        end,
        _cushion(rng, ordered),
        ordered,
        EU_SHOPS[0].merchant,
        pages=1,
    )


# --- truth ------------------------------------------------------------------------------------


def _plain(value: Decimal) -> str:
    return f"{value:.2f}"


def _mask(account_no: str) -> str:
    return f"***{account_no[-4:]}"


def _checks(s: Statement) -> list[dict[str, str]]:
    """Questions a user would ask of the statement, answered from its ledger."""
    regular = sum((-e.amount for e in s.entries if e.merchant == s.regular and e.amount < 0), ZERO)
    # A purchase is any money out but a move to the holder's own account or card.
    spend = (e for e in s.entries if e.amount < 0 and e.kind is not Kind.TRANSFER)
    largest = max(spend, key=lambda e: -e.amount)
    checks = [
        {
            "kind": "spend_at",
            "question": f"How much did I spend at {s.regular}?",
            "merchant": s.regular,
            "answer": _plain(regular),
        },
        {
            "kind": "fees",
            "question": "How much did I pay in fees?",
            "answer": _plain(s.total(Kind.FEE)),
        },
        {
            "kind": "largest_purchase",
            "question": "What was my largest purchase?",
            "merchant": largest.merchant,
            "date": largest.day.isoformat(),
            "answer": _plain(-largest.amount),
        },
    ]
    if s.card:
        checks.append(
            {
                "kind": "interest",
                "question": "How much interest was I charged?",
                "answer": _plain(s.total(Kind.INTEREST)),
            }
        )
    else:
        checks.append(
            {
                "kind": "money_in",
                "question": "How much money came in?",
                "answer": _plain(s.money_in),
            }
        )
    return checks


def _truth(s: Statement) -> dict[str, object]:
    truth: dict[str, object] = {
        "file": s.file,
        "layout": s.layout,
        "bank": s.bank,
        "account": _mask(s.account_no),
        "currency": s.currency,
        "period": [s.start.isoformat(), s.end.isoformat()],
        "pages": s.pages,
        "opening_balance": _plain(s.opening),
        "closing_balance": _plain(s.closing),
        "money_in": _plain(s.money_in),
        "money_out": _plain(s.money_out),
        "fees": _plain(s.total(Kind.FEE)),
    }
    if s.card:
        truth |= {
            "interest": _plain(s.total(Kind.INTEREST)),
            "amount_due": _plain(-s.closing),
            "minimum_payment": _plain(s.card.minimum_payment),
            "due_date": s.card.due.isoformat(),
            "credit_limit": _plain(s.card.credit_limit),
            "apr": f"{s.card.apr}",
        }
    misread = [e for e in s.entries if e.misprinted]
    gap = sum((abs(e.amount) for e in misread), ZERO)
    truth |= {
        "transactions": len(s.entries),
        "reconciliation": {"status": "off", "gap": _plain(gap)}
        if gap
        else {"status": "reconciled"},
        "unread": [
            {"page": 1, "date": e.printed_day or _day_mon(e.day), "amount": e.misprinted}
            for e in misread
        ],
        "checks": _checks(s),
        "rows": [[e.day.isoformat(), _plain(e.amount), e.description] for e in s.entries],
    }
    return truth


# --- PDF helpers ------------------------------------------------------------------------------


def _en(value: Decimal) -> str:
    """``1,234.56``."""
    return f"{value:,.2f}"


def _eu(value: Decimal) -> str:
    """``1.234,56``: thousands dots and a decimal comma."""
    return _en(value).translate(str.maketrans(",.", ".,"))


def _month_day_year(day: date) -> str:
    """``July 1, 2022``."""
    return f"{MONTH_NAMES[day.month - 1]} {day.day}, {day.year}"


def _mon(day: date) -> str:
    """``Feb``."""
    return MONTH_NAMES[day.month - 1][:3]


def _day_mon(day: date) -> str:
    """``12 Feb``."""
    return f"{day.day:02d} {_mon(day)}"


def _ordinal(day: date) -> str:
    """``12th Feb 2022``."""
    n = day.day
    suffix = "th" if 11 <= n <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} {_mon(day)} {day.year}"


class _Doc(FPDF):
    """A statement document: fixed metadata, page breaks placed by the layout, a footer."""

    def __init__(self, s: Statement, page_format: str, page_label: str, note: str) -> None:
        super().__init__(unit="mm", format=page_format)
        self.set_creation_date(PDF_TIMESTAMP)
        self.set_title(f"{s.bank} statement {s.start.isoformat()} to {s.end.isoformat()}")
        self.set_author(s.bank)
        self.set_creator(CREATOR)
        self.set_auto_page_break(auto=False)
        self.set_margins(MARGIN, MARGIN, MARGIN)
        self.page_label = page_label
        self.note = note

    def footer(self) -> None:
        self.set_text_color(110, 110, 110)
        self.put(MARGIN, self.h - 13, self.note, w=self.w - 2 * MARGIN - 32, size=6.5)
        label = self.page_label.format(page=self.page_no(), nb=self.str_alias_nb_pages)
        self.put(self.w - MARGIN - 32, self.h - 13, label, w=32, size=7.5, align="R")
        self.set_text_color(0, 0, 0)

    def put(
        self,
        x: float,
        y: float,
        text: str,
        *,
        w: float = 0,
        size: float = 8.5,
        style: str = "",
        align: str = "L",
        h: float = 4.5,
        fill: bool = False,
        border: int | str = 0,
    ) -> None:
        """One line of text in a cell at ``x, y``."""
        self.set_xy(x, y)
        self.set_font("Helvetica", style, size)
        self.cell(w, h, text, border=border, align=align, fill=fill)

    def bar(self, x: float, y: float, w: float, text: str, colour: tuple[int, int, int]) -> None:
        """A heading in white on a coloured bar."""
        self.set_fill_color(*colour)
        self.set_text_color(255, 255, 255)
        self.put(x, y, f" {text}", w=w, size=9, style="B", h=6, fill=True)
        self.set_text_color(0, 0, 0)

    def pairs(
        self,
        x: float,
        right: float,
        y: float,
        rows: Sequence[tuple[str, str]],
        *,
        step: float = 4.6,
        style: str = "B",
    ) -> None:
        """Lines of a label from ``x`` and its value aligned right to ``right``."""
        for n, (label, value) in enumerate(rows):
            self.put(x, y + n * step, label, size=8, style=style)
            self.put(x, y + n * step, value, w=right - x, align="R")

    def wrap(self, text: str, w: float, size: float) -> list[str]:
        """``text`` broken into lines at spaces to fit ``w``."""
        self.set_font("Helvetica", "", size)
        return self.multi_cell(w, 4, text, dry_run=True, output=MethodReturnValue.LINES)

    def rule(self, y: float, x0: float = MARGIN, x1: float | None = None) -> None:
        self.set_draw_color(190, 190, 190)
        self.line(x0, y, self.w - MARGIN if x1 is None else x1, y)


# --- layout 1: UK current account -------------------------------------------------------------

UK_COLOUR = (0, 92, 104)
UK_LINE = 4.6
UK_BOTTOM = 268.0
# Columns of the transaction table: x, width (mm).
UK_DATE = (MARGIN, 19.0)
UK_TYPE = (34.0, 10.0)
UK_DETAILS = (44.0, 76.0)
UK_PAID_OUT = (120.0, 25.0)
UK_PAID_IN = (145.0, 25.0)
UK_BALANCE = (170.0, 25.0)


def _uk_date(day: date) -> str:
    """``12 Feb 22``."""
    return f"{_day_mon(day)} {day:%y}"


def _write_uk(s: Statement) -> bytes:
    pdf = _Doc(
        s,
        "A4",
        "Page {page} of {nb}",
        "Harbour & Crane Bank plc. Registered in England and Wales, number 09173342.",
    )
    pdf.add_page()
    y = _uk_row(
        pdf, _uk_first_page(pdf, s), s.start, "", ("BALANCE BROUGHT FORWARD",), None, s.opening
    )
    balance, shown = s.opening, s.start
    for n, entry in enumerate(s.entries):
        if y + UK_LINE * (len(entry.lines) + 1) > UK_BOTTOM:
            _uk_row(pdf, y, None, "", ("BALANCE CARRIED FORWARD",), None, balance)
            pdf.add_page()
            y = _uk_row(
                pdf, _uk_next_page(pdf, s), None, "", ("BALANCE BROUGHT FORWARD",), None, balance
            )
            shown = None
        balance += entry.amount
        end_of_day = n + 1 == len(s.entries) or s.entries[n + 1].day != entry.day
        y = _uk_row(
            pdf,
            y,
            entry.day if entry.day != shown else None,
            entry.code,
            entry.lines,
            entry.amount,
            balance if end_of_day else None,
        )
        shown = entry.day
    _uk_row(pdf, y, None, "", ("BALANCE CARRIED FORWARD",), None, balance)
    return bytes(pdf.output())


def _uk_row(
    pdf: _Doc,
    y: float,
    day: date | None,
    code: str,
    lines: Sequence[str],
    amount: Decimal | None,
    balance: Decimal | None,
) -> float:
    """One table row, amounts and balance on its last line; returns the next row's top."""
    if day:
        pdf.rule(y)
        pdf.put(UK_DATE[0], y, _uk_date(day), w=UK_DATE[1])
    if code:
        pdf.put(UK_TYPE[0], y, code, w=UK_TYPE[1])
    style = "B" if amount is None else ""
    for n, line in enumerate(lines):
        pdf.put(UK_DETAILS[0], y + n * UK_LINE, line, w=UK_DETAILS[1], style=style)
    last = y + (len(lines) - 1) * UK_LINE
    if amount is not None:
        x, w = UK_PAID_OUT if amount < 0 else UK_PAID_IN
        pdf.put(x, last, _en(abs(amount)), w=w, align="R")
    if balance is not None:
        pdf.put(UK_BALANCE[0], last, _en(balance), w=UK_BALANCE[1], align="R", style=style)
    return y + len(lines) * UK_LINE


def _uk_brand(pdf: _Doc) -> None:
    pdf.set_text_color(*UK_COLOUR)
    pdf.put(MARGIN, 12, UK_BANK, size=18, style="B", h=8)
    pdf.set_text_color(0, 0, 0)
    pdf.put(125, 13, "Your Statement", w=70, size=14, style="B", align="R", h=7)


def _uk_first_page(pdf: _Doc, s: Statement) -> float:
    """The first page's header, summary box and column heads; returns the first row's top."""
    _uk_brand(pdf)
    pdf.put(MARGIN, 21, "Harbour & Crane Bank plc, 1 Crane Wharf, Brackenford BF1 2HC", size=7)
    for n, line in enumerate((UK_HOLDER, "FLAT 2", "14 LARKSPUR ROW", "BRACKENFORD", "BF3 7QD")):
        pdf.put(MARGIN, 34 + n * 4.6, line, size=9.5)
    details = (
        ("", "Bank Current Account"),
        ("", f"{_ordinal(s.start)} to {_ordinal(s.end)}"),
        ("Account Name", UK_HOLDER),
        ("Sort Code", UK_SORT_CODE),
        ("Account Number", UK_ACCOUNT_NO),
        ("Sheet Number", "41"),
        ("International Bank Account Number", ""),
        ("", _grouped(_iban("GB", f"HACR{UK_SORT_CODE.replace('-', '')}{UK_ACCOUNT_NO}"))),
        ("Branch Identifier Code", "HACRGB21"),
    )
    pdf.pairs(118, 195, 28, details)
    box_top = 76.0
    pdf.set_draw_color(*UK_COLOUR)
    pdf.rect(MARGIN, box_top, 95, 33)
    pdf.bar(MARGIN, box_top, 95, "Your account summary", UK_COLOUR)
    summary = (
        ("Balance brought forward", s.opening),
        ("Total money in", s.money_in),
        ("Total money out", s.money_out),
        ("Balance carried forward", s.closing),
    )
    for n, (label, value) in enumerate(summary):
        y = box_top + 7.5 + n * 6
        style = "B" if n in (0, 3) else ""
        pdf.put(MARGIN + 3, y, label, size=9, style=style)
        pdf.put(MARGIN + 55, y, f"£{_en(value)}", w=37, size=9, style=style, align="R")
    notes = (
        "Your deposits with us are protected by the",
        "deposit guarantee scheme. Ask us for details.",
        "Call us on 0300 555 0143 if anything on this",
        "statement looks wrong to you.",
    )
    for n, line in enumerate(notes):
        pdf.put(118, box_top + 2 + n * 4.2, line, size=7.5)
    return _uk_heads(pdf, 116.0)


def _uk_next_page(pdf: _Doc, s: Statement) -> float:
    """A following page's header and column heads; returns the first row's top."""
    _uk_brand(pdf)
    pdf.put(MARGIN, 24, f"Account Name {UK_HOLDER}", size=8.5)
    pdf.put(MARGIN, 28.6, f"Sort Code {UK_SORT_CODE}    Account Number {UK_ACCOUNT_NO}", size=8.5)
    pdf.put(MARGIN, 33.2, f"{_ordinal(s.start)} to {_ordinal(s.end)}", size=8.5)
    return _uk_heads(pdf, 42.0)


def _uk_heads(pdf: _Doc, y: float) -> float:
    pdf.put(MARGIN, y, "Your Bank Account details", size=11, style="B", h=6)
    pdf.set_fill_color(224, 236, 238)
    heads = (
        ("Date", UK_DATE[0], UK_DATE[1], "L"),
        ("Payment type and details", UK_TYPE[0], UK_TYPE[1] + UK_DETAILS[1], "L"),
        ("Paid out", *UK_PAID_OUT, "R"),
        ("Paid in", *UK_PAID_IN, "R"),
        ("Balance", *UK_BALANCE, "R"),
    )
    for title, x, w, align in heads:
        pdf.put(x, y + 7, title, w=w, size=8.5, style="B", align=align, h=6, fill=True)
    return y + 14.5


# --- layout 2: US checking --------------------------------------------------------------------

US_COLOUR = (30, 62, 110)
US_LINE = 3.9
US_SIZE = 7.5
US_TOP = 38.0
US_BOTTOM = 258.0
US_DATE_X = 13.0
US_DESC = (32.0, 122.0)
US_AMOUNT = (160.0, 43.0)
US_WIDTH = 190.0
US_SECTIONS = (
    ("DEPOSITS AND ADDITIONS", "Total Deposits and Additions", (Kind.DEPOSIT,)),
    (
        "ELECTRONIC WITHDRAWALS",
        "Total Electronic Withdrawals",
        (Kind.BILL, Kind.PURCHASE, Kind.TRANSFER),
    ),
    ("FEES", "Total Fees", (Kind.FEE,)),
)


def _usd(value: Decimal) -> str:
    return f"${_en(value)}"


def _write_us(s: Statement) -> bytes:
    pdf = _Doc(
        s,
        "Letter",
        "Page {page} of {nb}",
        "Tallgrass Meridian Bank, N.A. Member FDIC. Equal Housing Lender.",
    )
    pdf.add_page()
    y = _us_first_page(pdf, s)
    for title, total_label, kinds in US_SECTIONS:
        entries = [e for e in s.entries if e.kind in kinds]
        y = _us_heads(pdf, _us_room(pdf, s, y, 24.0, ""), title)
        for n, entry in enumerate(entries):
            lines = pdf.wrap(entry.description, US_DESC[1], US_SIZE)
            y = _us_room(pdf, s, y, len(lines) * US_LINE, title)
            pdf.put(US_DATE_X, y, f"{entry.day:%m/%d}", size=US_SIZE, h=US_LINE)
            for k, line in enumerate(lines):
                pdf.put(US_DESC[0], y + k * US_LINE, line, w=US_DESC[1], size=US_SIZE, h=US_LINE)
            amount = abs(entry.amount)
            pdf.put(
                US_AMOUNT[0],
                y,
                _usd(amount) if n == 0 else _en(amount),
                w=US_AMOUNT[1],
                size=US_SIZE,
                align="R",
                h=US_LINE,
            )
            y += len(lines) * US_LINE + 0.8
        y = _us_room(pdf, s, y, 7.0, title)
        pdf.rule(y, US_DATE_X, US_DATE_X + US_WIDTH)
        pdf.put(US_DATE_X, y + 0.8, total_label, size=US_SIZE + 0.5, style="B")
        pdf.put(
            US_AMOUNT[0],
            y + 0.8,
            _usd(s.total(*kinds)),
            w=US_AMOUNT[1],
            size=US_SIZE + 0.5,
            style="B",
            align="R",
        )
        y += 10
    _us_daily_balances(pdf, s, y)
    pdf.add_page()
    _us_worksheet(pdf, s)
    return bytes(pdf.output())


def _us_room(pdf: _Doc, s: Statement, y: float, height: float, section: str) -> float:
    """``y`` if ``height`` fits on the page, else the top of a new page (with the section's
    heads, continued)."""
    if y + height <= US_BOTTOM:
        return y
    pdf.add_page()
    top = _us_page_header(pdf, s)
    return _us_heads(pdf, top, f"{section} (continued)") if section else top


def _us_page_header(pdf: _Doc, s: Statement) -> float:
    pdf.set_text_color(*US_COLOUR)
    pdf.put(US_DATE_X, 12, US_BANK, size=15, style="B", h=7)
    pdf.set_text_color(0, 0, 0)
    pdf.put(
        120,
        12,
        f"{_month_day_year(s.start)} through {_month_day_year(s.end)}",
        w=83,
        size=9,
        style="B",
        align="R",
    )
    pdf.put(120, 17, f"Account Number: {US_ACCOUNT_NO}", w=83, size=9, align="R")
    return US_TOP


def _us_first_page(pdf: _Doc, s: Statement) -> float:
    _us_page_header(pdf, s)
    pdf.put(US_DATE_X, 19, "P O Box 90417", size=7.5)
    pdf.put(US_DATE_X, 22.5, "Larkin City KS 66999-0417", size=7.5)
    pdf.put(US_DATE_X, 38, "00418271 DRE 802 219 21322 NNNNNNNNNNN T 1 000000000 64 0000", size=6.5)
    for n, line in enumerate((US_HOLDER, "2217 QUILLFEATHER LN", "OAKLAND CA 94699-2217")):
        pdf.put(US_DATE_X, 44 + n * 4.4, line, size=9)
    pdf.set_draw_color(*US_COLOUR)
    pdf.rect(120, 32, 83, 36)
    pdf.put(122, 33, "CUSTOMER SERVICE INFORMATION", size=8, style="B")
    service = (
        ("Web site:", "tallgrassmeridian.example"),
        ("Service Center:", "1-800-555-0199"),
        ("Deaf and Hard of Hearing:", "1-800-555-0137"),
        ("Para Espanol:", "1-888-555-0142"),
        ("International Calls:", "1-713-555-0168"),
    )
    pdf.pairs(122, 201, 40, service, step=5, style="")
    pdf.bar(US_DATE_X, 76, US_WIDTH, "CHECKING SUMMARY", US_COLOUR)
    pdf.set_text_color(255, 255, 255)
    pdf.put(120, 76, "Prairie Plus Checking", w=83, size=8.5, style="B", align="R", h=6)
    pdf.set_text_color(0, 0, 0)
    pdf.put(120, 84, "INSTANCES", w=30, size=7.5, style="B", align="R")
    pdf.put(160, 84, "AMOUNT", w=43, size=7.5, style="B", align="R")
    counts = {kinds: sum(e.kind in kinds for e in s.entries) for _, _, kinds in US_SECTIONS}
    rows = (
        ("Beginning Balance", "", _usd(s.opening)),
        ("Deposits and Additions", str(counts[(Kind.DEPOSIT,)]), _en(s.total(Kind.DEPOSIT))),
        (
            "Electronic Withdrawals",
            str(counts[(Kind.BILL, Kind.PURCHASE, Kind.TRANSFER)]),
            _en(-s.total(Kind.BILL, Kind.PURCHASE, Kind.TRANSFER)),
        ),
        ("Fees", str(counts[(Kind.FEE,)]), _en(-s.total(Kind.FEE))),
        ("Ending Balance", str(len(s.entries)), _usd(s.closing)),
    )
    for n, (label, count, amount) in enumerate(rows):
        y = 89 + n * 5
        style = "B" if n in (0, 4) else ""
        pdf.put(US_DATE_X + 2, y, label, size=8.5, style=style)
        pdf.put(120, y, count, w=30, size=8.5, align="R")
        pdf.put(160, y, amount, w=43, size=8.5, style=style, align="R")
    pdf.rule(115, US_DATE_X, US_DATE_X + US_WIDTH)
    return 120.0


def _us_heads(pdf: _Doc, y: float, title: str) -> float:
    pdf.bar(US_DATE_X, y, US_WIDTH, title, US_COLOUR)
    pdf.put(US_DATE_X, y + 7, "DATE", size=7.5, style="B")
    pdf.put(US_DESC[0], y + 7, "DESCRIPTION", size=7.5, style="B")
    pdf.put(US_AMOUNT[0], y + 7, "AMOUNT", w=US_AMOUNT[1], size=7.5, style="B", align="R")
    pdf.rule(y + 11.5, US_DATE_X, US_DATE_X + US_WIDTH)
    return y + 13


def _us_daily_balances(pdf: _Doc, s: Statement, y: float) -> None:
    """The DAILY ENDING BALANCE table: the balance after each day with transactions."""
    days: dict[date, Decimal] = {}
    balance = s.opening
    for entry in _by_day(s.entries):
        balance += entry.amount
        days[entry.day] = balance
    rows = [list(days.items())[i : i + 3] for i in range(0, len(days), 3)]
    y = _us_room(pdf, s, y, 14 + len(rows) * US_LINE, "")
    pdf.bar(US_DATE_X, y, US_WIDTH, "DAILY ENDING BALANCE", US_COLOUR)
    for column in range(3):
        x = US_DATE_X + column * 64
        pdf.put(x, y + 7, "DATE", size=7.5, style="B")
        pdf.put(x + 14, y + 7, "AMOUNT", w=40, size=7.5, style="B", align="R")
    for r, row in enumerate(rows):
        for column, (day, amount) in enumerate(row):
            x, top = US_DATE_X + column * 64, y + 13 + r * US_LINE
            text = _usd(amount) if r == column == 0 else _en(amount)
            pdf.put(x, top, f"{day:%m/%d}", size=US_SIZE, h=US_LINE)
            pdf.put(x + 14, top, text, w=40, size=US_SIZE, align="R", h=US_LINE)


def _us_worksheet(pdf: _Doc, s: Statement) -> None:
    """The last page: a blank worksheet for balancing a checkbook, and error-resolution terms."""
    _us_page_header(pdf, s)
    pdf.bar(US_DATE_X, US_TOP, US_WIDTH, "BALANCING YOUR CHECKBOOK", US_COLOUR)
    steps = (
        "Note: Ensure your checkbook register is up to date with all transactions to date "
        "whether they are included on your statement or not.",
        "1. Write in the Ending Balance shown on this statement.",
        "2. List and total all deposits and additions not shown on this statement.",
        "3. Add the total of step 2 to the Ending Balance.",
        "4. List and total all checks, ATM withdrawals, debit card purchases and other "
        "withdrawals not shown on this statement.",
        "5. Subtract the total of step 4 from the total of step 3. This should match your "
        "checkbook balance.",
    )
    pdf.set_xy(US_DATE_X, US_TOP + 9)
    pdf.set_font("Helvetica", "", 8)
    for step in steps:
        pdf.set_x(US_DATE_X)
        pdf.multi_cell(US_WIDTH, 4.2, step, align="L")
        pdf.ln(1)
    blanks = (
        "Ending Balance",
        "Deposits not shown on this statement",
        "Total",
        "Withdrawals not shown on this statement",
        "Balance",
    )
    y = pdf.get_y() + 6
    for n, label in enumerate(blanks):
        pdf.put(US_DATE_X + 4, y + n * 9, f"Step {n + 1}  {label}", size=9)
        pdf.put(120, y + n * 9, "$ ______________________", size=9)
    y += len(blanks) * 9 + 6
    for column, title in enumerate(("Deposits not shown", "Checks and withdrawals outstanding")):
        x = US_DATE_X + column * 97
        pdf.put(x, y, title, size=8.5, style="B")
        pdf.put(x, y + 5, "Date or check number", size=7.5)
        pdf.put(x + 55, y + 5, "Amount", size=7.5)
        for n in range(8):
            pdf.put(x, y + 11 + n * 6, "________________", size=8.5)
            pdf.put(x + 55, y + 11 + n * 6, "$ ____________", size=8.5)
    pdf.put(US_DATE_X, y + 62, "Total", size=8.5, style="B")
    pdf.put(US_DATE_X + 55, y + 62, "$ ____________", size=8.5)
    pdf.put(US_DATE_X + 97, y + 62, "Total", size=8.5, style="B")
    pdf.put(US_DATE_X + 152, y + 62, "$ ____________", size=8.5)
    pdf.set_xy(US_DATE_X, y + 74)
    pdf.set_font("Helvetica", "B", 8)
    pdf.cell(US_WIDTH, 4.5, "IN CASE OF ERRORS OR QUESTIONS ABOUT YOUR ELECTRONIC FUNDS TRANSFERS:")
    pdf.set_xy(US_DATE_X, y + 79)
    pdf.set_font("Helvetica", "", 7.5)
    pdf.multi_cell(
        US_WIDTH,
        3.8,
        "Call us at 1-800-555-0199 or write to us at the address on the front of this statement "
        "as soon as you can if you think your statement or receipt is incorrect or if you need "
        "more information about a transfer listed on the statement or receipt. We must hear from "
        "you no later than 60 days after we sent you the FIRST statement on which the problem or "
        "error appeared. Tell us your name and account number, the dollar amount of the "
        "suspected error, and describe the error or the transfer you are unsure about.",
        align="L",
    )


# --- layout 3: German Kontoauszug -------------------------------------------------------------

DE_COLOUR = (0, 104, 120)
DE_LINE = 3.9
DE_SIZE = 8.0
DE_BOTTOM = 266.0
DE_BOOKED = (18.0, 20.0)
DE_VALUE = (38.0, 16.0)
DE_PURPOSE = (55.0, 95.0)
DE_DEBIT = (150.0, 22.0)
DE_CREDIT = (172.0, 22.0)


def _de_date(day: date) -> str:
    """``01.03.``."""
    return f"{day:%d.%m.}"


def _write_de(s: Statement) -> bytes:
    pdf = _Doc(
        s,
        "A4",
        "Blatt {page} von {nb}",
        "Nordlicht Sparkasse · Hafenstraße 4 · 24999 Lütjenmoor · Einwendungen bitte innerhalb "
        "von sechs Wochen",
    )
    pdf.add_page()
    y = _de_first_page(pdf, s)
    for entry in s.entries:
        height = len(entry.lines) * DE_LINE + 1.6
        if y + height > DE_BOTTOM:
            pdf.add_page()
            y = _de_next_page(pdf, s)
        pdf.put(DE_BOOKED[0], y, _de_date(entry.day), w=DE_BOOKED[1], size=DE_SIZE, h=DE_LINE)
        pdf.put(
            DE_VALUE[0],
            y,
            _de_date(entry.value_day or entry.day),
            w=DE_VALUE[1],
            size=DE_SIZE,
            h=DE_LINE,
        )
        for n, line in enumerate(entry.lines):
            style = "B" if n == 0 else ""
            pdf.put(
                DE_PURPOSE[0],
                y + n * DE_LINE,
                line,
                w=DE_PURPOSE[1],
                size=DE_SIZE,
                style=style,
                h=DE_LINE,
            )
        x, w = DE_DEBIT if entry.amount < 0 else DE_CREDIT
        pdf.put(x, y, _eu(abs(entry.amount)), w=w, size=DE_SIZE, align="R", h=DE_LINE)
        y += height
    if y + 22 > DE_BOTTOM:
        pdf.add_page()
        y = _de_next_page(pdf, s)
    pdf.rule(y, DE_BOOKED[0], DE_CREDIT[0] + DE_CREDIT[1])
    pdf.put(DE_PURPOSE[0], y + 1, "Summe der Umsätze", size=DE_SIZE, style="B")
    pdf.put(DE_DEBIT[0], y + 1, _eu(s.money_out), w=DE_DEBIT[1], size=DE_SIZE, style="B", align="R")
    pdf.put(
        DE_CREDIT[0], y + 1, _eu(s.money_in), w=DE_CREDIT[1], size=DE_SIZE, style="B", align="R"
    )
    pdf.set_fill_color(226, 240, 242)
    pdf.put(
        DE_BOOKED[0],
        y + 8,
        f"Neuer Kontostand vom {s.end:%d.%m.%Y}",
        w=130,
        size=9.5,
        style="B",
        fill=True,
        h=6,
    )
    pdf.put(
        148, y + 8, f"{_eu(s.closing)} EUR", w=46, size=9.5, style="B", align="R", fill=True, h=6
    )
    return bytes(pdf.output())


def _de_brand(pdf: _Doc, s: Statement) -> None:
    pdf.set_text_color(*DE_COLOUR)
    pdf.put(DE_BOOKED[0], 12, DE_BANK, size=17, style="B", h=8)
    pdf.set_text_color(0, 0, 0)
    pdf.put(
        120, 13, f"Kontoauszug {s.start.month}/{s.start.year}", w=74, size=10, style="B", align="R"
    )


def _de_heads(pdf: _Doc, y: float) -> float:
    pdf.set_fill_color(226, 240, 242)
    heads = (
        ("Buchungstag", *DE_BOOKED, "L"),
        ("Wert", *DE_VALUE, "L"),
        ("Verwendungszweck", *DE_PURPOSE, "L"),
        ("Soll", *DE_DEBIT, "R"),
        ("Haben", *DE_CREDIT, "R"),
    )
    for title, x, w, align in heads:
        pdf.put(x, y, title, w=w, size=8, style="B", align=align, h=6, fill=True)
    return y + 8


def _de_first_page(pdf: _Doc, s: Statement) -> float:
    _de_brand(pdf, s)
    pdf.put(120, 18, f"Datum {s.end:%d.%m.%Y}", w=74, size=8.5, align="R")
    pdf.put(20, 40, "Nordlicht Sparkasse · Hafenstraße 4 · 24999 Lütjenmoor", size=6.5)
    for n, line in enumerate(("Herrn", DE_HOLDER, "Birkenweg 12", "24999 Lütjenmoor")):
        pdf.put(20, 45 + n * 4.6, line, size=9.5)
    details = (
        ("Konto", "Sparkassen-Girokonto"),
        ("IBAN", _grouped(DE_IBAN)),
        ("BIC", "NOLSDE21XXX"),
        ("Kontoinhaber", DE_HOLDER),
        ("Währung", "EUR"),
    )
    pdf.pairs(118, 194, 42, details)
    pdf.put(
        DE_BOOKED[0],
        78,
        f"Kontoauszug vom {s.start:%d.%m.%Y} bis {s.end:%d.%m.%Y}",
        size=12,
        style="B",
        h=6,
    )
    pdf.set_fill_color(226, 240, 242)
    previous = s.start - timedelta(days=1)
    pdf.put(
        DE_BOOKED[0],
        87,
        f"Alter Kontostand vom {previous:%d.%m.%Y}",
        w=130,
        size=9.5,
        style="B",
        fill=True,
        h=6,
    )
    pdf.put(148, 87, f"{_eu(s.opening)} EUR", w=46, size=9.5, style="B", align="R", fill=True, h=6)
    return _de_heads(pdf, 97.0)


def _de_next_page(pdf: _Doc, s: Statement) -> float:
    _de_brand(pdf, s)
    pdf.put(DE_BOOKED[0], 22, f"IBAN {_grouped(DE_IBAN)} · {DE_HOLDER}", size=8.5)
    pdf.put(DE_BOOKED[0], 27, f"Kontoauszug vom {s.start:%d.%m.%Y} bis {s.end:%d.%m.%Y}", size=8.5)
    return _de_heads(pdf, 36.0)


# --- layout 4: credit card --------------------------------------------------------------------

CARD_COLOUR = (122, 24, 48)
CARD_LINE = 4.6


def _sgd(value: Decimal) -> str:
    return f"S${_en(value)}"


def _card_amount(amount: Decimal) -> str:
    """A charge as ``12.40``, a payment or credit as ``900.00 CR``."""
    return f"{_en(amount)} CR" if amount > 0 else _en(-amount)


def _card_date(day: date) -> str:
    return f"{_day_mon(day)} {day.year}"


def _write_card(s: Statement) -> bytes:
    assert s.card is not None
    pdf = _Doc(
        s,
        "A4",
        "Page {page} of {nb}",
        "Merlion Quay Bank Ltd. Co. Reg. No. 199904417Z.",
    )
    pdf.add_page()
    _card_summary_page(pdf, s, s.card)
    pdf.add_page()
    _card_brand(pdf, "Credit Card Statement")
    pdf.put(
        MARGIN,
        24,
        f"Visa Platinum ending in {CARD_NO[-4:]} · Statement date {_card_date(s.end)}",
        size=8.5,
    )
    pdf.put(MARGIN, 34, "Transaction details", size=11, style="B", h=6)
    pdf.set_fill_color(244, 228, 232)
    pdf.put(MARGIN, 41, "Date", w=22, size=8.5, style="B", fill=True, h=6)
    pdf.put(37, 41, "Description", w=118, size=8.5, style="B", fill=True, h=6)
    pdf.put(155, 41, "Amount (S$)", w=40, size=8.5, style="B", align="R", fill=True, h=6)
    y = 49.0
    pdf.put(37, y, "PREVIOUS BALANCE", size=8.5, style="B", h=CARD_LINE)
    pdf.put(155, y, _en(-s.opening), w=40, size=8.5, style="B", align="R", h=CARD_LINE)
    y += CARD_LINE + 1
    for entry in s.entries:
        pdf.put(MARGIN, y, _day_mon(entry.day), w=22, size=8.5, h=CARD_LINE)
        for n, line in enumerate(entry.lines):
            pdf.put(37, y + n * CARD_LINE, line, w=118, size=8.5 if n == 0 else 7.5, h=CARD_LINE)
        pdf.put(155, y, _card_amount(entry.amount), w=40, size=8.5, align="R", h=CARD_LINE)
        y += len(entry.lines) * CARD_LINE + 0.6
    pdf.rule(y + 1)
    pdf.put(37, y + 2, "NEW BALANCE", size=9, style="B", h=CARD_LINE)
    pdf.put(155, y + 2, _en(-s.closing), w=40, size=9, style="B", align="R", h=CARD_LINE)
    pdf.set_xy(MARGIN, y + 12)
    pdf.set_font("Helvetica", "", 7.5)
    pdf.multi_cell(
        180,
        3.8,
        "When the previous balance is not paid in full by the payment due date, interest is "
        f"charged at the Purchase APR of {s.card.apr}% a year on the balance owed each day until "
        "it is paid. Transactions in foreign currencies are converted to S$ "
        "at the card scheme's rate on the day they post, plus a conversion fee of 1%.",
        align="L",
    )
    return bytes(pdf.output())


def _card_brand(pdf: _Doc, title: str) -> None:
    pdf.set_text_color(*CARD_COLOUR)
    pdf.put(MARGIN, 12, CARD_BANK, size=17, style="B", h=8)
    pdf.set_text_color(0, 0, 0)
    pdf.put(120, 13, title, w=75, size=12, style="B", align="R")


def _card_summary_page(pdf: _Doc, s: Statement, terms: CardTerms) -> None:
    _card_brand(pdf, "Credit Card Statement")
    pdf.put(120, 19, "Visa Platinum", w=75, size=9, align="R")
    for n, line in enumerate((CARD_HOLDER, "8 KINGFISHER WALK #12-34", "SINGAPORE 999417")):
        pdf.put(MARGIN, 32 + n * 4.6, line, size=9.5)
    owed = -s.closing
    details = (
        ("Statement date", _card_date(s.end)),
        ("Payment due date", _card_date(terms.due)),
        ("Credit limit", _sgd(terms.credit_limit)),
        ("Available credit", _sgd(terms.credit_limit - owed)),
        ("Card number", f"ending in {CARD_NO[-4:]}"),
    )
    pdf.set_draw_color(*CARD_COLOUR)
    pdf.rect(115, 29, 80, 27)
    pdf.pairs(118, 193, 30.5, details, step=4.9)
    pdf.bar(MARGIN, 64, 180, "Account summary", CARD_COLOUR)
    summary = (
        ("Previous balance", _sgd(-s.opening)),
        ("Payments and credits", f"{_sgd(s.total(Kind.DEPOSIT, Kind.REFUND))} CR"),
        ("Purchases", _sgd(s.total(Kind.PURCHASE))),
        ("Fees", _sgd(s.total(Kind.FEE))),
        ("Interest charged", _sgd(s.total(Kind.INTEREST))),
        ("Total amount due", _sgd(owed)),
    )
    for n, (label, value) in enumerate(summary):
        x = MARGIN + n * 30
        pdf.put(x, 72, label, w=30, size=7.5, style="B", align="C")
        pdf.put(x, 77, value, w=30, size=8.5, align="C")
    pdf.rule(84)
    pdf.set_fill_color(244, 228, 232)
    pdf.put(MARGIN, 90, "Minimum payment", w=60, size=10, style="B", fill=True, h=7)
    pdf.put(
        75, 90, _sgd(terms.minimum_payment), w=40, size=10, style="B", fill=True, h=7, align="R"
    )
    pdf.put(MARGIN, 97, "Total amount due", w=60, size=10, style="B", fill=True, h=7)
    pdf.put(75, 97, _sgd(owed), w=40, size=10, style="B", fill=True, h=7, align="R")
    pdf.put(MARGIN, 104, "Payment due date", w=60, size=10, style="B", fill=True, h=7)
    pdf.put(75, 104, _card_date(terms.due), w=40, size=10, style="B", fill=True, h=7, align="R")
    pdf.put(122, 90, f"Purchase APR {terms.apr}%", size=9, style="B")
    pdf.put(122, 95, "Cash advance APR 28.00%", size=9)
    pdf.put(122, 100, "Late payment fee S$100.00", size=9)
    pdf.set_xy(MARGIN, 118)
    pdf.set_font("Helvetica", "B", 9)
    pdf.cell(180, 5, "Minimum payment warning")
    pdf.set_xy(MARGIN, 124)
    pdf.set_font("Helvetica", "", 8)
    pdf.multi_cell(
        180,
        4,
        "If you make only the minimum payment each month, you will pay more in interest and it "
        "will take you longer to pay off your balance. Pay the total amount due by the payment "
        "due date to avoid interest on new purchases.",
        align="L",
    )
    pdf.set_draw_color(150, 150, 150)
    pdf.set_dash_pattern(dash=1.5, gap=1.5)
    pdf.line(MARGIN, 214, 195, 214)
    pdf.set_dash_pattern()
    pdf.put(MARGIN, 216, "Please detach and return this slip with your payment", size=7)
    pdf.put(MARGIN, 224, f"{CARD_BANK} Visa Platinum", size=10, style="B")
    slip = (
        ("Card number", f"ending in {CARD_NO[-4:]}"),
        ("Name", CARD_HOLDER),
        ("Total amount due", _sgd(owed)),
        ("Minimum payment", _sgd(terms.minimum_payment)),
        ("Payment due date", _card_date(terms.due)),
        ("Amount paid", "S$ ____________________"),
    )
    for n, (label, value) in enumerate(slip):
        pdf.put(MARGIN, 232 + n * 5.5, label, size=9)
        pdf.put(70, 232 + n * 5.5, value, size=9)


# --- layout 5: European number formats -------------------------------------------------------

EU_COLOUR = (226, 112, 0)
EU_LINE = 4.3
EU_DATE = (MARGIN, 22.0)
EU_DESC = (37.0, 110.0)
EU_DEBIT = (147.0, 24.0)
EU_CREDIT = (171.0, 24.0)


def _write_eu(s: Statement) -> bytes:
    pdf = _Doc(
        s,
        "A4",
        "Page {page} of {nb}",
        "Polderhaven Bank N.V., Keizersdijk 80, 1099 ZX Amsterdam. Chamber of Commerce 99041772.",
    )
    pdf.add_page()
    pdf.set_text_color(*EU_COLOUR)
    pdf.put(MARGIN, 12, EU_BANK, size=18, style="B", h=8)
    pdf.set_text_color(0, 0, 0)
    pdf.put(120, 13, "Statement of account", w=75, size=12, style="B", align="R")
    pdf.put(120, 19, f"Statement no. {s.start.month} / {s.start.year}", w=75, size=8.5, align="R")
    for n, line in enumerate((EU_HOLDER, "Oeverpad 17-2", "1099 ZX Amsterdam")):
        pdf.put(MARGIN, 32 + n * 4.6, line, size=9.5)
    details = (
        ("Account", _grouped(EU_IBAN)),
        ("Account holder", EU_HOLDER),
        ("Currency", "EUR"),
        ("Period", f"{s.start:%d-%m-%Y} to {s.end:%d-%m-%Y}"),
    )
    pdf.pairs(115, 195, 32, details)
    pdf.set_fill_color(253, 236, 218)
    balances = (
        ("Beginsaldo", s.start - timedelta(days=1), _eu(s.opening)),
        ("Total debit", None, _eu(s.money_out)),
        ("Total credit", None, _eu(s.money_in)),
        ("Eindsaldo", s.end, _eu(s.closing)),
    )
    for n, (label, day, value) in enumerate(balances):
        y = 56 + n * 5.5
        style = "B" if day else ""
        pdf.put(MARGIN, y, label, w=60, size=9, style=style, fill=bool(day), h=5)
        pdf.put(75, y, f"{day:%d-%m-%Y}" if day else "", w=30, size=9, fill=bool(day), h=5)
        pdf.put(105, y, value, w=30, size=9, style=style, align="R", fill=bool(day), h=5)
    pdf.set_fill_color(*EU_COLOUR)
    pdf.set_text_color(255, 255, 255)
    heads = (
        ("Date", *EU_DATE, "L"),
        ("Description", *EU_DESC, "L"),
        ("Debit", *EU_DEBIT, "R"),
        ("Credit", *EU_CREDIT, "R"),
    )
    for title, x, w, align in heads:
        pdf.put(x, 84, title, w=w, size=8.5, style="B", align=align, fill=True, h=6)
    pdf.set_text_color(0, 0, 0)
    y = 92.0
    for entry in s.entries:
        pdf.put(EU_DATE[0], y, f"{entry.day:%d-%m-%Y}", w=EU_DATE[1], size=8, h=EU_LINE)
        for n, line in enumerate(entry.lines):
            pdf.put(EU_DESC[0], y + n * EU_LINE, line, w=EU_DESC[1], size=8, h=EU_LINE)
        x, w = EU_DEBIT if entry.amount < 0 else EU_CREDIT
        pdf.put(x, y, _eu(abs(entry.amount)), w=w, size=8, align="R", h=EU_LINE)
        y += len(entry.lines) * EU_LINE + 0.8
        pdf.rule(y - 0.4)
    pdf.put(EU_DESC[0], y + 1, "Eindsaldo", size=9, style="B")
    pdf.put(EU_CREDIT[0], y + 1, _eu(s.closing), w=EU_CREDIT[1], size=9, style="B", align="R")
    return bytes(pdf.output())


# --- layout 7: a New Zealand everyday account -------------------------------------------------

NZ_BANK = "Kauri Coast Bank"
NZ_HOLDER = "MR TAMATI HENARE-COLLINS"
NZ_ACCOUNT_NO = "12-3140-0845517-00"
NZ_COLOUR = (0, 84, 64)
NZ_LINE = 4.6
NZ_SHOPS = (
    Shop("Four Square", ("FOUR SQUARE DEVONPORT",), 18, 120),
    Shop("Farro Fresh", ("FARRO FRESH GREY LYNN",), 12, 95),
    Shop("Caltex", ("CALTEX TAKAPUNA",), 45, 110),
    Shop("Kmart", ("KMART SYLVIA PARK",), 9, 70),
    Shop("Columbus Coffee", ("COLUMBUS COFFEE NEWMARKET",), 4, 9),
)


def _nz_statement(rng: random.Random) -> Statement:
    """February of a non-leap year, rows signed only by the summary's money in and out."""
    start, end = date(2023, 2, 1), date(2023, 2, 28)
    entries = [
        Entry(
            _on(start, end, 15), _amount(rng, 2600, 2900), ("SALARY TAIRAWHITI LTD",), Kind.DEPOSIT
        ),
        Entry(
            date(2023, 2, 2), Decimal(-rng.choice((520, 560, 610))), ("RENT H PARATA",), Kind.BILL
        ),
        Entry(
            date(2023, 2, 9),
            _amount(rng, 15, 45),
            ("REFUND KMART",),
            Kind.REFUND,
            "Kmart",
        ),
        Entry(date(2023, 2, 20), -_amount(rng, 60, 95), ("MERCURY ENERGY",), Kind.BILL),
        Entry(date(2023, 2, 22), Decimal("-40.00"), ("SPARK NZ",), Kind.BILL, misprinted="4O.00"),
        Entry(
            date(2023, 2, 28),
            Decimal("-5.00"),
            ("MONTHLY ACCOUNT FEE",),
            Kind.FEE,
            printed_day="29 Feb",
        ),
    ]
    for shop in _visits(rng, NZ_SHOPS, rng.randint(12, 15)):
        entries.append(
            Entry(
                _day(rng, start, date(2023, 2, 27)),
                -_amount(rng, shop.low, shop.high),
                (rng.choice(shop.descriptors),),
                Kind.PURCHASE,
                shop.merchant,
            )
        )
    ordered = _by_day(entries)
    return Statement(
        "nz_everyday",
        "nz_everyday_2023-02.pdf",
        NZ_BANK,
        NZ_ACCOUNT_NO,
        "NZD",
        start,
        end,
        _cushion(rng, ordered),
        ordered,
        NZ_SHOPS[0].merchant,
        pages=1,
    )


def _write_nz(s: Statement) -> bytes:
    pdf = _Doc(s, "A4", "Page {page} of {nb}", "Kauri Coast Bank Limited. kauricoastbank.co.nz")
    pdf.add_page()
    pdf.set_text_color(*NZ_COLOUR)
    pdf.put(MARGIN, 12, NZ_BANK, size=18, style="B", h=8)
    pdf.set_text_color(0, 0, 0)
    pdf.put(120, 13, "Everyday Account statement", w=75, size=12, style="B", align="R")
    for n, line in enumerate((NZ_HOLDER, "14 Rata Street", "Birkenhead, Auckland 0626")):
        pdf.put(MARGIN, 30 + n * 4.6, line, size=9.5)
    pdf.put(115, 30, f"Account number {NZ_ACCOUNT_NO}", size=9)
    pdf.put(
        115,
        34.6,
        f"From {s.start.day} February {s.start.year} to {s.end.day} February {s.end.year}",
        size=9,
    )
    # The summary: each label over its value, "Fees and charges" over two lines.
    labels = (
        (("Opening balance",), s.opening),
        (("Money in",), s.money_in),
        (("Money out",), s.money_out),
        (("Fees and", "charges"), s.total(Kind.FEE)),
        (("Closing balance",), s.closing),
    )
    pdf.bar(MARGIN, 50, 180, "Your account summary", NZ_COLOUR)
    for n, (lines, value) in enumerate(labels):
        x = MARGIN + n * 36
        for k, line in enumerate(lines):
            pdf.put(x, 59 + k * 4, line, w=36, size=8, style="B", align="C")
        pdf.put(x, 67, _en(value), w=36, size=9, align="C")
    pdf.rule(75)
    pdf.set_fill_color(*NZ_COLOUR)
    pdf.set_text_color(255, 255, 255)
    for title, x, w, align in (
        ("Date", MARGIN, 22, "L"),
        ("Details", 37, 120, "L"),
        ("Amount", 157, 38, "R"),
    ):
        pdf.put(x, 80, title, w=w, size=8.5, style="B", align=align, fill=True, h=6)
    pdf.set_text_color(0, 0, 0)
    y, last = 88.0, None
    for entry in s.entries:
        day = entry.printed_day or _day_mon(entry.day)
        if day != last:  # the date on a day's first row only
            pdf.put(MARGIN, y, day, w=22, size=8.5, h=NZ_LINE)
            last = day
        pdf.put(37, y, entry.lines[0], w=120, size=8.5, h=NZ_LINE)
        amount = entry.misprinted or _en(abs(entry.amount))
        pdf.put(157, y, amount, w=38, size=8.5, align="R", h=NZ_LINE)
        y += NZ_LINE + 0.6
    return bytes(pdf.output())


# --- layout 6: scanned ------------------------------------------------------------------------


def _write_scan(source: bytes, skew: float) -> bytes:
    """``source`` as a scanner would give it back: grey page images, slightly skewed, with no
    text layer."""
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_creation_date(PDF_TIMESTAMP)
    pdf.set_creator("Flatbed scan")
    pdf.set_auto_page_break(auto=False)
    document = pdfium.PdfDocument(source)
    try:
        for page in document:
            image = page.render(scale=SCAN_DPI / 72, grayscale=True).to_pil().convert("L")
            image = image.rotate(skew, resample=Image.Resampling.BICUBIC, fillcolor=255)
            image = image.point(lambda v: 34 + v * 212 // 255)  # paper grey, toner not black
            buffer = io.BytesIO()
            image.save(buffer, format="JPEG", quality=70)
            pdf.add_page()
            pdf.image(buffer, x=0, y=0, w=pdf.w, h=pdf.h)
    finally:
        document.close()
    return bytes(pdf.output())
