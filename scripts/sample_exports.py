"""Sample bank exports in the layouts real banks use, with the truth they must answer to.

Each export is one account at one bank over three months, written in that bank's own format:
an ING-DiBa CSV (Latin-1, ``;``, a preamble, ``DD.MM.YYYY``, decimal comma), a Lloyds CSV
(separate debit and credit columns), a Halifax card CSV (spend shown positive), an OFX 1.x
statement, a CAMT.053 statement, an MT940 statement, and three layouts no profile names: a
French bank's headerless ``;`` download with card, direct-debit and cheque descriptors, a Russian
bank's Windows-1251 CSV with Russian column names, and a US credit union's QIF with cheque
numbers. The ING and MT940 accounts send each
other money, so the pair is a transfer between the user's own accounts. ``truth.json`` states
what a user would ask of each file, computed from the ledger the files were written from.

Usage: ``finsync sample`` writes them to ``<out>/exports``; tests ingest them separately from
the main sample set, whose answers stay in US dollars.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from xml.sax.saxutils import escape

FIRST_DAY = date(2025, 1, 1)
MONTHS = 3
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Row:
    day: date
    amount: Decimal  # signed: negative is money out
    payee: str
    descriptor: str  # what the bank prints
    is_transfer: bool = False


@dataclass(frozen=True)
class ExportAccount:
    key: str  # the export's file stem
    bank: str
    account_no: str
    currency: str
    opening: Decimal
    writer: Callable[[ExportAccount, list[Row], Path], None]
    merchants: tuple[tuple[str, str, int, int], ...]  # payee, descriptor, min, max (whole units)
    salary: tuple[str, str, int]
    spend_positive: bool = False  # a card export: purchases are positive, payments negative
    account_name: str = ""  # given with --account-name where the file names no account
    flags: tuple[tuple[str, str], ...] = ()  # other values the file lacks: ``finsync ingest``


def _money(rng: random.Random, low: int, high: int) -> Decimal:
    return (Decimal(rng.randint(low * 100, high * 100)) / 100).quantize(CENT)


def _ledger(rng: random.Random, account: ExportAccount) -> list[Row]:
    rows: list[Row] = []
    for month in range(MONTHS):
        first = date(FIRST_DAY.year, FIRST_DAY.month + month, 1)
        if not account.spend_positive:
            payee, descriptor, amount = account.salary
            rows.append(
                Row(first + timedelta(days=rng.randint(0, 2)), Decimal(amount), payee, descriptor)
            )
        for _ in range(6):
            payee, descriptor, low, high = rng.choice(account.merchants)
            day = first + timedelta(days=rng.randint(3, 27))
            rows.append(Row(day, -_money(rng, low, high), payee, descriptor))
        if account.spend_positive:
            paid = sum((-r.amount for r in rows if r.day.month == first.month), Decimal(0))
            rows.append(
                Row(first + timedelta(days=27), paid, "", "PAYMENT RECEIVED - THANK YOU", True)
            )
    return sorted(rows, key=lambda r: (r.day, r.descriptor))


def _transfer(ing: list[Row], mt940: list[Row]) -> None:
    """The same move seen from both own accounts: out of one, into the other, a day later."""
    amount = Decimal("250.00")
    ing.append(Row(date(2025, 2, 14), -amount, "", "Umbuchung auf Tagesgeld", True))
    mt940.append(Row(date(2025, 2, 15), amount, "", "SEPA GUTSCHRIFT E MUSTERMANN", True))
    ing.sort(key=lambda r: (r.day, r.descriptor))
    mt940.sort(key=lambda r: (r.day, r.descriptor))


def _de(value: Decimal) -> str:
    """``-1.234,56``: German thousands dots and decimal comma."""
    text = f"{value:,.2f}"
    return text.replace(",", "_").replace(".", ",").replace("_", ".")


def _balances(account: ExportAccount, rows: list[Row]) -> list[Decimal]:
    balance, out = account.opening, []
    for row in rows:
        balance += row.amount
        out.append(balance)
    return out


def _write_ing(account: ExportAccount, rows: list[Row], path: Path) -> None:
    last = rows[-1].day
    lines = [
        "Umsatzanzeige;Datei erstellt am: 02.04.2025 10:00",
        "",
        f"IBAN;{account.account_no}",
        "Kontoname;Girokonto",
        "Bank;ING",
        "Kunde;Erika Mustermann",
        f"Zeitraum;{FIRST_DAY:%d.%m.%Y} - {last:%d.%m.%Y}",
        f"Saldo;{_de(_balances(account, rows)[-1])};EUR",
        "",
        "Sortierung;Datum absteigend",
        "",
        "In der CSV-Datei finden Sie alle bereits gebuchten Umsätze.",
        "",
        "Buchung;Valuta;Auftraggeber/Empfänger;Buchungstext;Verwendungszweck;Saldo;Währung;"
        "Betrag;Währung",
    ]
    for row, balance in reversed(list(zip(rows, _balances(account, rows), strict=True))):
        kind = "Gehalt/Rente" if row.amount > 0 else "Lastschrift"
        lines.append(
            f"{row.day:%d.%m.%Y};{row.day:%d.%m.%Y};{row.payee};{kind};{row.descriptor};"
            f"{_de(balance)};EUR;{_de(row.amount)};EUR"
        )
    path.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))


def _write_headerless_fr(account: ExportAccount, rows: list[Row], path: Path) -> None:
    """Account; date; label; reference; amount; (empty) — no header row, as French banks'
    downloads come."""
    lines = [
        f"{account.account_no};{row.day:%d/%m/%Y};{row.descriptor};{7000 + n:07d};"
        f"{_de(row.amount)};"
        for n, row in enumerate(reversed(rows))
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_cp1251(account: ExportAccount, rows: list[Row], path: Path) -> None:
    """Russian column names, Windows-1251, ``;``, DD.MM.YYYY, decimal comma, a balance."""
    lines = ["Дата операции;Описание операции;Сумма;Валюта;Остаток"]
    for row, balance in zip(rows, _balances(account, rows), strict=True):
        lines.append(f"{row.day:%d.%m.%Y};{row.descriptor};{_de(row.amount)};RUB;{_de(balance)}")
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("cp1251"))


def _write_qif(account: ExportAccount, rows: list[Row], path: Path) -> None:
    """Quicken's bank format: month-first two-digit-year dates, a cheque number on cheques."""
    lines = ["!Type:Bank"]
    for n, row in enumerate(rows):
        lines += [f"D{row.day.month}/{row.day.day}/{row.day:%y}", f"T{row.amount:,.2f}"]
        if row.descriptor.startswith("CHECK"):
            lines.append(f"N{1001 + n}")
        lines += [f"P{row.payee or row.descriptor}", f"M{row.descriptor}", "^"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_lloyds(account: ExportAccount, rows: list[Row], path: Path) -> None:
    sort_code, number = account.account_no.split(" ", 1)
    lines = [
        "Transaction Date,Transaction Type,Sort Code,Account Number,Transaction Description,"
        "Debit Amount,Credit Amount,Balance"
    ]
    for row, balance in reversed(list(zip(rows, _balances(account, rows), strict=True))):
        debit = f"{-row.amount:.2f}" if row.amount < 0 else ""
        credit = f"{row.amount:.2f}" if row.amount > 0 else ""
        kind = "FPI" if row.amount > 0 else "DEB"
        lines.append(
            f"{row.day:%d/%m/%Y},{kind},'{sort_code},{number},{row.descriptor},{debit},{credit},"
            f"{balance:.2f}"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_halifax(account: ExportAccount, rows: list[Row], path: Path) -> None:
    lines = ["Date,Date entered,Reference,Description,Amount"]
    for n, row in enumerate(reversed(rows)):
        entered = row.day + timedelta(days=1)
        lines.append(
            f"{row.day:%d/%m/%Y},{entered:%d/%m/%Y},{9900000 + n},{row.descriptor},"
            f"{-row.amount:.2f}"  # the card prints purchases positive
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_ofx(account: ExportAccount, rows: list[Row], path: Path) -> None:
    closing = _balances(account, rows)[-1]
    entries = "".join(
        f"<STMTTRN><TRNTYPE>{'CREDIT' if r.amount > 0 else 'DEBIT'}"
        f"<DTPOSTED>{r.day:%Y%m%d}120000<TRNAMT>{r.amount:.2f}<FITID>{account.key}{n:05d}"
        f"<NAME>{escape(r.descriptor[:32])}</STMTTRN>\n"
        for n, r in enumerate(rows)
    )
    last = rows[-1].day
    text = (
        "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\n"
        "CHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n"
        "<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS>"
        f"<DTSERVER>{last:%Y%m%d}<LANGUAGE>ENG<FI><ORG>{account.bank}<FID>1001</FI></SONRS>"
        "</SIGNONMSGSRSV1>\n<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO"
        f"</STATUS><STMTRS><CURDEF>{account.currency}<BANKACCTFROM><BANKID>121000358"
        f"<ACCTID>{account.account_no}<ACCTTYPE>CHECKING</BANKACCTFROM>\n"
        f"<BANKTRANLIST><DTSTART>{FIRST_DAY:%Y%m%d}<DTEND>{last:%Y%m%d}\n{entries}"
        f"</BANKTRANLIST><LEDGERBAL><BALAMT>{closing:.2f}<DTASOF>{last:%Y%m%d}</LEDGERBAL>"
        "</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"
    )
    path.write_text(text, encoding="ascii")


def _write_camt(account: ExportAccount, rows: list[Row], path: Path) -> None:
    closing = _balances(account, rows)[-1]
    last = rows[-1].day

    def balance(code: str, amount: Decimal, day: date) -> str:
        sign = "CRDT" if amount >= 0 else "DBIT"
        return (
            f"<Bal><Tp><CdOrPrtry><Cd>{code}</Cd></CdOrPrtry></Tp>"
            f'<Amt Ccy="{account.currency}">{abs(amount):.2f}</Amt><CdtDbtInd>{sign}</CdtDbtInd>'
            f"<Dt><Dt>{day.isoformat()}</Dt></Dt></Bal>"
        )

    entries = []
    for n, r in enumerate(rows, start=1):
        sign, party = ("CRDT", "Dbtr") if r.amount > 0 else ("DBIT", "Cdtr")
        entries.append(
            f'<Ntry><Amt Ccy="{account.currency}">{abs(r.amount):.2f}</Amt>'
            f"<CdtDbtInd>{sign}</CdtDbtInd><Sts>BOOK</Sts>"
            f"<BookgDt><Dt>{r.day.isoformat()}</Dt></BookgDt><ValDt><Dt>{r.day.isoformat()}</Dt>"
            f"</ValDt><AcctSvcrRef>{account.key.upper()}{n:05d}</AcctSvcrRef><NtryDtls><TxDtls>"
            f"<RltdPties><{party}><Nm>{escape(r.payee or r.descriptor)}</Nm></{party}></RltdPties>"
            f"<RmtInf><Ustrd>{escape(r.descriptor)}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>"
        )
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">'
        "<BkToCstmrStmt><GrpHdr><MsgId>FINSYNC-SAMPLE-1</MsgId>"
        f"<CreDtTm>{last.isoformat()}T18:00:00</CreDtTm></GrpHdr><Stmt><Id>STMT-1</Id>"
        f"<CreDtTm>{last.isoformat()}T18:00:00</CreDtTm><FrToDt>"
        f"<FrDtTm>{FIRST_DAY.isoformat()}T00:00:00</FrDtTm><ToDtTm>{last.isoformat()}T23:59:59"
        f"</ToDtTm></FrToDt><Acct><Id><IBAN>{account.account_no}</IBAN></Id>"
        f"<Ccy>{account.currency}</Ccy><Svcr><FinInstnId><BIC>RABONL2U</BIC>"
        f"<Nm>{account.bank}</Nm></FinInstnId></Svcr></Acct>"
        + balance("OPBD", account.opening, FIRST_DAY)
        + balance("CLBD", closing, last)
        + "".join(entries)
        + "</Stmt></BkToCstmrStmt></Document>\n"
    )
    path.write_text(text, encoding="utf-8")


def _mt940_amount(value: Decimal) -> str:
    return f"{abs(value):.2f}".replace(".", ",")


def _write_mt940(account: ExportAccount, rows: list[Row], path: Path) -> None:
    closing = _balances(account, rows)[-1]
    last = rows[-1].day
    blz, number = account.account_no.split("/")
    lines = [
        ":20:STARTUMSE",
        f":25:{blz}/{number}",
        ":28C:00001/001",
        f":60F:C{FIRST_DAY - timedelta(days=1):%y%m%d}EUR{_mt940_amount(account.opening)}",
    ]
    for r in rows:
        mark = "C" if r.amount > 0 else "D"
        lines.append(f":61:{r.day:%y%m%d}{r.day:%m%d}{mark}{_mt940_amount(r.amount)}NMSCNONREF")
        code = "166" if r.amount > 0 else "105"
        lines.append(f":86:{code}?00{'GUTSCHRIFT' if r.amount > 0 else 'LASTSCHRIFT'}")
        lines.append(f"?20{r.descriptor[:27]}")
        if r.payee:
            lines.append(f"?32{r.payee[:27]}")
    lines.append(f":62F:C{last:%y%m%d}EUR{_mt940_amount(closing)}")
    lines.append("-")
    path.write_text("\r\n".join(lines) + "\r\n", encoding="latin-1")


ACCOUNTS = (
    ExportAccount(
        "ing_girokonto",
        "ING",
        "DE12500105170648489890",
        "EUR",
        Decimal("1200.00"),
        _write_ing,
        (
            ("REWE Markt GmbH", "VISA REWE SAGT DANKE 4711 BERLIN", 18, 95),
            ("Lidl", "VISA LIDL DIENSTL. BERLIN DE", 9, 60),
            ("Lieferando", "LIEFERANDO.DE ONLINE-BESTELLUNG", 15, 45),
            ("Deutsche Bahn", "DB VERTRIEB GMBH FAHRKARTE", 25, 120),
        ),
        ("Muster Software GmbH", "Gehalt Januar bis Maerz", 3100),
    ),
    ExportAccount(
        "lloyds_current",
        "Lloyds Bank",
        "30-99-50 12345678",
        "GBP",
        Decimal("900.00"),
        _write_lloyds,
        (
            ("Tesco", "TESCO STORES 2231 LONDON", 12, 80),
            ("Pret A Manger", "PRET A MANGER KINGS X", 4, 14),
            ("TfL", "TFL TRAVEL CH TFL.GOV.UK/CP", 3, 12),
            ("British Gas", "BRITISH GAS DD", 60, 60),
        ),
        ("Acme Widgets Ltd", "ACME WIDGETS LTD SALARY", 2600),
        account_name="Lloyds Current",
        flags=(("bank", "Lloyds Bank"), ("currency", "GBP")),
    ),
    ExportAccount(
        "halifax_card",
        "Halifax",
        "",
        "GBP",
        Decimal("0.00"),
        _write_halifax,
        (
            ("Amazon", "AMAZON.CO.UK*2K3LM45", 8, 90),
            ("Sainsbury's", "SAINSBURYS S/MKTS 0421 LONDON", 10, 70),
            ("Deliveroo", "DELIVEROO LONDON", 12, 35),
        ),
        ("", "", 0),
        spend_positive=True,
        account_name="Halifax Clarity",
        flags=(("bank", "Halifax"), ("currency", "GBP")),
    ),
    ExportAccount(
        "northwind_checking",
        "Northwind Credit Union",
        "000123456789",
        "USD",
        Decimal("2500.00"),
        _write_ofx,
        (
            ("Safeway", "SAFEWAY #1552 OAKLAND CA", 20, 140),
            ("Netflix", "NETFLIX.COM 866-579-7172 CA", 15, 15),
            ("Shell", "SHELL OIL 57442131 OAKLAND CA", 30, 70),
        ),
        ("Globex Corp", "GLOBEX CORP PAYROLL", 4200),
        account_name="Northwind Checking",
    ),
    ExportAccount(
        "rabobank_zakelijk",
        "Rabobank",
        "NL91RABO0315273637",
        "EUR",
        Decimal("5000.00"),
        _write_camt,
        (
            ("Albert Heijn", "ALBERT HEIJN 1234 AMSTERDAM", 15, 90),
            ("NS Reizigers", "NS REIZIGERS BV UTRECHT", 8, 60),
            ("KPN", "KPN B.V. ABONNEMENT", 45, 45),
        ),
        ("Initech BV", "Factuur 2025 Initech BV", 3800),
        account_name="Rabo Zakelijk",
    ),
    ExportAccount(
        "sparkasse_tagesgeld",
        "Sparkasse Musterstadt",
        "50010517/0648489890",
        "EUR",
        Decimal("8000.00"),
        _write_mt940,
        (
            ("Stadtwerke Musterstadt", "STADTWERKE ABSCHLAG STROM", 70, 70),
            ("Aldi", "ALDI SUED FILIALE 112", 10, 70),
        ),
        ("Zinsgutschrift", "ZINSEN TAGESGELD", 12),
        account_name="Tagesgeld",
        flags=(("bank", "Sparkasse Musterstadt"),),
    ),
    ExportAccount(
        "banque_compte_courant",
        "Banque Populaire",
        "04581234567",
        "EUR",
        Decimal("1800.00"),
        _write_headerless_fr,
        (
            ("Carrefour", "CARTE 12/03 CARREFOUR MARKET LYON", 20, 110),
            ("EDF", "PRLV SEPA EDF CLIENTS PARTICULIERS", 65, 65),
            ("Boulangerie Paul", "CARTE 08/03 BOULANGERIE PAUL", 3, 12),
            ("Cheque", "CHEQUE 0001234", 40, 150),
        ),
        ("Société Générale Assurances", "VIR SEPA SALAIRE SGA", 2900),
        account_name="Compte courant",
        flags=(("bank", "Banque Populaire"), ("currency", "EUR")),
    ),
    ExportAccount(
        "sber_karta",
        "Sberbank",
        "",
        "RUB",
        Decimal("45000.00"),
        _write_cp1251,
        (
            ("Пятёрочка", "Пятёрочка Москва", 300, 2500),
            ("Яндекс Такси", "Яндекс Такси", 200, 900),
            ("МТС", "МТС оплата связи", 500, 500),
        ),
        ("ООО Ромашка", "Зарплата ООО Ромашка", 85000),
        account_name="Карта Сбербанк",
        flags=(("bank", "Sberbank"),),
    ),
    ExportAccount(
        "harbor_credit_union",
        "Harbor Credit Union",
        "",
        "USD",
        Decimal("1500.00"),
        _write_qif,
        (
            ("Trader Joe's", "TRADER JOE'S #552 PORTLAND OR", 25, 130),
            ("Portland General Electric", "CHECK PORTLAND GENERAL ELECTRIC", 80, 140),
            ("Chevron", "CHEVRON 0093412 PORTLAND OR", 30, 65),
        ),
        ("Acme Logistics", "ACME LOGISTICS PAYROLL", 3900),
        account_name="Harbor Checking",
        flags=(("bank", "Harbor Credit Union"), ("currency", "USD")),
    ),
)
EXTENSIONS = {
    _write_ing: "csv",
    _write_lloyds: "csv",
    _write_halifax: "csv",
    _write_ofx: "ofx",
    _write_camt: "xml",
    _write_mt940: "sta",
    _write_headerless_fr: "csv",
    _write_cp1251: "csv",
    _write_qif: "qif",
}


def _truth(account: ExportAccount, rows: list[Row], file_name: str) -> dict[str, object]:
    spend = [-r.amount for r in rows if r.amount < 0 and not r.is_transfer]
    income = [r.amount for r in rows if r.amount > 0 and not r.is_transfer]
    if account.spend_positive:  # the card's payments move money between own accounts
        spend = [-r.amount for r in rows if r.amount < 0]
    merchants: dict[str, Decimal] = {}
    for r in rows:
        if r.amount < 0 and r.payee:
            merchants[r.payee] = merchants.get(r.payee, Decimal(0)) - r.amount
    truth: dict[str, object] = {
        "file": file_name,
        "account": account.account_name or "Girokonto",  # ING's preamble names it
        "flags": dict(account.flags)
        | ({"account-name": account.account_name} if account.account_name else {}),
        "bank": account.bank,
        "currency": account.currency,
        "transactions": len(rows),
        "first_date": rows[0].day.isoformat(),
        "last_date": rows[-1].day.isoformat(),
        "spend": f"{sum(spend, Decimal(0)):.2f}",
        "income": f"{sum(income, Decimal(0)):.2f}",
        "spend_at": {payee: f"{total:.2f}" for payee, total in sorted(merchants.items())},
        "transfers": sum(r.is_transfer for r in rows),
    }
    if account.writer in (_write_ofx, _write_camt, _write_mt940):
        truth["closing_balance"] = f"{_balances(account, rows)[-1]:.2f}"
    if account.writer in (_write_camt, _write_mt940):
        truth["opening_balance"] = f"{account.opening:.2f}"
    return truth


def generate_exports(out: Path, seed: int = 7) -> list[Path]:
    """Write every export and ``truth.json`` under ``out``; the same seed, the same bytes."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    ledgers = {account.key: _ledger(rng, account) for account in ACCOUNTS}
    _transfer(ledgers["ing_girokonto"], ledgers["sparkasse_tagesgeld"])
    truths, paths = [], []
    for account in ACCOUNTS:
        path = out / f"{account.key}.{EXTENSIONS[account.writer]}"
        account.writer(account, ledgers[account.key], path)
        truths.append(_truth(account, ledgers[account.key], path.name))
        paths.append(path)
    (out / "truth.json").write_text(json.dumps(truths, indent=2, ensure_ascii=False) + "\n")
    return paths
