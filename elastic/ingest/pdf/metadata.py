"""What a statement PDF says about itself on its first pages: bank, account, period, currency and
whether it is a credit-card or loan statement, in any layout. A field is None when the pages do
not say; nothing is guessed from the file's name or filled with a default. The account's name
is the product the statement prints ("Everyday Checking"), never its holder's name.

Labels, bank names, currencies and card words are data (``statement_labels.toml``); the reading
of lines, labels and dates is shared with ``facts``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import chain, pairwise
from typing import Any

from elastic.ingest.pdf.facts import (
    CURRENCY_CODES,
    CURRENCY_SYMBOLS,
    DATA,
    FIRST_PAGES,
    DateReader,
    Finder,
    Found,
    Label,
    Line,
    find_money,
    fold,
    is_form,
    label_regions,
    labels_on,
    make_line,
    page_lines,
    phrase_pattern,
    value_across,
    value_below,
    value_beside,
    with_cell_below,
)
from elastic.ingest.pdf.page_words import PageText

NAME_BAND = 0.15  # the top and bottom of a page, where a bank prints its name
MAX_NAME_WORDS = 8  # an account name ("MR JOHN SMITH & MRS JANE SMITH")
MAX_FIRST_LINE_WORDS = 6  # a first line naming the bank
NAME_LINES = 6  # the first page's lines that name the bank when they name one


@dataclass(frozen=True)
class StatementMetadata:
    """What the statement says about itself; None where it does not say."""

    bank_name: str | None = None  # a known bank's name, else the name as printed
    account_name: str | None = None  # the product: "Platinum Member Credit Card"
    account_no: str | None = None  # as printed, masks included ("XXXX XXXX XXXX 1234")
    sort_code: str | None = None  # UK sort code or Australian BSB, as printed
    iban: str | None = None  # without spaces
    period: tuple[date, date] | None = None
    currency: str | None = None  # ISO 4217
    is_card: bool = False
    is_loan: bool = False  # a loan or mortgage: its balance is what the holder owes
    holder: str | None = None  # the account holder's name, as printed; never the account's
    # The day it was made ("Statement date"), for a statement that prints no period.
    statement_date: date | None = None


def read_metadata(pages: list[PageText]) -> StatementMetadata:
    """The statement's details from its first pages; never raises for an unfamiliar layout."""
    first = [page_lines(page) for page in pages[:FIRST_PAGES]]
    lines = list(chain(*first))
    bank, country = _bank(pages[0], first[0]) if pages else (None, None)
    country = _domain_country(lines) or country
    currency = _currency(first, country)
    dates = DateReader.for_lines(lines, currency)
    labelled = _labelled(first, _finders(dates))
    named = _value(labelled, "account_name")
    printed = _product_line(first[0] if first else [])
    if printed and "account_name" in labelled and labelled["account_name"].line.page > 1:
        named = None  # a product printed on the first page says more than a name labelled later
    product = _value(labelled, "product") or (named if named and _is_product(named) else None)
    holder = _value(labelled, "holder") or (named if named and not product else None)
    period = (
        _period_range(lines, dates) or _yearless_range(lines, dates) or _labelled_period(labelled)
    )
    return StatementMetadata(
        bank_name=bank,
        account_name=_readable(product or printed),
        holder=holder,
        statement_date=None if period else _value(labelled, "period_end"),
        account_no=_value(labelled, "account_no"),
        sort_code=_value(labelled, "sort_code"),
        iban=_value(labelled, "iban") or _iban_after_word(first),
        period=period,
        currency=currency,
        is_card=any(_CARD.search(line.folded) for line in lines),
        is_loan=any(_LOAN.search(line.folded) for line in lines),
    )


# --- labelled values -----------------------------------------------------------------------------

_ACCOUNT_NO = re.compile(r"(?<![\w*•-])[0-9Xx*•][0-9Xx*•-]*(?: [0-9Xx*•][0-9Xx*•-]*)*(?![\w*•])")
_SORT_CODE = re.compile(
    r"(?<![\w-])(?:\d{2}-\d{2}-\d{2}|\d{3}-\d{3}|\d{2} \d{2} \d{2}|\d{6})(?![\w-])"
)
_IBAN = re.compile(r"(?<!\w)[A-Z]{2}\d{2}(?: ?[A-Z0-9*•]{1,4})+(?![\w*•])")
_IBAN_MASK = re.compile(r"[*•]|XXX")
_CODE = re.compile(r"(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])")
_NAME_WORD = r"[^\W\d_](?:[^\W\d_]|['’.,\-])*"
_NAME = re.compile(rf"{_NAME_WORD}(?: (?:&|{_NAME_WORD}))*")


