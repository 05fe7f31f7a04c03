"""Match words of a question to the merchants, categories and accounts actually indexed.

Every vocabulary value gets a few aliases (its full name, the name without "The" or a generic
tail such as "Market" or "Airlines", the distinctive words of an account name, the bank name).
Aliases and question n-grams are compared with spaces and punctuation squashed out, so
"wholefoods", "Whole Foods" and "trader joes" all hit. A phrase is looked up in this order, the
first that knows it wins:

1. the user's own names, exactly (punctuation and spaces aside);
2. the same with "and" and "&" left out: "PG and E" is "PG&E";
3. a distinctive word of one of the user's categories: "gas" is "Gas & Fuel" (never a word
   questions use for something else: "charges" is money out, not "Fees & Charges");
4. the category synonyms of the lexicons: "gas" is Transportation for a user without it. A
   synonym names a kind of spending; the user's category of that kind is the one with its
   name, one of the names other apps give it (``[category_names]``: "Eating Out" for Dining),
   or one whose name holds its word ("Health & Wellness" for Health, "Auto & Transport" for
   Transportation);
5. typos of any of those, by ``rapidfuzz`` with a length-dependent cut-off;
6. a merchant, else an account or its bank, written in Arabic script, by its consonant
   skeleton (``arabic_names``).

A merchant is also named by a place word its name ends with, when it is the only one
("the gym" is "Iron Works Gym"), and by the words its bank descriptor starts with that are not
English ("AMZN" is Amazon when its rows read "AMZN MKTP US ...").

Matches always carry the canonical, indexed spelling, and say which tier found them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from enum import StrEnum

from rapidfuzz import fuzz, process, utils
from rapidfuzz.distance import OSA

from elastic.ingest.cleaning import descriptor_words
from elastic.model.results import Vocabulary
from llm.embeddings import model_words
from llm.understanding import lexicon
from llm.understanding.arabic_names import (
    arabic_skeletons,
    is_arabic,
    latin_skeleton,
    skeleton_score,
)
from llm.understanding.text_norm import strip_accents

# Written as users say them (``[categories]`` of the lexicons); only targets present in the
# vocabulary are used, and never over a category of the user's own that holds the word.
CATEGORY_SYNONYMS: dict[str, tuple[str, ...]] = {
    word: tuple(targets) for word, targets in lexicon.table("categories").items()
}
# Category names that are direction words in questions ("income" = money in, docs/ARCHITECTURE.md).
_NOT_CATEGORY_ALIASES = {"income"}
# Generic tails dropped to make a shorter merchant alias ("Whole Foods Market" -> "whole foods").
_GENERIC_TAILS = frozenset(lexicon.words("merchants.generic_tails"))
# Account-name words too generic to name one account on their own.
_GENERIC_ACCOUNT_WORDS = frozenset(lexicon.words("account_words.generic"))
# An account whose name holds a kind ("checking") is also named by that kind's words in every
# language ("current account", "الحساب الجاري", "Girokonto"): ``[accounts]`` of the lexicons.
_KIND_ALIASES: dict[str, list[str]] = lexicon.table("accounts")
# Other names apps give a kind of spending ("Eating Out" for Dining): a synonym of that kind
# finds the user's category by them.
_CATEGORY_NAMES: dict[str, list[str]] = lexicon.table("category_names")
_STEM = 5  # a shorter word begins too many others
# Words questions use for what is asked, never a category's distinctive word.
_CUE_WORD = re.compile(
    "|".join(
        lexicon.words("direction.out") + lexicon.words("direction.in") + lexicon.words("rows.many")
    )
)
# Words that may sit inside a name but never start or end a matched phrase.
_EDGE_STOPWORDS = frozenset(lexicon.words("names.edge"))
_TOKEN = re.compile(r"[^\W_]+(?:['&.-][^\W_]+)*")
_MAX_NGRAM = 4
_MIN_NAME = 3  # a shorter name begins too many merchant names
_MIN_EDITED = 5  # one edit in a shorter word makes another word
_AND = re.compile(r"\band\b|&")
# Arabic joins "and", "with", "as" and "for" to the next word: "بالبطاقة" (with the card),
# "وبطاقتي" (and my card), "للحساب" (for the account, the article's alif dropped).
_ARABIC_JOINED = (
    (re.compile(r"^[وف]?لل"), "ال"),
    (re.compile(r"^[وف]?[بكل]"), ""),
    (re.compile(r"^[وف]"), ""),
)


class Kind(StrEnum):
    merchant = "merchant"
    category = "category"
    account = "account"


class Tier(StrEnum):
    """How a phrase was found: the lookup tiers of the module's docstring."""

    own = "own"
    loose = "loose"
    part = "part"
    synonym = "synonym"
    typo = "typo"
    arabic = "arabic"


