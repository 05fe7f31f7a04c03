"""ISO 20022 cash-management messages, any version from 001.02 on, read with lxml: camt.053
statements, camt.052 account reports (intraday) and camt.054 debit/credit notifications.

The three share their account, balance and entry elements; only the element that holds an
account's entries differs (``Stmt``, ``Rpt``, ``Ntfctn``). Element names have stayed stable
across versions; where they moved (entry status, related parties) both forms are read.
Namespaces are matched by their ``camt.05x`` part only.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

from lxml import etree

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
    shared_value,
)
from elastic.model.records import IngestProblem

FORMAT = "camt.053"
# Message → (its document element, the element holding one account's entries).
_MESSAGES = {
    "camt.052": ("BkToCstmrAcctRpt", "Rpt"),
    "camt.053": ("BkToCstmrStmt", "Stmt"),
    "camt.054": ("BkToCstmrDbtCdtNtfctn", "Ntfctn"),
}
_SIGNATURE = re.compile(rb"camt\.05[234]\.\d{3}\.\d{2}")
_BALANCES = {"OPBD": "opening_balance", "CLBD": "closing_balance", "CLAV": "available_balance"}
_NOT_PROVIDED = "NOTPROVIDED"
# Entity expansion and network access are never needed for a statement and are unsafe.
_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True)


def sniff(head: bytes) -> bool:
    """An XML document that names a camt.052, .053 or .054 message (namespace or schema)."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<") and bool(_SIGNATURE.search(head))


def read(path: Path) -> ParsedFile:
    """One row per entry (``Ntry``) of every statement, report or notification, in file order.

    An entry whose status is not booked (``PDNG``, ``INFO``) is pending: counted, not landed."""
    message, statements = _statements(path)
    parsed = ParsedFile(format=message)
    accounts: list[AccountValues] = []
    periods: list[tuple[date, date] | None] = []
    balances: list[BalanceFact] = []
    entry = 0
    for number, stmt in enumerate(statements, start=1):
        account = _account(stmt)
        accounts.append(account)
        periods.append(_period(stmt))
        balances.extend(_balances(stmt, number, account, path.name, parsed.problems))
        sent = None if message == FORMAT else _created(stmt)
        for ntry in stmt.iterfind("{*}Ntry"):
            entry += 1
            location = f"entry {entry}"
            try:
                parsed.rows.append(_row(ntry, account, location, sent))
            except ValueError as exc:
                parsed.problems.append(IngestProblem(path.name, location, str(exc)))
    parsed.rows = drop_shared_ids(parsed.rows)
    set_file_level(parsed, accounts, balances, periods)
    return parsed