def _account_numbers(text: str) -> Iterator[tuple[int, int, str]]:
    """Digits in groups, masks included ("****1234"), or an IBAN, as printed."""
    numbers = [
        (match.start(), match.end(), match[0])
        for match in _ACCOUNT_NO.finditer(text)
        if sum(ch.isdigit() for ch in match[0]) >= 3
    ]
    ibans = [(start, end, text[start:end]) for start, end, _ in _ibans(text)]
    yield from sorted(numbers + ibans)


def _sort_codes(text: str) -> Iterator[tuple[int, int, str]]:
    for match in _SORT_CODE.finditer(text):
        yield match.start(), match.end(), match[0]


def _ibans(text: str) -> Iterator[tuple[int, int, str]]:
    """IBANs as printed in groups, without spaces. A masked one is kept as printed; otherwise
    the longest run of groups that passes the ISO 13616 check, so a word printed after the IBAN
    ("... 3000 00 EUR") is not taken for part of it."""
    for match in _IBAN.finditer(text):
        groups = match[0].split(" ")
        if _IBAN_MASK.search(match[0], 4):
            yield match.start(), match.end(), "".join(groups)
            continue
        for count in range(len(groups), 0, -1):
            iban = "".join(groups[:count])
            if 15 <= len(iban) <= 34 and _iban_valid(iban):
                yield match.start(), match.start() + len(" ".join(groups[:count])), iban
                break


def _iban_valid(iban: str) -> bool:
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def _names(text: str) -> Iterator[tuple[int, int, str]]:
    match = _NAME.search(text)
    if match and len(match[0].split()) <= MAX_NAME_WORDS:
        yield match.start(), match.end(), match[0].strip(" ,")


def _codes(text: str) -> Iterator[tuple[int, int, str]]:
    for match in _CODE.finditer(text):
        if match[0] in CURRENCY_CODES:
            yield match.start(), match.end(), match[0]


def _cell_text(text: str) -> Iterator[tuple[int, int, str]]:
    """The text of a cell that names something (a product): letters, no amount."""
    stripped = text.strip(" :#-–|")
    if _NAME_WORD_RE.search(stripped) and not any(True for _ in find_money(stripped)):
        start = text.index(stripped)
        yield start, start + len(stripped), stripped


_NAME_WORD_RE = re.compile(_NAME_WORD)


_NAMED = frozenset({"account_name", "holder", "product"})  # fields whose values are text


def _finders(dates: DateReader) -> dict[str, Finder[Any]]:
    return {
        "account_no": _account_numbers,
        "account_name": _cell_text,
        "holder": _names,
        "product": _cell_text,
        "sort_code": _sort_codes,
        "iban": _ibans,
        "currency": _codes,
        "period_start": dates.find,
        "period_end": dates.find,
        "previous_statement": dates.find,
    }


def _labelled(first: list[list[Line]], finders: dict[str, Finder[Any]]) -> dict[str, Found[Any]]:
    """The first value of each field in reading order: beside its label in the same cell, else
    in the cell directly below it."""
    found: dict[str, Found[Any]] = {}
    for lines in first:
        for line in lines:
            for label, region_end in label_regions(line):
                find = finders.get(label.name) if label.kind == "metadata" else None
                if find is None or label.name in found:
                    continue
                if is_form(label, region_end):
                    continue
                if label.name in _NAMED and not line.starts_cell(label.start):
                    continue  # "the product disclosure statement": a sentence, not a label
                value = value_beside(label, region_end, find, 0, one_cell=True)
                # A product column ("Product" over its rows) names the first row's product.
                value = value or value_below(label, lines, find, label.name == "product")
                value = value or value_across(label, lines, find)
                if value is not None:
                    found[label.name] = value
    return found


