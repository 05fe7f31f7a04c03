"""OFX and QFX statements: OFX 1.x (SGML) and 2.x (XML), bank and credit-card accounts.

ofxparse builds the element tree and reads each transaction; this module decides the text
encoding, evens out closing tags, and reads the few fields ofxparse drops or alters (dates as
printed, a separate payee, a per-transaction currency).
"""

from __future__ import annotations

import codecs
import io
import re
from datetime import date
from decimal import Decimal
from pathlib import Path

from bs4 import BeautifulSoup
from bs4.element import Tag
from ofxparse.ofxparse import (
    Account,
    AccountType,
    OfxParser,
    OfxParserException,
    OfxPreprocessedFile,
    Transaction,
    soup_maker,
)

from elastic.ingest import payment_kinds
from elastic.ingest.parsed import (
    AccountValues,
    BalanceFact,
    ParsedFile,
    ParsedRow,
    UnreadableFile,
    collapse,
    drop_shared_ids,
    exact_cents,
    set_file_level,
)
from elastic.model.records import IngestProblem

FORMAT = "ofx"

_SIGNATURE = re.compile(rb"\A\s*OFXHEADER\s*:|<\?OFX\s|<OFX\s*>", re.IGNORECASE)
_OFX_START = re.compile(r"<OFX\s*>", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"<\?xml[^>]*encoding\s*=\s*[\"']([\w.:-]+)", re.IGNORECASE)
_HEADER_FIELD = re.compile(r"([A-Za-z]+)\s*:\s*([^\s<]*)")
_EMPTY_ELEMENT = re.compile(r"<([\w.]+)>\s*</\1>|<[\w.]+\s*/>", re.IGNORECASE)
_OPEN_WITH_TEXT = re.compile(r"<([\w.]+)>([^<]*)")
_CLOSING_TAG = re.compile(r"</([\w.]+)>")
_ACCOUNT_TYPES = {
    "CHECKING": "Checking",
    "SAVINGS": "Savings",
    "MONEYMRKT": "Money market",
    "CREDITLINE": "Credit line",
    "CD": "Certificate of deposit",
}
_BALANCES = (("ledgerbal", "closing_balance"), ("availbal", "available_balance"))
_STATEMENT_KINDS = {"stmtrs": AccountType.Bank, "ccstmtrs": AccountType.CreditCard}
# ofxparse's own header reader needs an ENCODING line; the text handed to it is always UTF-8.
_LIBRARY_HEADER = b"ENCODING:UTF-8\n\n"


class _Parser(OfxParser):
    """ofxparse's element readers in lenient mode: a bad transaction is set aside, not fatal.

    The library keeps these switches as class attributes that only ``OfxParser.parse`` sets;
    a subclass holds them without touching the library class.
    """

    fail_fast = False
    custom_date_format = None


def sniff(head: bytes) -> bool:
    """An OFX 1.x header, an OFX 2.x processing instruction, or a bare ``<OFX>`` root."""
    return bool(_SIGNATURE.search(head.removeprefix(codecs.BOM_UTF8)))


def read(path: Path) -> ParsedFile:
    """Every bank and credit-card statement in the file; bad transactions become problems."""
    soup = _soup(path)
    statements = soup.find_all(list(_STATEMENT_KINDS))
    if not statements:
        raise UnreadableFile("an OFX file without a bank or credit-card statement (STMTRS)")
    fi = soup.find("fi")
    org = _Parser.parseOrg(fi).organization if fi is not None else ""
    parsed = ParsedFile(format=FORMAT)
    accounts: list[AccountValues] = []
    periods: list[tuple[date, date] | None] = []
    balances: list[BalanceFact] = []
    entries = 0
    for number, stmtrs in enumerate(statements, start=1):
        where = f"{stmtrs.name.upper()}[{number}]"
        transactions = stmtrs.find_all("stmttrn")
        try:
            account_data = _Parser.parseStmtrs([stmtrs], _STATEMENT_KINDS[stmtrs.name])[0]
        except (OfxParserException, ValueError, LookupError, TypeError, AttributeError) as exc:
            parsed.problems.append(IngestProblem(path.name, where, f"cannot read ({exc})"))
        else:
            account = _account(account_data, org)
            accounts.append(account)
            periods.append(_period(stmtrs))
            balances.extend(_balances(stmtrs, account, where, path.name, parsed.problems))
            _read_transactions(transactions, account_data, account, entries, path.name, parsed)
        entries += len(transactions)
    if not accounts:
        raise UnreadableFile(f"no statement could be read: {parsed.problems[0].reason}")
    parsed.rows = drop_shared_ids(parsed.rows)
    set_file_level(parsed, accounts, balances, periods)
    return parsed


