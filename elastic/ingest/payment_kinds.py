"""How money moved (cheque, ATM, direct debit, standing order, card, transfer, fee, interest),
read from what each format says about a row; the words and codes are data
(``payment_kinds.toml``), so a new bank's wording is a line there, not code."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from elastic.ingest.currency_names import currency_named
from elastic.model.plan import PaymentKind

KINDS_PATH = Path(__file__).with_name("payment_kinds.toml")
KINDS = tuple(kind.value for kind in PaymentKind)  # in the order a row takes the first


@dataclass(frozen=True)
class _Table:
    words: dict[str, str]  # folded word → kind
    ofx: dict[str, str]
    swift: dict[str, str]
    gvc: dict[str, str]
    iso: tuple[tuple[str, str], ...]  # (code prefix, kind), longest first
    prefixes: dict[tuple[str, ...], str]  # a descriptor's first words → kind
    longest: int  # words in the longest prefix
    runs: dict[str, str]  # prefixes in scripts written without spaces ("银联ATM取款") → kind
    run_longest: int  # characters in the longest of them
    opening: frozenset[str]
    closing: frozenset[str]
    summary: frozenset[str]
    card_credits: re.Pattern[str]
    card_columns: re.Pattern[str]


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


_WORD = re.compile(r"[^\W_]+(?:[/'’-][^\W_]+)*|#")


_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
"""Thai, Japanese kana, CJK ideographs and Hangul: scripts that write words without spaces
between them, so a descriptor's first "word" is a whole phrase."""


def _words(text: str, limit: int | None = None) -> tuple[str, ...]:
    """A text's words, case-folded: letters and digits, joined by "/", "-" or an apostrophe
    ("s/o", "sepa-lastschrift"); "#" is a word of its own."""
    return tuple(_WORD.findall(text.casefold())[:limit])


@cache
def _table() -> _Table:
    with KINDS_PATH.open("rb") as handle:
        data = tomllib.load(handle)
    kinds = data["kinds"]
    if unknown := set(kinds) - set(KINDS):
        raise ValueError(f"payment_kinds.toml: unknown kind(s) {sorted(unknown)}")

    def table(key: str, fold: bool = True) -> dict[str, str]:
        found: dict[str, str] = {}
        for kind in KINDS:
            for value in kinds.get(kind, {}).get(key, ()):
                found.setdefault(_fold(value) if fold else value.upper(), kind)
        return found

    iso = sorted(
        ((code.upper(), kind) for kind in KINDS for code in kinds.get(kind, {}).get("iso", ())),
        key=lambda pair: -len(pair[0]),
    )
    prefixes: dict[tuple[str, ...], str] = {}
    runs: dict[str, str] = {}
    for kind in KINDS:
        for prefix in kinds.get(kind, {}).get("prefixes", ()):
            prefixes.setdefault(_words(prefix), kind)
            if _UNSPACED.search(prefix):
                runs.setdefault("".join(_words(prefix)), kind)
    balances = data["balance_texts"]
    return _Table(
        words=table("words"),
        ofx=table("ofx", fold=False),
        swift=table("swift", fold=False),
        gvc=table("gvc", fold=False),
        iso=tuple(iso),
        prefixes=prefixes,
        longest=max(map(len, prefixes), default=0),
        runs=runs,
        run_longest=max(map(len, runs), default=0),
        opening=frozenset(map(_fold, balances["opening_balance"])),
        closing=frozenset(map(_fold, balances["closing_balance"])),
        summary=frozenset(map(_fold, balances["summary"])),
        card_credits=_whole_words(data["card_credits"]["words"]),
        card_columns=_whole_words(data["card_columns"]["words"]),
    )


_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


def _bare(text: str) -> str:
    """A text folded, without the punctuation and borders around it ("|SALDO FINALE", "Total:",
    "*** Opening balance ***")."""
    return _EDGES.sub("", _fold(text))


def _whole_words(words: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(rf"(?<![^\W_]){re.escape(_fold(w))}(?![^\W_])" for w in words))


@lru_cache(maxsize=4096)
def from_word(word: str | None) -> str | None:
    """A type column's value or a QIF number field ("ATM", "Lastschrift", "Card payment")."""
    return _table().words.get(_fold(word)) if word else None


def from_ofx(trntype: str | None) -> str | None:
    return _table().ofx.get(trntype.strip().upper()) if trntype else None


def from_swift(code: str | None) -> str | None:
    """An MT940 ``:61:`` transaction type, with or without its N/F/S mark ("NCHK", "CHK")."""
    if not code:
        return None
    code = code.strip().upper()
    return _table().swift.get(code[-3:]) if len(code) >= 3 else None


def from_gvc(code: str | None) -> str | None:
    """A German business transaction code, the three digits an MT940 ``:86:`` starts with."""
    return _table().gvc.get(code.strip()) if code else None


def from_iso(code: str | None) -> str | None:
    """An ISO 20022 bank transaction code as ``Domain/Family/SubFamily``."""
    if not code:
        return None
    code = code.upper()
    return next((kind for prefix, kind in _table().iso if code.startswith(prefix)), None)


@lru_cache(maxsize=8192)
def from_text(description: str | None) -> str | None:
    """The kind a descriptor's first words name ("CARTE 0123 …", "RETRAIT DAB", "PRLV …"), or
    in a script written without spaces its first characters ("银联ATM取款")."""
    if not description:
        return None
    table = _table()
    words = _words(description[:120], table.longest)
    for end in range(len(words), 0, -1):
        if kind := table.prefixes.get(words[:end]):
            return kind
    if words and _UNSPACED.search(words[0]):  # "银联消费…": its first characters
        first = words[0]
        for end in range(min(len(first), table.run_longest), 0, -1):
            if kind := table.runs.get(first[:end]):
                return kind
    return None


@lru_cache(maxsize=4096)
def balance_text(text: str | None) -> str | None:
    """ "opening_balance" or "closing_balance" when a row's whole text names a balance."""
    folded = _bare(text or "")
    table = _table()
    if folded in table.opening:
        return "opening_balance"
    if folded in table.closing:
        return "closing_balance"
    return None


def is_summary(text: str | None) -> bool:
    """Whether a line's text is a total or summary ("Total", "Summe"), also of one currency
    ("EUR total", "Summe EUR", "人民币合计")."""
    bare = _bare(text or "")
    if bare in _table().summary:
        return True
    for word in _table().summary:
        rest = bare.removesuffix(word) if bare.endswith(word) else bare.removeprefix(word)
        if rest != bare and _is_currency(rest.strip(" :-")):
            return True
    return False


def _is_currency(text: str) -> bool:
    return (len(text) == 3 and text.isascii() and text.isalpha()) or bool(currency_named(text))


def is_card_credit(text: str | None) -> bool:
    """Whether a card row's text says it is a payment to the card or a refund."""
    return bool(text) and _table().card_credits.search(_fold(text or "")) is not None


def names_a_card(column: str | None) -> bool:
    """Whether a column's name says the export is a card's ("Card Used", "Kartennummer")."""
    return bool(column) and _table().card_columns.search(_fold(column or "")) is not None