_IBAN_WORDS = phrase_pattern(DATA["iban_words"]["words"])


def _iban_after_word(first: list[list[Line]]) -> str | None:
    """An IBAN printed right after a word such as "Account", in one cell with it."""
    for line in chain(*first):
        for match in _IBAN_WORDS.finditer(line.folded):
            label = Label(line, match.start(), match.end(), "metadata", "iban")
            found = value_beside(label, len(line.text), _ibans, 0, one_cell=True)
            if found is not None:
                return str(found.value)
    return None


def _value(labelled: dict[str, Found[Any]], name: str) -> Any:
    found = labelled.get(name)
    return found.value if found else None


# --- product -------------------------------------------------------------------------------------

_PRODUCT = DATA["product"]


def _is_product(text: str) -> bool:
    """Whether a name holds a product's word ("Everyday Checking", not "JOHN CITIZEN")."""
    return bool(_PRODUCT_WORD.search(fold(text)))


_PRODUCT_WORD = phrase_pattern(_PRODUCT["words"])
_PRODUCT_END = re.compile(_PRODUCT_WORD.pattern + r"\W*$")
_GENERIC = frozenset(fold(word) for word in _PRODUCT["generic"])
_NOT_PRODUCT = phrase_pattern(_PRODUCT["not_product"])
_IGNORE = re.compile(
    r"(?<!\w)(?:" + "|".join(map(re.escape, map(fold, _PRODUCT["ignore"]))) + r")(?!\w)"
)
_NUMBERS = re.compile(r"[\w*•]*\d[\w*•-]*|(?<!\w)[Xx*•]{3,}(?!\w)|[®™©■•]")
MAX_PRODUCT_WORDS = 6


def _product_line(lines: list[Line]) -> str | None:
    """The first short cell of the first page that names a product ("Platinum Member Credit
    Card ending in 1999" is the Platinum Member Credit Card): it ends in a product's word once
    the statement's own words and account numbers are taken out, holds no amount, date, label
    ("Card: 8888") or sentence, and says more than "Account"."""
    for line in lines:
        labels = labels_on(line)
        for start, end in line.cells:
            text = line.text[start:end]
            inside = [label for label in labels if start <= label.start < end]
            if any("ending" not in fold(label.printed) for label in inside):
                continue  # "Card ending in 1999" may follow the product's name; no other label
            if ":" in text or any(True for _ in find_money(text)):
                continue  # "GSTIN of SBI Card : 06A59K1V" labels a value
            folded = _IGNORE.sub(" ", fold(_NUMBERS.sub(" ", text)))
            words = [word for word in folded.split() if _NAME_WORD_RE.search(word)]
            while words and words[0] in _JOINERS:  # "Statement of account": "of account"
                words = words[1:]
            if not 1 <= len(words) <= MAX_PRODUCT_WORDS or " ".join(words) in _GENERIC:
                continue
            cleaned = " ".join(words)
            if _NOT_PRODUCT.search(cleaned) or not _PRODUCT_END.search(cleaned):
                continue
            return _printed_words(text, len(words))
    return None


def _printed_words(text: str, count: int) -> str:
    """The first ``count`` words of a line as printed, without numbers, marks or the
    statement's own words."""
    kept = [
        word
        for word in _NUMBERS.sub(" ", text).split()
        if not _IGNORE.fullmatch(fold(word)) and _NAME_WORD_RE.search(word)
    ]
    return " ".join(kept[:count]).strip(" ,:;|-–")


def _readable(name: str | None) -> str | None:
    """A name as people write it: "CHECKING" is "Checking"; a name in mixed case stays."""
    if not name:
        return None
    return name.title() if name.isupper() else name


# --- country -------------------------------------------------------------------------------------

_DOMAIN = re.compile(r"(?<![\w@])(?:[a-z0-9-]+\.)+([a-z]{2})(?![\w.])", re.I)
_COUNTRY_CURRENCY: dict[str, str] = DATA["country"]["currency"]
_DOMAIN_COUNTRY: dict[str, str] = DATA["country"]["domains"]