def _read_transactions(
    transactions: list[Tag],
    account_data: Account,
    account: AccountValues,
    entries_before: int,
    source: str,
    parsed: ParsedFile,
) -> None:
    """Pair each STMTTRN with what ofxparse made of it: a transaction or a discarded entry."""
    statement = account_data.statement
    failed = {id(item["content"]): item["error"] for item in statement.discarded_entries}
    read_ok = iter(statement.transactions)
    for number, trn in enumerate(transactions, start=entries_before + 1):
        location = f"entry {number}"
        if id(trn) in failed:
            parsed.problems.append(IngestProblem(source, location, collapse(failed[id(trn)])))
            continue
        try:
            parsed.rows.append(_row(trn, next(read_ok), account, location))
        except (ValueError, ArithmeticError) as exc:
            parsed.problems.append(IngestProblem(source, location, str(exc)))


def _soup(path: Path) -> BeautifulSoup:
    """ofxparse's element tree of the file, from text already decoded and evenly tagged."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"cannot open ({exc.strerror})") from exc
    text = _decode(raw)
    start = _OFX_START.search(text)
    if start is None:
        raise UnreadableFile(f"no <OFX> element; the file starts with {_preview(text)!r}")
    library_input = io.BytesIO(_LIBRARY_HEADER + _even_tags(text[start.start() :]).encode())
    return soup_maker(OfxPreprocessedFile(library_input).fh)


def _decode(raw: bytes) -> str:
    """UTF-8 when the bytes are valid UTF-8 (files often declare a charset they do not use),
    else the declared charset, else Windows-1252, the charset OFX 1.x assumes by default."""
    for encoding in dict.fromkeys(("utf-8", _declared_encoding(raw), "cp1252")):
        if encoding is None:
            continue
        try:
            return raw.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
    return raw.decode("latin-1")


def _declared_encoding(raw: bytes) -> str | None:
    xml = _XML_ENCODING.search(raw[:1024])
    if xml:
        return xml.group(1).decode("ascii")
    header = raw[: raw.find(b"<")].decode("latin-1")
    fields = {key.upper(): value.upper() for key, value in _HEADER_FIELD.findall(header)}
    if fields.get("ENCODING") in ("UTF-8", "UNICODE"):
        return "utf-8"
    charset = fields.get("CHARSET", "")
    if charset.isdigit():
        return f"cp{charset}"
    if charset in ("8859-1", "ISO-8859-1"):
        return "latin-1"
    return None


def _even_tags(body: str) -> str:
    """Drop empty elements and every closing tag of an element that carries data.

    ofxparse closes an SGML element only when its name is never closed anywhere in the file,
    so a file that closes some ``<MEMO>`` elements and not others nests the rest wrongly, and
    an empty ``<NAME></NAME>`` discards its transaction. Afterwards ofxparse closes every
    data element itself.
    """
    body = _EMPTY_ELEMENT.sub("", body)
    data_elements = {
        match.group(1).upper() for match in _OPEN_WITH_TEXT.finditer(body) if match.group(2).strip()
    }
    return _CLOSING_TAG.sub(
        lambda match: "" if match.group(1).upper() in data_elements else match.group(0), body
    )


def _account(account_data: Account, org: str) -> AccountValues:
    if account_data.type == AccountType.CreditCard:
        name = "Credit card"
    else:
        kind = account_data.account_type.upper()
        name = _ACCOUNT_TYPES.get(kind, kind.capitalize()) or None
    return AccountValues(
        account_no=account_data.account_id or None,
        account_name=name,
        bank_name=org or account_data.routing_number or None,
        currency=(account_data.curdef or "").upper() or None,
    )


def _row(trn: Tag, transaction: Transaction, account: AccountValues, location: str) -> ParsedRow:
    # ofxparse matches NAME anywhere inside the transaction, so a PAYEE's NAME passes for it.
    name = _text(trn.find("name", recursive=False))
    payee = trn.find("payee", recursive=False)
    merchant = _text(payee.find("name")) if payee is not None else None
    currency = trn.find("currency", recursive=False)
    fallback = " ".join(filter(None, (transaction.type.upper(), transaction.checknum)))
    description = _describe(name or merchant, collapse(transaction.memo)) or fallback
    kind = payment_kinds.from_ofx(transaction.type)
    if kind is None and (transaction.checknum or "").strip().isdigit():
        kind = "cheque"
    return ParsedRow(
        location=location,
        date=_required_date(_text(trn.find("dtposted")), "DTPOSTED"),
        amount=exact_cents(Decimal(transaction.amount)),
        description=description,
        currency=_currency(currency) or account.currency,
        merchant=merchant,
        account_no=account.account_no,
        account_name=account.account_name,
        bank_name=account.bank_name,
        transaction_id=transaction.id or None,
        payment_kind=kind or payment_kinds.from_text(description),
    )


def _currency(aggregate: Tag | None) -> str | None:
    """CURSYM of a transaction's CURRENCY aggregate: the currency its amount is in."""
    symbol = _text(aggregate.find("cursym")) if aggregate is not None else None
    return symbol.upper() if symbol else None


