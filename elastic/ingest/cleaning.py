"""Cleaning applied to every parsed row: merchant names, one category vocabulary, keyword rules,
own-account transfers and the order in which a row's category is chosen.

Everything language- or brand-specific is data: ``merchants.toml`` (descriptor prefixes,
processors, brand aliases, places, casing) and ``categories.toml`` (vocabulary and synonyms,
keyword rules, transfer patterns). Both are read and compiled once, at import.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from elastic.model.plan import TRANSFERS_CATEGORY
from elastic.visible_text import visible

UNCATEGORIZED = "Uncategorized"

_DATA = Path(__file__).parent


def _load(name: str) -> dict[str, Any]:
    with (_DATA / name).open("rb") as handle:
        return tomllib.load(handle)


_MERCHANT_DATA = _load("merchants.toml")
_CATEGORY_DATA = _load("categories.toml")

# --- text folding ------------------------------------------------------------------------------

_QUOTES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_NON_WORD = re.compile(r"[\W_]+")
_SPACES = re.compile(r"\s+")


def _fold(text: str) -> str:
    """Lower case without accents; ``ß`` becomes ``ss``."""
    text = text.translate(_QUOTES).casefold()
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _words(text: str, *, accents: bool = False) -> str:
    """Words only: lower case, apostrophes dropped, ``+`` read as "plus", punctuation a space."""
    text = text.translate(_QUOTES).replace("'", "").replace("+", " plus ")
    text = text.casefold() if accents else _fold(text)
    return _NON_WORD.sub(" ", text).strip()


def _upper_form(text: str) -> str:
    """How merchant data is compared: upper case, no accents or apostrophes, "A*B" unspaced."""
    text = _fold(text).replace("'", "").upper()
    text = re.sub(r"\s*\*\s*", "*", text)
    return _SPACES.sub(" ", text).strip()


def _alternation(phrases: Iterable[str]) -> str:
    """A regex alternative of literal phrases, longest first, any whitespace between words."""
    escaped = (re.escape(p).replace(r"\ ", r"\s+") for p in sorted(set(phrases), key=len)[::-1])
    return "|".join(escaped)


# --- merchants ---------------------------------------------------------------------------------

_CUT = "\x00"  # marks where noise was; the merchant name ends at the first mark
_MONTH = r"(?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEPT?|OCT|NOV|DEC)\.?"


def _prefix_pattern(phrases: Iterable[str]) -> re.Pattern[str]:
    parts = []
    for phrase in sorted(set(phrases), key=len, reverse=True):
        body = re.escape(phrase).replace(r"\ ", r"\s+")
        parts.append(body + (r"(?!\w)" if phrase[-1].isalnum() else ""))
    return re.compile(rf"^(?:{'|'.join(parts)})", re.IGNORECASE)


_DIGITS = re.compile(r"\d+")


def _is_reference(match: re.Match[str]) -> str:
    """Long codes mixing letters and digits ("P000ADC0BB12345") are references, not names."""
    token = match.group()
    runs = _DIGITS.findall(token)
    looks_coded = len(runs) >= 2 or sum(map(len, runs)) >= 4
    return f" {_CUT} " if looks_coded else token


_PREFIX = _prefix_pattern(_MERCHANT_DATA["prefixes"])
_PAYMENT_CODE = _prefix_pattern(_MERCHANT_DATA["payment_codes"])
_PROCESSOR = re.compile(
    rf"^(?:{_alternation(_MERCHANT_DATA['processors'])})\s*\*\s*", re.IGNORECASE
)
_CURRENCIES = "|".join(_MERCHANT_DATA["currency_codes"])
_LEADING_JUNK = re.compile(rf"^[\s{_CUT}\-–—:;,./|*#+&]+")
_NOISE = re.compile(
    "|".join(
        f"(?:{pattern})"
        for pattern in (
            # IBANs, in capitals only
            r"(?-i:\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b)",
            # an amount with its currency ("DKK 995,00", "215 LTL")
            rf"\b(?:{_CURRENCIES})\s*\d[\d.,']*",
            rf"(?<![\w.])\d[\d.,']*\s*(?:{_CURRENCIES})\b",
            # reference labels and what follows them
            rf"\b(?:{_alternation(_MERCHANT_DATA['reference_labels'])})"
            r"(?:\s*[.:#+]\s*\S+|\s+\S*\d\S*)",
            # dates and times: 2024-03-12T18:22, 12.03.24, 12/03, 12 MAR 24, MAR 12, 5PM
            r"\b\d{4}[-./]\d{2}(?:[-./]\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?)?\b",
            r"(?<![\w.])\d{1,2}[./-]\d{1,2}(?:[./-]\d{2,4})?\.?(?!\w)",
            rf"\b\d{{1,2}} ?{_MONTH}(?: ?\d{{2,4}})?(?!\w)",
            rf"\b{_MONTH} ?\d{{1,2}}(?!\w)",
            r"\b\d{1,2}[:h]\d{2}(?::\d{2})?(?: ?[AP]M)?\b",
            r"\b\d{1,2} ?[AP]M\b",
            # a number in brackets ("(469012)")
            r"\(\d+\)",
            # phone numbers
            r"(?<!\w)(?:\+\d{1,3}[ .-]?)?\(?\d{3}\)?[ .-]\d{3}[ .-]?\d{4}(?!\w)",
            r"\+\d[\d ]{7,}\d",
            # card numbers, masked or labelled
            r"\b\d{4,6}[X*•]{4,}\d{2,4}\b",
            r"(?<![A-Z0-9])[X*•]{2,}\d{2,4}\b",
            r"(?<![\w*])\*\d{2,4}\b",
            r"(?<![A-Z0-9])X\d{4}\b",
            rf"\b(?:{_alternation(_MERCHANT_DATA['card_labels'])})\.?\s?"
            r"(?:NO\.?|NR\.?|ENDING(?: IN)?|NUM\.?|#)?\s?:?\s?[X*\d]*\d{2,}\b",
            # store, branch and terminal numbers
            rf"\b(?:{_alternation(_MERCHANT_DATA['store_labels'])})[\s.:#-]*[A-Z0-9]*\d[A-Z0-9]*\b",
            r"\bT-\d{3,}\b",
            r"#\s?\d+",
            r"(?<!\w)\d{3,}(?!\w)",
            # field separators of fixed-width and structured descriptors
            r"\s{2,}|//|/\s|\s[|¦]\s|\s[-–]\s|\(",
        )
    ),
    re.IGNORECASE,
)
_REFERENCE_TOKEN = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,}\b", re.IGNORECASE)
_DOMAIN = re.compile(
    r"^(?:www\.)?([a-z0-9][a-z0-9&-]*)(?:\.[a-z0-9-]+)*"
    r"\.(?:com|net|org|co\.uk|gov\.uk|co|uk|de|fr|es|nl|se|eu|io|app|tv|me)(?:/\S*)?$",
    re.IGNORECASE,
)
_ALIASES = {
    _upper_form(stem): brand for brand, stems in _MERCHANT_DATA["aliases"].items() for stem in stems
}
_ALIAS = re.compile(rf"^(?:{_alternation(_ALIASES)})(?![A-Z0-9])")
_TRAILING_WORDS = _alternation(
    [
        *_MERCHANT_DATA["legal_forms"],
        *_MERCHANT_DATA["billing_words"],
        *_MERCHANT_DATA["booking_codes"],
    ]
)
_TRAILING = re.compile(rf"(?:[\s,]+(?:{_TRAILING_WORDS})\.?(?!\w))+\s*$", re.IGNORECASE)
_LOCATION_CODES = frozenset(_MERCHANT_DATA["location_codes"])
_CITIES = frozenset(_upper_form(city) for city in _MERCHANT_DATA["cities"])
_CITY_WORDS = max(len(city.split()) for city in _CITIES)
_TRUNCATED_CITY = 5  # a fixed-width field cut a city name to at least this many letters
_CASING = {word.upper(): word for word in _MERCHANT_DATA["casing"]}
_PARTICLES = frozenset(_MERCHANT_DATA["particles"])
_EDGE_PUNCTUATION = " \t-–—:;,./|*#&("
_LETTER_RUN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_VOWELS = frozenset("AEIOUYÅÄÖÜÉÈ")


@lru_cache(maxsize=1 << 16)
def normalise_merchant(raw: str) -> str:
    """A clean merchant name from a raw card or bank descriptor; "" when nothing is left.

    Channel prefixes ("Kartenzahlung", "CB", "SQ *"), dates, card and store numbers,
    references, phone numbers, trailing places and company forms are dropped; known brands
    come back in their own spelling ("AMZN Mktp US*2K3AB" -> "Amazon").
    """
    text = _denoised(raw)
    brand = _ALIAS.match(_upper_form(text))
    if brand:
        return _ALIASES[brand.group()]
    name = _named_part(text)
    return _recase(name) if name else ""


def descriptor_words(raw: str) -> str:
    """The words of a raw descriptor that name its merchant, as the bank wrote them (no known
    brand put in their place): "AMZN MKTP US SEATTLE WA" -> "AMZN MKTP US". Users name
    merchants by them too ("what did I spend at AMZN?")."""
    return _named_part(_denoised(raw))


def _denoised(raw: str) -> str:
    """The descriptor with noise marked and channel prefixes dropped."""
    text = unicodedata.normalize("NFKC", visible(raw)).translate(_QUOTES).replace(_CUT, " ")
    text = _NOISE.sub(f" {_CUT} ", text)
    text = _REFERENCE_TOKEN.sub(_is_reference, text)
    return _strip_leading(text)


def _named_part(text: str) -> str:
    """The words of a denoised descriptor before its first noise, web address, place or
    company form; "" when no letters are left."""
    if "*" in text:  # "DOORDASH*CHIPOTLE": the part before the star names the merchant
        text = _payee_part(text.split("*"))
    text = _payee_part(text.split(_CUT))
    tokens = _without_domains(text.split())
    name = _SPACES.sub(" ", _without_places_and_forms(tokens).strip(_EDGE_PUNCTUATION))
    return name if _LETTER_RUN.search(name) else ""


def _strip_leading(text: str) -> str:
    """Drop separators, noise marks, channel prefixes, payment codes and processor codes from
    the start."""
    while True:
        stripped = _LEADING_JUNK.sub("", text)
        stripped = _PREFIX.sub("", stripped)
        stripped = _PROCESSOR.sub("", stripped)
        coded = _PAYMENT_CODE.sub("", stripped)
        if coded != stripped and _names_payee(coded):
            stripped = coded
        if stripped == text:
            return text
        text = stripped


def _names_payee(text: str) -> bool:
    """Whether what follows a payment code names someone: a word that is no place, and not a
    number first ("BP 8834 BIRMINGHAM" is a BP station)."""
    if text.lstrip().startswith(_CUT):
        return False
    words = [w.strip(",.") for w in text.split(_CUT, 1)[0].split()]
    while words and (words[-1] in _LOCATION_CODES or _upper_form(words[-1]) in _CITIES):
        words.pop()
    for size in range(min(_CITY_WORDS, len(words)), 0, -1):
        if _upper_form(" ".join(words[-size:])) in _CITIES:
            words = words[:-size]
            break
    return any(_LETTER_RUN.search(word) for word in words)


def _payee_part(parts: list[str]) -> str:
    """The part of a descriptor that names the payee: the first, unless it only names the kind
    of purchase ("Food Purchase", "Groceries") and a later part has a name."""
    named = [part for part in parts if _LETTER_RUN.search(part)]
    for index, part in enumerate(named[:-1]):
        if _words(part) not in _KIND_PARTS:
            return part
        if not _LETTER_RUN.search(named[index + 1]):
            return part
    return named[-1] if named else (parts[0] if parts else "")


def _without_domains(tokens: list[str]) -> list[str]:
    """Keep the name of a leading web address ("NETFLIX.COM" -> "NETFLIX"); a web address
    after the name ends it."""
    for i, token in enumerate(tokens):
        domain = _DOMAIN.match(token)
        if domain and i == 0:
            tokens = [domain.group(1), *tokens[1:]]
        elif domain:
            return tokens[:i]
    return tokens


def _is_cut_city(token: str) -> bool:
    """Whether ``token`` is a city name cut short by a fixed-width field ("S-GRAVEN")."""
    word = _upper_form(token.strip(",."))
    return len(word) >= _TRUNCATED_CITY and any(
        len(city) > len(word) and city.startswith(word) for city in _CITIES
    )


def _without_places_and_forms(tokens: list[str]) -> str:
    """Drop trailing state/country codes, cities (also when cut short), company forms, billing
    words ("AUTOPAY") and booking codes, keeping at least one word; "" when only a state or
    country code is left."""
    if len(tokens) == 1 and tokens[0].strip(",.") in _LOCATION_CODES:
        return ""
    while True:
        before = len(tokens)
        if len(tokens) > 1 and (
            tokens[-1].strip(",.") in _LOCATION_CODES or _is_cut_city(tokens[-1])
        ):
            tokens = tokens[:-1]
        for size in range(min(_CITY_WORDS, len(tokens) - 1), 0, -1):
            if _upper_form(" ".join(tokens[-size:]).strip(",.")) in _CITIES:
                tokens = tokens[:-size]
                break
        text = _TRAILING.sub("", " ".join(tokens))
        tokens = text.split() or tokens
        if len(tokens) == before:
            return " ".join(tokens)


def _recase(name: str) -> str:
    """Title-case an all-upper or all-lower name; a name already in mixed case is kept."""
    if any(ch.islower() for ch in name) and any(ch.isupper() for ch in name):
        return name
    words = []
    for i, word in enumerate(name.split()):
        if word.upper() in _CASING:
            words.append(_CASING[word.upper()])
        elif i and word.lower() in _PARTICLES:
            words.append(word.lower())
        else:
            words.append(_LETTER_RUN.sub(_recase_run, word))
    return " ".join(words)


def _recase_run(match: re.Match[str]) -> str:
    run = match.group()
    upper = run.upper()
    if upper in _CASING:
        return _CASING[upper]
    if 2 <= len(run) <= 4 and not _VOWELS.intersection(upper):
        return upper  # an acronym such as "BVG" or "KFC"
    cased = run.capitalize()
    if len(run) > 3 and run[1] == "'":  # "O'NEILL" -> "O'Neill"
        cased = cased[:2] + cased[2:].capitalize()
    return cased


# --- categories --------------------------------------------------------------------------------

_CONNECTORS = frozenset({"and", "und", "et", "y", "en", "och"})
_LABEL_PARTS = re.compile(r"\s*(?:[>:|/]|\s-\s)\s*")


def _label_key(label: str) -> str:
    """A category label compared without case, accents, punctuation or "and" words."""
    return " ".join(w for w in _words(label).split() if w not in _CONNECTORS)


def _synonym_table(table: Mapping[str, list[str]]) -> dict[str, str]:
    found: dict[str, str] = {}
    for category, labels in table.items():
        for label in [category, *labels]:
            key = _label_key(label)
            if found.setdefault(key, category) != category:
                raise ValueError(f"category label {label!r} is listed under two categories")
    return found


CATEGORIES: tuple[str, ...] = tuple(_CATEGORY_DATA["synonyms"])
"""The category vocabulary (the names the sample data uses)."""
if TRANSFERS_CATEGORY not in CATEGORIES:
    raise ValueError(f"categories.toml does not define {TRANSFERS_CATEGORY!r}")
_SYNONYMS = _synonym_table(_CATEGORY_DATA["synonyms"])
_BLANK = frozenset(_label_key(label) for label in _CATEGORY_DATA["blank"])
# Parts of a descriptor that name the kind of purchase, not the payee (``_payee_part``).
_KIND_PARTS = frozenset(
    _words(label)
    for label in (
        *_MERCHANT_DATA["kind_parts"],
        *(label for labels in _CATEGORY_DATA["synonyms"].values() for label in labels),
        *_CATEGORY_DATA["synonyms"],
    )
)


def canonical_category(raw: str | None) -> str | None:
    """The vocabulary category a file's own label means, in any of six languages; else None.

    Hierarchical labels ("Food & Drink > Restaurants") are read from the most specific part.
    """
    if raw is None:
        return None
    key = _label_key(raw)
    if not key or key in _BLANK:
        return None
    if key in _SYNONYMS:
        return _SYNONYMS[key]
    for part in reversed(_LABEL_PARTS.split(raw)):
        found = _SYNONYMS.get(_label_key(part))
        if found:
            return found
    return None


def category_label(raw: str | None) -> str | None:
    """A file's category as stored: the vocabulary name when known, else the file's own label
    title-cased; None when the file leaves it blank or says "uncategorised"."""
    key = _label_key(raw) if raw else ""
    if not key or key in _BLANK:
        return None
    known = canonical_category(raw)
    if known:
        return known
    label = _SPACES.sub(" ", raw.replace("_", " ")).strip()
    if label.islower() or label.isupper():
        return " ".join(word.capitalize() for word in label.split())
    return label


@dataclass(frozen=True)
class _Keywords:
    """Rule keywords compiled for lookup: words and phrases in a dictionary (phrase -> index of
    the first rule listing it), compound keywords ("*gebühr*") as one regex per rule."""

    phrases: dict[str, int]
    spans: dict[str, int]  # first word of a phrase -> words in the longest phrase it starts
    compounds: tuple[tuple[int, re.Pattern[str]], ...]  # by rule index

    @classmethod
    def compile(cls, rules: list[dict[str, Any]], field: str, *, accents: bool) -> _Keywords:
        phrases: dict[str, int] = {}
        spans: dict[str, int] = {}
        compounds = []
        for index, rule in enumerate(rules):
            stretched = []
            for keyword in rule.get(field, ()):
                core = _words(keyword.strip("*"), accents=accents)
                if keyword.startswith("*") or keyword.endswith("*"):
                    # A "*" side needs no word boundary: the compound continues there.
                    head = "" if keyword.startswith("*") else r"(?<!\w)"
                    tail = "" if keyword.endswith("*") else r"(?!\w)"
                    stretched.append(f"{head}{re.escape(core)}{tail}")
                else:
                    phrases.setdefault(core, index)
                    first, *rest = core.split()
                    spans[first] = max(spans.get(first, 1), 1 + len(rest))
            if stretched:
                compounds.append((index, re.compile("|".join(stretched))))
        return cls(phrases, spans, tuple(compounds))

    def first_rule(self, text: str, best: int) -> int:
        """The lowest rule index below ``best`` with a keyword in ``text``, else ``best``."""
        words = text.split()
        for start, word in enumerate(words):
            for size in range(1, self.spans.get(word, 0) + 1):
                phrase = " ".join(words[start : start + size])
                best = min(best, self.phrases.get(phrase, best))
        for index, pattern in self.compounds:
            if index >= best:
                break
            if pattern.search(text):
                return index
        return best


def _rule_categories(rules: list[dict[str, Any]]) -> tuple[str, ...]:
    for rule in rules:
        if rule["category"] not in CATEGORIES:
            raise ValueError(f"rule category {rule['category']!r} is not in the vocabulary")
    return tuple(rule["category"] for rule in rules)


_RULE_CATEGORIES = _rule_categories(_CATEGORY_DATA["rules"])
_RULE_WORDS = _Keywords.compile(_CATEGORY_DATA["rules"], "words", accents=False)
_RULE_EXACT = _Keywords.compile(_CATEGORY_DATA["rules"], "exact", accents=True)


def rule_category(merchant: str, description: str) -> str | None:
    """The category of the first keyword rule matching the merchant, else the description.

    The merchant is asked first because it is the cleaned payee: "CB SNCF INTERNET" is a train
    ticket bought online, not an internet bill.
    """
    for text in (merchant, description):
        best = _RULE_WORDS.first_rule(_words(text), len(_RULE_CATEGORIES))
        best = _RULE_EXACT.first_rule(_words(text, accents=True), best)
        if best < len(_RULE_CATEGORIES):
            return _RULE_CATEGORIES[best]
    return None


# --- transfers ---------------------------------------------------------------------------------

TRANSFER_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern) for pattern in _CATEGORY_DATA["transfers"]["patterns"]
)
"""Descriptor patterns for own-account moves; matched against lower-case, accent-free text."""


def is_transfer_text(description: str) -> bool:
    """Whether a descriptor says the row moves money between the user's own accounts, pays a
    card bill, tops up from an own card or exchanges between currency pockets."""
    text = _SPACES.sub(" ", _fold(description)).strip()
    return any(pattern.search(text) for pattern in TRANSFER_PATTERNS)


@dataclass(frozen=True)
class PairCandidate:
    """One transaction of a user, as transfer pairing sees it."""

    id: str
    account_no: str
    date: date
    amount: Decimal  # signed: negative is money out of the account
    currency: str


_Legs = tuple[list[PairCandidate], list[PairCandidate]]  # (money out, money in)


def find_transfer_pairs(rows: Sequence[PairCandidate], window_days: int = 3) -> set[str]:
    """Ids of rows that pair up as the two legs of a transfer between the user's accounts.

    Two rows pair when they are in the same currency, of equal magnitude and opposite sign, on
    different accounts, and at most ``window_days`` apart. Each row joins at most one pair;
    closer dates pair first, and ties go to the smaller ids.
    """
    groups: defaultdict[tuple[str, Decimal], _Legs] = defaultdict(lambda: ([], []))
    for row in rows:
        if row.amount:
            groups[(row.currency, abs(row.amount))][row.amount > 0].append(row)
    paired: set[str] = set()
    for outgoing, incoming in groups.values():
        if outgoing and incoming:
            paired |= _pair_legs(outgoing, incoming, window_days)
    return paired


def _pair_legs(
    outgoing: list[PairCandidate], incoming: list[PairCandidate], window_days: int
) -> set[str]:
    incoming = sorted(incoming, key=lambda row: (row.date, row.id))
    days = [row.date.toordinal() for row in incoming]
    candidates = []
    for out in outgoing:
        day = out.date.toordinal()
        for i in range(bisect_left(days, day - window_days), bisect_right(days, day + window_days)):
            if incoming[i].account_no != out.account_no:
                candidates.append((abs(days[i] - day), out.id, incoming[i].id))
    candidates.sort()
    used: set[str] = set()
    for _, out_id, in_id in candidates:
        if out_id not in used and in_id not in used:
            used.update((out_id, in_id))
    return used


# --- choosing a category -----------------------------------------------------------------------


class Categoriser:
    """Chooses each row's category and says whether it was inferred.

    The order, first answer wins:

    1. the user's correction for the merchant (``overrides``): the user's word, not inferred;
    2. the file's own category, mapped onto the vocabulary or kept title-cased: not inferred;
    3. "Transfers" when the description names an own-account move: inferred;
    4. keyword rules over merchant and description: inferred;
    5. the merchant's most common category in the user's history: inferred;
    6. the optional ``fallback`` (e.g. a language model): inferred;
    7. "Uncategorized": inferred.

    A file category wins over transfer wording, so transfer wording decides only when the file
    leaves the category blank (or says "uncategorised"). ``overrides`` and ``history`` are keyed
    by the normalised merchant name.
    """

    def __init__(self, fallback: Callable[[str, str], str | None] | None = None) -> None:
        self._fallback = fallback

    def categorise(
        self,
        merchant: str,
        description: str,
        file_category: str | None,
        history: Mapping[str, str],
        overrides: Mapping[str, str],
    ) -> tuple[str, bool]:
        """``(category, inferred)`` for one row."""
        corrected = (overrides.get(merchant) or "").strip() if merchant else ""
        if corrected:
            return corrected, False
        given = category_label(file_category)
        if given:
            return given, False
        if is_transfer_text(description):
            return TRANSFERS_CATEGORY, True
        ruled = rule_category(merchant, description)
        if ruled:
            return ruled, True
        usual = (history.get(merchant) or "").strip() if merchant else ""
        if usual:
            return usual, True
        guessed = category_label(self._fallback(merchant, description)) if self._fallback else None
        return (guessed or UNCATEGORIZED), True