@dataclass(frozen=True)
class VocabMatch:
    kind: Kind
    values: tuple[str, ...]  # canonical spellings; one alias may name several accounts
    span: tuple[int, int]
    score: float
    tier: Tier = Tier.own


def squash(text: str) -> str:
    """Lower-case letters and digits only, accents dropped: "Trader Joe's" -> "traderjoes"."""
    return "".join(ch for ch in strip_accents(text.casefold()) if ch.isalnum())


def _cutoff(key: str) -> float | None:
    """Short words must match exactly; longer ones may carry a typo or two."""
    if len(key) < 5:
        return None
    return 88.0 if len(key) < 7 else 84.0


class VocabMatcher:
    """Finds vocabulary values in a normalised question; built once per vocabulary."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        # The lookup tiers, in the order of the module's docstring.
        self._own, self._loose, self._parts, self._synonyms = (_aliases() for _ in range(4))
        bank_names = {squash(account.bank_name) for account in vocabulary.accounts}
        for merchant in vocabulary.merchants:
            if squash(merchant) not in bank_names:  # a bank as payee means its accounts
                for alias in _merchant_aliases(merchant):
                    self._add_own(alias, Kind.merchant, merchant)
        for category in vocabulary.categories:
            if category.casefold() not in _NOT_CATEGORY_ALIASES:
                self._add_own(category, Kind.category, category)
                for word in _category_words(category):
                    _add(self._parts, word, Kind.category, category)
        for word, targets in CATEGORY_SYNONYMS.items():
            for target in targets:
                for category in of_kind(target, vocabulary.categories):
                    _add(self._synonyms, word, Kind.category, category)
        for alias, merchant in _place_words(vocabulary.merchants).items():
            self._add_own(alias, Kind.merchant, merchant)
        for alias, merchant in _descriptor_aliases(vocabulary).items():
            self._add_own(alias, Kind.merchant, merchant)
        for account in vocabulary.accounts:
            for alias in _account_aliases(account.account_name, account.bank_name):
                self._add_own(alias, Kind.account, account.account_name)
        self._keys = list(dict.fromkeys([*self._own, *self._synonyms]))
        # Skeletons of Latin-script names, for names written in Arabic script.
        self._skeletons: dict[Kind, defaultdict[str, set[str]]] = {
            Kind.merchant: defaultdict(set),
            Kind.account: defaultdict(set),
        }
        for merchant in vocabulary.merchants:
            for alias in _merchant_aliases(merchant):
                self._skeletons[Kind.merchant][latin_skeleton(alias)].add(merchant)
        for account in vocabulary.accounts:
            bank = account.bank_name.casefold()
            for alias in (account.account_name, bank, bank.removesuffix(" bank")):
                self._skeletons[Kind.account][latin_skeleton(alias)].add(account.account_name)
        self._bank_skeletons = {
            latin_skeleton(" ".join(words[:n]))
            for account in vocabulary.accounts
            for name in (account.bank_name, account.account_name)
            for words in [name.split()]
            for n in range(1, len(words) + 1)
        }
        self.known_words = frozenset(
            word
            for name in (
                *vocabulary.merchants,
                *vocabulary.categories,
                *(a.account_name for a in vocabulary.accounts),
                *(a.bank_name for a in vocabulary.accounts),
            )
            for word in _name_words(name)
        )

    def _add_own(self, alias: str, kind: Kind, value: str) -> None:
        _add(self._own, alias, kind, value)
        _add(self._loose, _without_and(alias), kind, value)

    def find(self, text: str) -> list[VocabMatch]:
        """Non-overlapping matches, best first by score then length, in text order."""
        tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
        candidates: list[tuple[float, int, VocabMatch]] = []
        for size in range(1, _MAX_NGRAM + 1):
            for i in range(len(tokens) - size + 1):
                window = tokens[i : i + size]
                words = [word for word, _, _ in window]
                if words[0] in _EDGE_STOPWORDS or words[-1] in _EDGE_STOPWORDS:
                    continue
                if any(word.isdigit() for word in words):
                    continue
                span = (window[0][1], window[-1][2])
                candidates.extend((m.score, size, m) for m in self._lookup(" ".join(words), span))
        chosen: list[VocabMatch] = []
        for _, _, match in sorted(candidates, key=lambda c: (-c[0], -c[1], c[2].span)):
            if all(match.span[1] <= m.span[0] or m.span[1] <= match.span[0] for m in chosen):
                chosen.append(match)
        return sorted(chosen, key=lambda m: m.span)

    def _lookup(self, phrase: str, span: tuple[int, int]) -> list[VocabMatch]:
        key, score = squash(phrase), 100.0
        tiers = (
            (Tier.own, self._own.get(key)),
            (Tier.loose, self._loose.get(squash(_without_and(phrase)))),
            (Tier.part, self._parts.get(key)),
            (Tier.synonym, self._synonyms.get(key)),
        )
        tier, found = next(((t, f) for t, f in tiers if f), (Tier.own, None))
        if not found and is_arabic(phrase):
            found = next(filter(None, map(self._own.get, _unjoined(phrase))), None)
            if not found:
                return self._arabic(phrase, span)
        if not found:
            cutoff = _cutoff(key)
            if cutoff is None:
                return []
            best = process.extractOne(key, self._keys, scorer=fuzz.ratio, score_cutoff=cutoff)
            if best is None:
                best = _one_edit(key, self._keys)
            if best is None:
                return []
            score, tier = best[1], Tier.typo
            found = self._own.get(best[0]) or self._synonyms[best[0]]
        return [
            VocabMatch(kind, tuple(sorted(values)), span, score, tier)
            for kind, values in found.items()
        ]

    def _arabic(self, phrase: str, span: tuple[int, int]) -> list[VocabMatch]:
        """The merchants, or else the accounts (by account or bank name), whose skeleton an
        Arabic-script phrase spells, best only."""
        written = arabic_skeletons(phrase)
        if not written:
            return []
        scored = [
            (skeleton_score(written, key), kind, key)
            for kind, skeletons in self._skeletons.items()
            for key in skeletons
        ]
        score, kind, key = max(scored, default=(0.0, Kind.merchant, ""))
        if not score:
            return []
        values = tuple(sorted(self._skeletons[kind][key]))
        return [VocabMatch(kind, values, span, score, Tier.arabic)]

    def spells_loaded_bank(self, phrase: str) -> bool:
        """Whether an Arabic-script ``phrase`` spells the start of a loaded bank's or account's
        name ("سيدار فالي" is Cedar Valley Bank, "بلاتينيوم" the Platinum Card)."""
        words = phrase.split()
        spellings = (arabic_skeletons(" ".join(words[:n])) for n in range(1, len(words) + 1))
        return any(
            skeleton_score(written, key) for written in spellings for key in self._bank_skeletons
        )

    def account_by_last4(self, last4: str) -> str | None:
        for account in self.vocabulary.accounts:
            if account.last4 == last4:
                return account.account_name
        return None

    def merchants_starting(self, name: str) -> list[str]:
        """Indexed merchants whose names begin with the words of ``name`` ("Infopay" names
        "Infopay Fiscal Services")."""
        words = _word_keys(name)
        if len("".join(words)) < _MIN_NAME:
            return []
        return [m for m in self.vocabulary.merchants if _word_keys(m)[: len(words)] == words]

    def closest_merchants(self, name: str, limit: int = 2) -> list[str]:
        """Indexed merchants that look like a misspelling of ``name``, best first; often none.

        Partial matching finds "Starbucks" in "starbux coffee roasters"; very short names
        ("ATM") are skipped because they partially match almost anything.
        """
        merchants = [m for m in self.vocabulary.merchants if len(m) >= 4]
        found = process.extract(
            name,
            merchants,
            scorer=fuzz.partial_ratio,
            processor=utils.default_process,
            score_cutoff=78,
            limit=limit,
        )
        return [merchant for merchant, _, _ in found]


# Squashed alias -> the values it names, by kind. ``get`` never adds a key.
_Aliases = defaultdict[str, defaultdict[Kind, set[str]]]


def _aliases() -> _Aliases:
    return defaultdict(lambda: defaultdict(set))


def _add(aliases: _Aliases, alias: str, kind: Kind, value: str) -> None:
    key = squash(alias)
    if key:
        aliases[key][kind].add(value)


def _without_and(text: str) -> str:
    """``text`` without "and" or "&" between its words: "PG and E" and "PG&E" read alike."""
    return _AND.sub(" ", text)


def _unjoined(phrase: str) -> list[str]:
    """The keys of an Arabic ``phrase`` without a word joined to its start."""
    return [squash(p.sub(r, phrase, count=1)) for p, r in _ARABIC_JOINED if p.match(phrase)]


def _one_edit(key: str, keys: list[str]) -> tuple[str, float, int] | None:
    """The one key a single edit from ``key`` (a letter changed, added, dropped, or two
    swapped: "travle", "salery"), when ``key`` is long enough for that to mean a typo."""
    if len(key) < _MIN_EDITED:
        return None
    found = process.extract(key, keys, scorer=OSA.distance, score_cutoff=1, limit=2)
    if len(found) != 1:
        return None
    name, _, index = found[0]
    return name, fuzz.ratio(key, name), index


def _name_words(name: str) -> set[str]:
    """The words of a name as a question may write them: "Trader Joe's" gives trader, joe,
    joe's and joes."""
    words = set(re.findall(r"[^\W\d_]+", name.casefold()))
    for word in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)+", name.casefold()):
        words |= {word, word.replace("'", "")}
    return words