def _domain_country(lines: Iterable[Line]) -> str | None:
    """The country of the web addresses a statement prints most ("anz.co.nz" is NZ), among the
    countries whose currency the data knows."""
    seen: Counter[str] = Counter()
    for line in lines:
        for match in _DOMAIN.finditer(line.text):
            code = match[1].lower()
            country = _DOMAIN_COUNTRY.get(code, code.upper())
            if country in _COUNTRY_CURRENCY:
                seen[country] += 1
    return seen.most_common(1)[0][0] if seen else None


# --- period --------------------------------------------------------------------------------------

_CONNECTORS = frozenset(fold(c) for c in DATA["period"]["connectors"])


def _period_range(lines: list[Line], dates: DateReader) -> tuple[date, date] | None:
    """The first range of two dates on a line, written in any of the languages: "01.01.2020 bis
    02.02.2020", "July 1, 2022 through July 31, 2022", "du 1er janvier 2021 au 31 janvier 2021"."""
    for line in lines:
        for (_, end, first), (start, _, last) in pairwise(dates.find(line.text)):
            if first <= last and line.folded[end:start].strip() in _CONNECTORS:
                return first, last
    return None


# A range whose days share one month and year ("March 1 - 31, 2024").
_DAY_SPAN = re.compile(
    r"(?P<month>[^\W\d_]{3,}\.?)\s+(?P<first>\d{1,2})\s*[-–]\s*(?P<last>\d{1,2}),?\s+(?P<year>\d{4})"
)
_DAY = re.compile(r"(\d{1,2})(?:st|nd|rd|th|er|\.)?")
MAX_PERIOD_DAYS = 400
MIN_DAY_SPAN = 6  # a period written as two days of one month covers a week at least


def _yearless_range(lines: list[Line], dates: DateReader) -> tuple[date, date] | None:
    """A range whose first date leaves out what the last one says: its year ("1 March to 31
    March 2024", "From 1 Mar to 31 Mar 2024", "15 December to 14 January 2024", the year
    before), its month too ("1 - 31 March 2024"), or both days share a month ("March 1 - 31,
    2024")."""
    for line in lines:
        for match in _DAY_SPAN.finditer(line.text):
            month, year = match["month"], match["year"]
            first = _one_date(dates, f"{month} {match['first']}, {year}")
            last = _one_date(dates, f"{month} {match['last']}, {year}")
            if first and last and first <= last:
                return first, last
        for start, _, last in dates.find(line.text):
            first = _date_before(line, start, last, dates)
            if first is not None:
                return first, last
    return None


def _date_before(line: Line, start: int, last: date, dates: DateReader) -> date | None:
    """The date a connector joins to ``last`` on its left, read with what ``last`` says."""
    words = line.text[:start].split()
    connector = next(
        (n for n in (3, 2, 1) if len(words) > n and fold(" ".join(words[-n:])) in _CONNECTORS),
        None,
    )
    if connector is None:
        return None
    before = words[:-connector]
    first = None
    if before and (day := _DAY.fullmatch(before[-1])):
        try:
            first = last.replace(day=int(day[1]))
        except ValueError:
            return None
        if (last - first).days < MIN_DAY_SPAN:  # "Page 1 to 3 March 2024" is no period
            return None
    for size in (2, 3):  # "1 March", "March 1", "1st of March"
        if first is None and len(before) >= size:
            first = _one_date(dates, f"{' '.join(before[-size:])} {last.year}")
    if first is not None and first > last:
        first = first.replace(year=first.year - 1) if (first.month, first.day) != (2, 29) else None
    if first is None or (last - first).days > MAX_PERIOD_DAYS:
        return None
    return first


def _one_date(dates: DateReader, text: str) -> date | None:
    """``text`` read as one date and nothing else."""
    found = list(dates.find(text))
    return found[0][2] if len(found) == 1 and found[0][:2] == (0, len(text)) else None


def _labelled_period(labelled: dict[str, Found[Any]]) -> tuple[date, date] | None:
    """A period printed as two labelled dates ("Opening date", "Statement date"), or as the
    statement's date and the previous statement's ("Previous statement date")."""
    start, end = _value(labelled, "period_start"), _value(labelled, "period_end")
    previous = _value(labelled, "previous_statement")
    if start is None and previous is not None:
        start = previous + timedelta(days=1)
    return (start, end) if start and end and start <= end else None