def _statements(path: Path) -> tuple[str, list[etree._Element]]:
    """The message type and the elements that each hold one account's entries."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"cannot open ({exc.strerror})") from exc
    try:
        root = etree.fromstring(raw, _XML_PARSER)
    except etree.XMLSyntaxError as exc:
        raise UnreadableFile(f"not well-formed XML ({exc})") from exc
    for message, (document, part) in _MESSAGES.items():
        statements = [
            stmt
            for stmt in root.iter(f"{{*}}{part}")
            if message in (etree.QName(stmt).namespace or "")
            and etree.QName(stmt.getparent()).localname == document
        ]
        if statements:
            return message, statements
    found = etree.QName(root)
    raise UnreadableFile(
        f"no camt.052 report (Rpt), camt.053 statement (Stmt) or camt.054 notification "
        f"(Ntfctn) found; the document is <{found.localname}> in namespace "
        f"{found.namespace or 'none'}"
    )


def _account(stmt: etree._Element) -> AccountValues:
    servicer = stmt.find("{*}Acct/{*}Svcr/{*}FinInstnId")
    bank = None
    if servicer is not None:
        bank = _text(servicer, "Nm") or _text(servicer, "BICFI") or _text(servicer, "BIC")
    # Without Acct/Ccy, the statement's currency is the one all its balances are in.
    balance_currencies = {collapse(amt.get("Ccy")) for amt in stmt.iterfind("{*}Bal/{*}Amt")}
    currency = _text(stmt, "Acct/Ccy") or shared_value(balance_currencies - {""})
    return AccountValues(
        account_no=_text(stmt, "Acct/Id/IBAN") or _text(stmt, "Acct/Id/Othr/Id"),
        account_name=_text(stmt, "Acct/Nm"),
        bank_name=bank,
        currency=currency.upper() if currency else None,
    )


def _balances(
    stmt: etree._Element,
    number: int,
    account: AccountValues,
    source: str,
    problems: list[IngestProblem],
) -> list[BalanceFact]:
    facts: list[BalanceFact] = []
    for index, bal in enumerate(stmt.iterfind("{*}Bal"), start=1):
        name = _BALANCES.get(_text(bal, "Tp/CdOrPrtry/Cd") or "")
        if name is None:
            continue
        location = f"Stmt[{number}]/Bal[{index}]"
        try:
            amount, currency = _amount(bal, account)
            as_of = _date(bal.find("{*}Dt"))
            if as_of is None:
                raise ValueError("no date (Dt)")
        except ValueError as exc:
            problems.append(IngestProblem(source, location, f"cannot read the balance ({exc})"))
            continue
        facts.append(BalanceFact(name, amount, currency, as_of, location, account.account_no))
    return facts


def _created(stmt: etree._Element) -> date | None:
    """When a report or notification was made (its ``CreDtTm``), or None."""
    try:
        return _iso_date(_text(stmt, "CreDtTm"))
    except ValueError:
        return None


def _period(stmt: etree._Element) -> tuple[date, date] | None:
    span = stmt.find("{*}FrToDt")
    if span is None:
        return None
    try:
        start, end = _iso_date(_text(span, "FrDtTm")), _iso_date(_text(span, "ToDtTm"))
    except ValueError:
        return None
    return (start, end) if start and end else None


def _row(
    ntry: etree._Element, account: AccountValues, location: str, sent: date | None = None
) -> ParsedRow:
    """One entry; ``sent`` is when a report or notification was made, the date of an entry
    that states neither its booking nor its value date (a statement's entries always do)."""
    amount, currency = _amount(ntry, account)
    booked = _date(ntry.find("{*}BookgDt")) or _date(ntry.find("{*}ValDt")) or sent
    if booked is None:
        raise ValueError("no booking date (BookgDt) or value date (ValDt)")
    status = _text(ntry, "Sts/Cd") or _text(ntry, "Sts")
    details = ntry.findall("{*}NtryDtls/{*}TxDtls")
    merchant = shared_value(_counterparty(tx, debit=amount < 0) for tx in details)
    description = _description(ntry, details) or merchant or _bank_code(ntry)
    return ParsedRow(
        location=location,
        date=booked,
        amount=amount,
        description=description,
        currency=currency,
        merchant=merchant,
        account_no=account.account_no,
        account_name=account.account_name,
        bank_name=account.bank_name,
        transaction_id=_reference(ntry, details),
        pending=status is not None and status.upper() != "BOOK",
        payment_kind=payment_kinds.from_iso(_bank_code(ntry))
        or payment_kinds.from_text(description),
    )


def _amount(element: etree._Element, account: AccountValues) -> tuple[Decimal, str | None]:
    """The signed amount of an entry or balance (DBIT is money out) and its currency."""
    amt = element.find("{*}Amt")
    if amt is None or not (amt.text or "").strip():
        raise ValueError("no amount (Amt)")
    try:
        value = Decimal(amt.text.strip())
    except InvalidOperation as exc:
        raise ValueError(f"amount {amt.text.strip()!r} is not a number") from exc
    cents = exact_cents(value)
    indicator = _text(element, "CdtDbtInd")
    if indicator not in ("CRDT", "DBIT"):
        raise ValueError(f"credit/debit indicator (CdtDbtInd) is {indicator!r}")
    currency = (amt.get("Ccy") or "").strip().upper() or account.currency
    return (-cents if indicator == "DBIT" else cents), currency


def _description(ntry: etree._Element, details: list[etree._Element]) -> str:
    """AddtlNtryInf, then each remittance line, skipping any already said."""
    parts = [_text(ntry, "AddtlNtryInf")]
    for tx in details:
        parts.extend(collapse(line.text) for line in tx.iterfind("{*}RmtInf/{*}Ustrd"))
    description = ""
    for part in parts:
        if part and part not in description:
            description = f"{description} {part}".strip()
    return description


def _counterparty(tx: etree._Element, debit: bool) -> str | None:
    """The creditor of money paid out, the debtor of money received (either schema form)."""
    role = "Cdtr" if debit else "Dbtr"
    return _text(tx, f"RltdPties/{role}/Nm") or _text(tx, f"RltdPties/{role}/Pty/Nm")


def _bank_code(ntry: etree._Element) -> str:
    """The bank transaction code, e.g. ``PMNT/ICDT/ESCT``: a description of last resort."""
    code = ntry.find("{*}BkTxCd")
    if code is None:
        return ""
    domain = [_text(code, "Domn/Cd"), _text(code, "Domn/Fmly/Cd")]
    domain.append(_text(code, "Domn/Fmly/SubFmlyCd"))
    return "/".join(filter(None, domain)) or _text(code, "Prtry/Cd") or ""


def _reference(ntry: etree._Element, details: list[etree._Element]) -> str | None:
    """The bank's reference for the entry; a transaction's own only when it is alone."""
    candidates = [_text(ntry, "AcctSvcrRef"), _text(ntry, "NtryRef")]
    if len(details) == 1:
        candidates.append(_text(details[0], "Refs/AcctSvcrRef"))
        candidates.append(_text(details[0], "Refs/EndToEndId"))
    return next((c for c in candidates if c and c.upper() != _NOT_PROVIDED), None)


def _date(choice: etree._Element | None) -> date | None:
    """A ``Dt`` or ``DtTm`` choice as the calendar date printed (no time zone conversion)."""
    if choice is None:
        return None
    return _iso_date(_text(choice, "Dt") or _text(choice, "DtTm"))


def _iso_date(value: str | None) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError as exc:
        raise ValueError(f"{value!r} is not a date") from exc


def _text(element: etree._Element, path: str) -> str | None:
    """The collapsed text at ``path`` (local names joined by ``/``), or None."""
    found = element.findtext("/".join(f"{{*}}{step}" for step in path.split("/")))
    return collapse(found) or None