def _category_words(category: str) -> list[str]:
    """The distinctive words of a category named by several ("Gas & Fuel": gas, fuel), not
    those questions use for something else ("charges")."""
    words = [w for w in re.split(r"[\W_]+", _without_and(category.casefold())) if w]
    if len(words) < 2:
        return []
    return [
        w
        for w in words
        if len(w) >= _MIN_NAME and w not in _EDGE_STOPWORDS and not _CUE_WORD.fullmatch(w)
    ]


def of_kind(concept: str, categories: list[str]) -> list[str]:
    """The user's categories of the kind ``concept`` names ("Dining"): that name, the names
    other apps give it, or names holding its word ("Health & Wellness" for Health)."""
    names = {name.casefold() for name in [concept, *_CATEGORY_NAMES.get(concept, [])]}
    exact = [c for c in categories if c.casefold() in names]
    if exact:
        return exact
    concept_words = [w for w in re.split(r"[\W_]+", concept.casefold()) if len(w) >= _STEM]
    return [
        category
        for category in categories
        if any(
            _same_stem(word, mine)
            for word in concept_words
            for mine in re.split(r"[\W_]+", category.casefold())
        )
    ]


def _same_stem(a: str, b: str) -> bool:
    """One word begins the other, and the shorter is a word of its own ("transport" and
    "transportation")."""
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= _STEM and longer.startswith(shorter)