# --- bank, currency, card ------------------------------------------------------------------------


def _bank_patterns() -> tuple[dict[str, tuple[str, str | None]], re.Pattern[str], re.Pattern[str]]:
    """Each bank name with the bank it names; names in capitals match only in capitals."""
    banks: dict[str, tuple[str, str | None]] = {}
    for bank in DATA["banks"]:
        for name in bank["names"]:
            key = name if name.isupper() else fold(name)
            banks[key] = (bank["name"], bank.get("country"))
    capitals = sorted((name for name in banks if name.isupper()), key=len, reverse=True)
    words = phrase_pattern(name for name in banks if not name.isupper())
    exact = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, capitals)) + r")(?!\w)")
    return banks, words, exact


_BANKS, _BANK_WORDS, _BANK_CAPITALS = _bank_patterns()
_NOT_A_NAME = phrase_pattern(DATA["first_line"]["not_a_name"])
_CARD = phrase_pattern(DATA["card"]["phrases"])
_LOAN = phrase_pattern(DATA["loan"]["phrases"])


def _phrases(phrases: Iterable[str]) -> list[tuple[str, ...]]:
    """Phrases as tuples of folded words, longest first."""
    return sorted({tuple(fold(p).split()) for p in phrases}, key=len, reverse=True)


_NAMING = DATA["bank_name"]
_LAST_WORDS = _phrases(_NAMING["last_words"])
_FIRST_WORDS = _phrases(_NAMING["first_words"])
_LEGAL_FORMS = frozenset(fold(form) for form in _NAMING["legal_forms"])
_JOINERS = frozenset(fold(word) for word in _NAMING["joiners"])
_NOT_IN_NAME = _phrases([*_NAMING["not_in_name"], *DATA["first_line"]["not_a_name"]])
# What a bank's name may add to a known bank's: "Lloyds Bank plc" is Lloyds.
_BANKING = frozenset(chain(*_LAST_WORDS, *_FIRST_WORDS, _LEGAL_FORMS, _JOINERS))


def _bank(page: PageText, lines: list[Line]) -> tuple[str | None, str | None]:
    """The bank and its country.

    A name printed on the first page's first lines that a banking word ends or starts
    ("Harbour & Crane Bank", "Nordlicht Sparkasse") is the bank's, also over two lines as a
    logo prints it ("ANYCOMPANY" over "BANK"), unless it is a known bank's name with banking
    words only ("DBS Bank Ltd" is DBS). Otherwise a known bank named on the first page (in its
    header or footer first, where the name stands rather than in a transaction), else the first
    line when it reads as a name (no digits, no address, title or label)."""
    first = lines[:NAME_LINES]
    named = next((name for line in first if (name := _printed_bank(line))), None)
    named = named or next(
        (name for line in _stacked_cells(lines, first) if (name := _printed_bank(line))), None
    )
    if named:
        known = _known_in(named)
        if known is None:
            return named, None
        (bank, country), beside = known
        return (bank, country) if all(word in _BANKING for word in beside) else (named, country)
    hits: list[tuple[bool, int, int, int, str]] = []
    for line in lines:
        in_band = line.top < NAME_BAND * page.height or line.bottom > (1 - NAME_BAND) * page.height
        for match in chain(_BANK_WORDS.finditer(line.folded), _BANK_CAPITALS.finditer(line.text)):
            hits.append((not in_band, line.order, match.start(), -len(match[0]), match[0]))
    if hits:
        return _BANKS[min(hits)[-1]]
    if lines and _looks_like_name(lines[0]):
        return lines[0].text.strip(), None
    return None, None


def _stacked_cells(lines: list[Line], first: list[Line]) -> Iterator[Line]:
    """Each cell of the ``first`` lines read with the cell right under it, as one line."""
    for line in first:
        for start, end in line.cells:
            stacked = with_cell_below(lines, line, start, end)
            if stacked is not None:
                yield make_line(line.page, line.order, stacked[1])