def _describe(name: str | None, memo: str | None) -> str:
    """NAME, with MEMO appended only when it says something NAME does not."""
    if not memo or (name and memo in name):
        return name or ""
    if not name or name in memo:
        return memo
    return f"{name} {memo}"


def _balances(
    stmtrs: Tag, account: AccountValues, where: str, source: str, problems: list[IngestProblem]
) -> list[BalanceFact]:
    facts: list[BalanceFact] = []
    for element, name in _BALANCES:
        balance = stmtrs.find(element)
        if balance is None:
            continue
        location = f"{where}/{element.upper()}"
        try:
            amount = exact_cents(_Parser.toDecimal(balance.find("balamt")))
            as_of = _required_date(_text(balance.find("dtasof")), "DTASOF")
        except (ValueError, ArithmeticError, LookupError, AttributeError) as exc:
            problems.append(IngestProblem(source, location, f"cannot read the balance ({exc})"))
            continue
        facts.append(
            BalanceFact(name, amount, account.currency, as_of, location, account.account_no)
        )
    return facts


def _period(stmtrs: Tag) -> tuple[date, date] | None:
    start = _date(_text(stmtrs.find("dtstart")))
    end = _date(_text(stmtrs.find("dtend")))
    return (start, end) if start and end else None


def _text(element: Tag | None) -> str | None:
    """An element's own text, whitespace collapsed; None when absent or empty."""
    if element is None:
        return None
    return collapse("".join(element.find_all(string=True, recursive=False))) or None


def _date(value: str | None) -> date | None:
    """The calendar date as printed (YYYYMMDD…).

    ofxparse converts to UTC, which moves a midnight ``[+1:CET]`` posting to the day before.
    """
    if not value or not value[:8].isdigit():
        return None
    try:
        return date(int(value[:4]), int(value[4:6]), int(value[6:8]))
    except ValueError:
        return None


def _required_date(value: str | None, element: str) -> date:
    found = _date(value)
    if found is None:
        raise ValueError(f"{element} is not a date: {value!r}")
    return found


def _preview(text: str) -> str:
    return collapse(text[:60])