def _place_words(merchants: list[str]) -> dict[str, str]:
    """Place words a single merchant's name ends with ("gym" for "Iron Works Gym")."""
    found: defaultdict[str, set[str]] = defaultdict(set)
    for merchant in merchants:
        last = merchant.casefold().split()[-1]
        if len(merchant.split()) > 1 and last in _GENERIC_TAILS and last in CATEGORY_SYNONYMS:
            found[last].add(merchant)
    return {word: next(iter(names)) for word, names in found.items() if len(names) == 1}


def _descriptor_aliases(vocabulary: Vocabulary) -> dict[str, str]:
    """Merchants named by the start of their bank descriptor when it is no English word
    ("amzn", "amzn mktp" for Amazon; "ichiran" for Tokyo Ramen Ichiran), one merchant each."""
    found: defaultdict[str, set[str]] = defaultdict(set)
    for merchant, descriptor in vocabulary.descriptors.items():
        words = descriptor_words(descriptor).casefold().split()
        if not words or words[0] in model_words() or len(squash(words[0])) < _MIN_NAME:
            continue
        for size in (1, 2):
            if len(words) >= size:
                found[" ".join(words[:size])].add(merchant)
    return {alias: next(iter(names)) for alias, names in found.items() if len(names) == 1}


def _word_keys(text: str) -> list[str]:
    """The squashed words of ``text``: "Infopay Fiscal-Services" -> infopay, fiscal, services."""
    return [key for key in map(squash, re.split(r"[\W_]+", text)) if key]


def _merchant_aliases(merchant: str) -> set[str]:
    name = merchant.casefold()
    aliases = {name}
    if name.startswith("the "):
        name = name[4:]
        aliases.add(name)
    for tail in _GENERIC_TAILS:
        if name.endswith(" " + tail):
            aliases.add(name[: -len(tail) - 1])
    return aliases


def _account_aliases(account_name: str, bank_name: str) -> set[str]:
    name = account_name.casefold()
    aliases = {name, bank_name.casefold(), bank_name.casefold().removesuffix(" bank")}
    words = name.split()  # "high-yield" stays one word: "high" alone names nothing
    aliases.update(w for w in words if w not in _GENERIC_ACCOUNT_WORDS and len(w) >= 4)
    for kind, extra in _KIND_ALIASES.items():
        if kind in name:
            aliases.update(extra)
    return aliases