def _known_in(name: str) -> tuple[tuple[str, str | None], list[str]] | None:
    """The known bank (and its country) a printed name holds, with the name's other words
    folded; the longest where several known names start at one place."""
    folded = fold(name)
    matches = [(m.start(), -len(m[0]), m[0]) for m in _BANK_WORDS.finditer(folded)]
    matches += [(m.start(), -len(m[0]), m[0]) for m in _BANK_CAPITALS.finditer(name)]
    if not matches:
        return None
    start, size, key = min(matches)
    beside = (folded[:start] + " " + folded[start - size :]).split()
    return _BANKS[key], [word.strip(".,;:") for word in beside]


def _printed_bank(line: Line) -> str | None:
    """A bank's name printed in one cell of the line, as ``[bank_name]`` describes it."""
    for start, end in line.cells:
        words = line.text[start:end].split(" ")
        keys = [fold(word).strip(",;:") for word in words]
        names = [*_names_ending(words, keys), *_names_starting(words, keys)]
        if names:
            return max(names, key=len)
    return None


def _names_ending(words: list[str], keys: list[str]) -> Iterator[str]:
    """Runs of capitalised words ending in a banking word: "Harbour & Crane Bank"."""
    for end in range(1, len(words) + 1):
        phrase = next((p for p in _LAST_WORDS if tuple(keys[end - len(p) : end]) == p), None)
        if phrase is None or not words[end - 1][:1].isupper():
            continue
        start = end - len(phrase)
        while start and _in_name(words, keys, start - 1) and not _stop_before(keys, start):
            start -= 1
        while start < end - len(phrase) and keys[start] in _JOINERS:
            start += 1
        if start < end - len(phrase):
            yield " ".join(words[start:end]).rstrip(",;:")


def _names_starting(words: list[str], keys: list[str]) -> Iterator[str]:
    """Runs of capitalised words after a banking word that starts a name: "Banco Rivera"."""
    for start in range(len(words)):
        phrase = next((p for p in _FIRST_WORDS if tuple(keys[start : start + len(p)]) == p), None)
        if phrase is None or not words[start][:1].isupper():
            continue
        end = start + len(phrase)
        while (
            end < len(words)
            and _in_name(words, keys, end)
            and not _stop_at(keys, end)
            and keys[end] not in _LEGAL_FORMS
        ):
            end += 1
        while end > start + len(phrase) and keys[end - 1] in _JOINERS:
            end -= 1
        if end > start + len(phrase):
            yield " ".join(words[start:end]).rstrip(",;:")


def _in_name(words: list[str], keys: list[str], index: int) -> bool:
    """Whether a word can be part of a bank's name: capitalised or a joiner, without digits."""
    word = words[index]
    return (word[:1].isupper() or keys[index] in _JOINERS) and not any(ch.isdigit() for ch in word)


def _stop_before(keys: list[str], end: int) -> bool:
    """Whether a phrase that is no part of a name ("Your", "Credit Card") ends before
    ``end``."""
    return any(tuple(keys[end - len(p) : end]) == p for p in _NOT_IN_NAME if len(p) <= end)


def _stop_at(keys: list[str], start: int) -> bool:
    """Whether a phrase that is no part of a name starts at ``start``."""
    return any(tuple(keys[start : start + len(p)]) == p for p in _NOT_IN_NAME)


def _looks_like_name(line: Line) -> bool:
    return (
        _NAME.fullmatch(line.text) is not None
        and len(line.words) <= MAX_FIRST_LINE_WORDS
        and not _NOT_A_NAME.search(line.folded)
        and not labels_on(line)
    )


def _currency(first: list[list[Line]], country: str | None) -> str | None:
    """A labelled currency ("Währung: EUR"), else the currency printed most often beside the
    amounts of the first pages, else the currency of the country (of the statement's web
    addresses or its bank) when it prints none. A bare "$" is the dollar of that country, else
    USD."""
    labelled = _labelled(first, {"currency": _codes})
    if "currency" in labelled:
        return str(labelled["currency"].value)
    dollar = DATA["currency"]["dollar_by_country"].get(country, "USD")
    symbols = {**CURRENCY_SYMBOLS, "$": dollar}
    seen: Counter[str] = Counter()
    for line in chain(*first):
        for _, _, money in find_money(line.text):
            if money.currency:
                seen[symbols.get(money.currency, money.currency)] += 1
    if seen:
        return seen.most_common(1)[0][0]
    return _COUNTRY_CURRENCY.get(country) if country else None
