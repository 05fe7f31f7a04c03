"""Columns read by what they hold: for a layout no profile knows, or a file without a header.

Every column's cells are measured: how many read as dates (and in which order), as amounts
(which decimal mark, signs), as currency codes, as text (how varied, how name-like); a money
column whose steps follow another is a running balance. A header name is evidence that raises
a reading (the synonyms of ``csv_profiles.toml``, in many languages), never a requirement. The
result is a ``ColumnMapping`` for the CSV reader and, for each column, its reading with the
evidence, which the CLI and the Ingest page show; a reading the cells leave open is marked
unsure, so the person importing can be asked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from itertools import permutations

from babel.numbers import list_currencies

from elastic.ingest.currency_names import currency_named

SURE = 0.9  # share of a column's filled cells that must read as a kind
FILLED = 0.4  # share of rows a date or money column must fill

_DATE_PATTERNS = tuple(
    re.compile(p)
    for p in (
        r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\.?(?:,?[ T]\d{1,2}:\d{2}(?::\d{2})?.*)?",
        r"\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2})\.?(?:,?\s+\d{1,2}:\d{2}(?::\d{2})?.*)?",
        r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:\d{6})?(?:\[.*\])?",
        r"\d{1,2}[-. ]?[^\W\d_]{3,9}\.?[-. ]?(?:\d{4}|\d{2})",
        r"[^\W\d_]{3,9}\.? \d{1,2},? \d{4}",
    )
)
_AMOUNT = re.compile(
    r"\(?[-+]?\s*(?:[^\W\d_]{1,3}\.?\s*|[$€£¥₹₽₩₺₪₴₱฿]\s*)?[-+]?\s*"
    r"(?P<number>\d{1,3}(?:[.,'’ \u00a0]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?|[.,]\d{1,2})"
    r"\s*-?\s*(?:[^\W\d_]{1,3}|[$€£¥₹₽₩₺₪₴₱฿])?\)?"
)
_FRACTION = re.compile(r"[.,]\d{1,2}\)?\s*(?:[^\W\d_]{1,3}|[$€£¥₹₽₩₺₪₴₱฿])?\)?$")
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")
_IBAN_OR_NUMBER = re.compile(r"[A-Z]{2}\d{2}[A-Z0-9 ]{8,30}|[\d/ -]{6,}")
BORDERS = "|¦"  # table borders a printed layout leaves around a value ("26851.95|")


def unframed(cell: str) -> str:
    """A cell's value without the spaces and table borders around it."""
    return cell.strip().strip(BORDERS).strip()


@cache
def _currencies() -> frozenset[str]:
    return frozenset(list_currencies())


@dataclass(frozen=True)
class ColumnReading:
    """What one column was read as, and why: shown to the person importing."""

    position: int  # 0-based
    name: str  # the header, or "column N"
    role: str | None  # a ColumnMapping role, or None: not used
    evidence: str
    sure: bool = True

    def sentence(self) -> str:
        role = self.role.replace("_", " ") if self.role else "not used"
        unsure = " (unsure: check it)" if not self.sure else ""
        column = f"column {self.position + 1}"
        if self.name != column:
            column += f" ({self.name})"
        return f"{column} read as {role}: {self.evidence}{unsure}"


@dataclass(frozen=True)
class _Stats:
    position: int
    name: str
    filled: float  # share of rows with a value
    dates: float
    amounts: float
    fractions: float  # share of amounts with decimals
    currencies: float
    texts: float
    distinct: int
    negatives: int
    positives: int
    mean_length: float
    digit_share: float
    decimal: str | None
    values: tuple[str, ...]  # the column's cells, in row order ("" when empty)


@dataclass(frozen=True)
class Reading:
    """A layout read from its content: roles by column, conventions, and every column's
    reading for the report."""

    roles: dict[str, str | tuple[str, ...]]  # role → header name(s), for ColumnMapping
    readings: tuple[ColumnReading, ...]
    sign: str  # a ColumnMapping sign
    notes: tuple[str, ...]

    @property
    def unsure(self) -> bool:
        return any(not r.sure for r in self.readings)


def _is_date(cell: str) -> bool:
    return any(p.fullmatch(cell) for p in _DATE_PATTERNS)


def amount_value(cell: str) -> Decimal | None:
    text = unframed(cell)
    if not _DIGIT.search(text):
        return None
    crdr = re.fullmatch(r"(.*?)\s*\b(CR|DR|Cr|Dr)\.?", text)
    if crdr:
        text = crdr.group(1)
    match = _AMOUNT.fullmatch(text)
    if not match:
        return None
    number = (
        match["number"].replace(" ", "").replace("\u00a0", "").replace("'", "").replace("’", "")
    )
    fraction = re.search(r"[.,](\d{1,2})$", number)
    whole = number[: fraction.start()] if fraction else number
    whole = whole.replace(".", "").replace(",", "") or "0"
    try:
        value = Decimal(f"{whole}.{fraction.group(1) if fraction else '0'}")
    except InvalidOperation:
        return None
    negative = "-" in text or (text.startswith("(") and text.endswith(")"))
    if crdr and crdr.group(2).upper() == "DR":
        negative = True
    return -value if negative else value


def read_as_value(cell: str) -> str | None:
    """ "date" or "amount" when a cell reads as one, else None (a name or other text)."""
    cell = cell.strip()
    if _is_date(cell):
        return "date"
    return "amount" if amount_value(cell) is not None else None


def _decimal_mark(cell: str) -> str | None:
    found = re.search(r"([.,])\d{1,2}\)?\s*\D{0,3}$", cell.strip())
    return found.group(1) if found else None


def _is_currency(cell: str) -> bool:
    """An ISO 4217 code, or a currency's name in words ("人民币")."""
    return (cell.upper() in _currencies() and cell.isalpha()) or currency_named(cell) is not None


def _stats(position: int, name: str, column: Sequence[str]) -> _Stats:
    cells = [c.strip() for c in column]
    filled = [c for c in cells if c]
    n = len(filled) or 1
    amounts = [(c, v) for c in filled if not _is_date(c) and (v := amount_value(c)) is not None]
    marks = Counter(m for c, _ in amounts if (m := _decimal_mark(c)))
    return _Stats(
        position=position,
        name=name,
        filled=len(filled) / (len(cells) or 1),
        dates=sum(map(_is_date, filled)) / n,
        amounts=len(amounts) / n,
        fractions=sum(bool(_FRACTION.search(c)) for c, _ in amounts) / (len(amounts) or 1),
        currencies=sum(_is_currency(c) for c in filled) / n,
        texts=sum(bool(_LETTER.search(c)) for c in filled) / n,
        distinct=len(set(filled)),
        negatives=sum(v < 0 for _, v in amounts),
        positives=sum(v > 0 for _, v in amounts),
        mean_length=sum(map(len, filled)) / n,
        digit_share=sum(len(_DIGIT.findall(c)) for c in filled) / (sum(map(len, filled)) or 1),
        decimal=marks.most_common(1)[0][0] if marks else None,
        values=tuple(cells),
    )


def read(
    names: Sequence[str],
    rows: Sequence[Sequence[str]],
    role_of_name: Callable[[str], str | None],
    word_kind: Callable[[str], str | None],
    direction_values: frozenset[str],
    credit_words: Callable[[str], bool],
    card_names: Callable[[str], bool] = lambda _: False,
) -> Reading | None:
    """The reading of ``rows`` (cells as strings) under ``names``, or None when no column reads
    as dates or no column as money: then the file is not a transaction list.

    ``role_of_name`` gives a header's role by its synonyms, ``word_kind`` a payment kind for a
    type column's value, ``direction_values`` the words of a debit/credit column, and
    ``credit_words`` whether a text says the row pays a card off or refunds it, and
    ``card_names`` whether a header names a card (a card's export, when amounts are unsigned).
    """
    if not rows:
        return None
    width = len(names)
    columns = [[row[i] if i < len(row) else "" for row in rows] for i in range(width)]
    stats = [_stats(i, names[i], columns[i]) for i in range(width)]
    named = {s.position: role_of_name(s.name) for s in stats}
    taken: dict[int, tuple[str, str, bool]] = {}  # position → (role, evidence, sure)

    def by_name(s: _Stats, role: str) -> str:
        return f', and its header "{s.name}" says so' if named[s.position] == role else ""

    # Dates: the first column that reads as dates, a header naming one preferred.
    dates = [s for s in stats if s.dates >= SURE and s.filled >= FILLED]
    if not dates:
        return None
    date = max(dates, key=lambda s: (named[s.position] == "date", -s.position))
    taken[date.position] = ("date", f"{date.dates:.0%} of its cells read as dates", True)

    # Money: amounts with decimals, or whole numbers under a money header.
    money = [
        s
        for s in stats
        if s.position not in taken
        and s.amounts >= SURE
        and s.filled >= 0.05
        and (s.distinct > 1 or len(rows) == 1)  # one row: every column is "constant"
        and (s.fractions >= 0.3 or named[s.position] in _MONEY_ROLES or s.negatives)
        and not (s.digit_share > 0.9 and s.fractions == 0 and s.mean_length >= 6)
    ]
    if not money:
        return None
    values = {s.position: [amount_value(c) if c else None for c in s.values] for s in money}
    balances = _balances(money, values)
    for position, (role, evidence) in balances.items():
        taken[position] = (role, evidence, True)
    flows = [s for s in money if s.position not in taken]
    sign = "signed"
    notes: list[str] = []
    if not flows:
        return None
    pair = _debit_credit(flows, values, named)
    if pair:
        debit, credit, evidence, sure = pair
        taken[debit.position] = ("debit", evidence, sure)
        taken[credit.position] = ("credit", evidence, sure)
        sign = "debit_credit"
        notes.append("amounts read from a debit and a credit column: money out, money in")
    else:
        amount = max(flows, key=lambda s: (named[s.position] == "amount", s.filled, -s.position))
        kind = "signed amounts" if amount.negatives else "amounts, all positive"
        evidence = f"{amount.amounts:.0%} of its cells read as {kind}"
        if amount.decimal:
            evidence += ", decimal " + ("comma" if amount.decimal == "," else "point")
        sure = True
        taken[amount.position] = ("amount", evidence + by_name(amount, "amount"), sure)
        for other in flows:
            if other.position != amount.position:
                taken[other.position] = (
                    "",
                    "a second money column, not used (the first one reads as the amount)",
                    named[other.position] not in _MONEY_ROLES,
                )
    # Currency codes, a debit/credit direction, a type.
    for s in stats:
        if s.position in taken:
            continue
        folded = {v.strip().casefold() for v in s.values if v.strip()}
        if s.currencies >= SURE:
            taken[s.position] = (
                "currency",
                "every cell is an ISO 4217 code or a currency's name",
                True,
            )
        elif folded and folded <= direction_values and (len(folded) > 1 or named[s.position]):
            taken[s.position] = (
                "direction",
                f"its values ({', '.join(sorted(folded))}) say which way the money went",
                True,
            )
            if sign == "signed":
                sign = "direction_column"
                notes.append("amounts read as unsigned, with a column saying debit or credit")
        elif (
            folded
            and s.distinct <= max(3, len(rows) // 3)
            and s.texts >= SURE
            and (
                sum(word_kind(v) is not None for v in folded) * 2 >= len(folded)
                or named[s.position] == "payment_type"
            )
        ):
            taken[s.position] = ("payment_type", "its values name kinds of payment", True)
    _one_currency(taken)
    # Account numbers: a constant column of digits or an IBAN.
    for s in stats:
        if s.position in taken:
            continue
        if (
            s.distinct == 1
            and s.dates < SURE
            and _IBAN_OR_NUMBER.fullmatch(next(v for v in s.values if v.strip()))
        ):
            taken[s.position] = ("account_no", "the same account number on every row", True)
    # Text: the most varied, longest text is the description; a shorter, name-like one the
    # counterparty. Header names decide first.
    texts = [s for s in stats if s.position not in taken and s.texts >= 0.5 and s.filled >= 0.2]
    description = _pick(texts, named, "description", lambda s: s.distinct * s.mean_length)
    if description is None:
        return None
    taken[description.position] = (
        "description",
        f"{description.distinct} different text(s), {description.mean_length:.0f} characters "
        f"on average" + by_name(description, "description"),
        named[description.position] in (None, "description"),
    )
    rest = [s for s in texts if s.position != description.position]
    merchant = _pick(
        [s for s in rest if s.digit_share < 0.2 and s.distinct > 1],
        named,
        "merchant",
        lambda s: s.distinct / (1 + s.mean_length / 20),
    )
    if merchant is not None and (named[merchant.position] in ("merchant", None)):
        taken[merchant.position] = (
            "merchant",
            "names of people and businesses" + by_name(merchant, "merchant"),
            named[merchant.position] == "merchant",
        )
    for s in rest:
        if s.position not in taken and named[s.position] in _TEXT_ROLES:
            role = named[s.position] or ""
            taken[s.position] = (role, f'its header "{s.name}" says so', True)
    # A single amount column that is all positive, or whose negative rows are card payments
    # and refunds, may print spend as positive.
    if sign == "signed":
        card = any(card_names(name) for name in names)
        sign, note, sure = _sign_of(taken, stats, values, credit_words, card)
        notes.append(note)
        at = next(p for p, t in taken.items() if t[0] == "amount")
        taken[at] = (taken[at][0], taken[at][1], taken[at][2] and sure)
    readings = []
    for s in stats:
        role, evidence, sure = taken.get(s.position, ("", _unused(s), True))
        readings.append(ColumnReading(s.position, s.name, role or None, evidence, sure))
    roles: dict[str, str | tuple[str, ...]] = {}
    for r in readings:
        if r.role and r.role not in roles:
            roles[r.role] = r.name
    roles["description"] = (str(roles["description"]),)
    return Reading(roles, tuple(readings), sign, tuple(notes))


_MONEY_ROLES = {"amount", "debit", "credit", "balance", "balance_before", "fee"}
_TEXT_ROLES = {"category", "merchant", "account_name", "transaction_id", "account_no"}


def _unused(s: _Stats) -> str:
    if not any(v.strip() for v in s.values):
        return "empty"
    if s.dates >= SURE:
        return "another date (the first date column is the booking date)"
    return "not needed to land a transaction"


def _pick(
    candidates: Sequence[_Stats],
    named: Mapping[int, str | None],
    role: str,
    score: Callable[[_Stats], float],
) -> _Stats | None:
    if not candidates:
        return None
    by_name = [s for s in candidates if named[s.position] == role]
    if by_name:
        return by_name[0]
    free = [s for s in candidates if named[s.position] is None]
    return max(free, key=score) if free else None


def _balances(
    money: Sequence[_Stats], values: Mapping[int, list[Decimal | None]]
) -> dict[int, tuple[str, str]]:
    """Money columns that are balances: a balance before each row and one after it (the
    before plus the amount is the after, and the before is the previous row's after), else a
    balance after each row whose steps are another column's amounts, in either row order."""
    for before, amount, after in permutations(money, 3):
        x, y, z = values[before.position], values[amount.position], values[after.position]
        rows = [(a, b, c) for a, b, c in zip(x, y, z, strict=True) if None not in (a, b, c)]
        if not rows or not all(a + b == c for a, b, c in rows):
            continue
        chained = sum(x[i] == z[i - 1] for i in range(1, len(x)) if x[i] is not None)
        swapped = sum(y[i] == z[i - 1] for i in range(1, len(y)) if y[i] is not None)
        if swapped > chained or (swapped == chained and amount.negatives < before.negatives):
            continue  # the other order of the same triple names the balance before
        return {
            before.position: (
                "balance_before",
                f"each value plus the row's amount "
                f"({amount.name}) is {after.name}: the balance before the row",
            ),
            after.position: ("balance", f"the balance before plus the amount ({amount.name})"),
        }
    for amount, balance in permutations(money, 2):
        if balance_steps(values[amount.position], values[balance.position]) is not None:
            return {
                balance.position: (
                    "balance",
                    f"each value is the one before plus or minus the row's amount ({amount.name})",
                )
            }
    return {}


@dataclass(frozen=True)
class BalanceSteps:
    """How a running balance moves against the amounts printed beside it, in the row order it
    chains in: by the amount as printed (``follows``) or by minus it (``opposes``)."""

    follows: int
    opposes: int
    steps: int  # rows with an amount and a balance, and one before them in that order
    newest_first: bool = False  # the order they chain in: the rows list the newest first

    @property
    def decided(self) -> int:
        return self.follows + self.opposes


def balance_steps(
    amounts: Sequence[Decimal | None], balances: Sequence[Decimal | None]
) -> BalanceSteps | None:
    """How ``balances`` step with ``amounts`` (a row's balance is the one before it plus or
    minus its amount), oldest or newest row first, whichever chains more rows; None when
    fewer than 80% of the steps are an amount: then the column is no running balance of
    them. Amounts of 0 show no direction and are left out."""
    best: BalanceSteps | None = None
    for newest_first in (False, True):
        follows = opposes = steps = 0
        for i in range(1, len(amounts)):
            if newest_first:  # row i - 1 is the later one: its amount made the step
                older, newer, amount = balances[i], balances[i - 1], amounts[i - 1]
            else:
                older, newer, amount = balances[i - 1], balances[i], amounts[i]
            if older is None or newer is None or not amount:
                continue
            steps += 1
            follows += newer - older == amount
            opposes += newer - older == -amount
        found = BalanceSteps(follows, opposes, steps, newest_first)
        if (
            steps
            and found.decided >= 0.8 * steps
            and (best is None or found.decided > best.decided)
        ):
            best = found
    return best


def sign_by_balance(steps: BalanceSteps, signed: bool) -> tuple[str, str] | None:
    """The sign convention a running balance shows, and the sentence that says so; None when
    it shows none. ``signed``: whether some amounts are negative. The balance is the money
    held: it steps down on money out."""
    if steps.opposes and steps.opposes >= 0.8 * steps.decided:
        return "spend_positive", (
            "amounts read as money out when positive: the balance steps down by each "
            "positive amount"
        )
    if steps.follows and steps.follows >= 0.8 * steps.decided:
        return "signed", (
            "amounts read as signed: negative = money out, as the balance steps with them"
        )
    if not signed and steps.follows and steps.opposes:
        return "balance_steps", BALANCE_STEPS_NOTE
    return None


BALANCE_STEPS_NOTE = (
    "amounts are unsigned: each row's direction is read from its balance's step (down = money out)"
)


def _one_currency(taken: dict[int, tuple[str, str, bool]]) -> None:
    """Of several currency columns (an amount in the currency it was paid in, and again in the
    account's), the first after the amount column read (else the last before it): the currency
    of those amounts."""
    found = sorted(p for p, (role, _, _) in taken.items() if role == "currency")
    money = [p for p, (role, _, _) in taken.items() if role in ("amount", "debit", "credit")]
    if len(found) < 2 or not money:
        return
    after = [p for p in found if p > max(money)]
    chosen = after[0] if after else found[-1]
    taken[chosen] = ("currency", "every cell names a currency; the amounts' currency", True)
    for position in found:
        if position != chosen:
            taken[position] = ("", "another currency column (of other amounts)", True)


def _debit_credit(
    flows: Sequence[_Stats],
    values: Mapping[int, list[Decimal | None]],
    named: Mapping[int, str | None],
) -> tuple[_Stats, _Stats, str, bool] | None:
    """Two money columns that are never filled on the same row: money out and money in."""
    for i, first in enumerate(flows):
        for second in flows[i + 1 :]:
            a, b = values[first.position], values[second.position]
            both = sum(
                x is not None and y is not None and x != 0 and y != 0
                for x, y in zip(a, b, strict=True)
            )
            if both:
                continue
            if named[second.position] == "debit" or named[first.position] == "credit":
                first, second = second, first
            sure = named[first.position] == "debit" or named[second.position] == "credit"
            evidence = "never filled on the same row as the other money column" + (
                "; the headers say which is which" if sure else "; the left one read as money out"
            )
            return first, second, evidence, sure
    return None


def _sign_of(
    taken: Mapping[int, tuple[str, str, bool]],
    stats: Sequence[_Stats],
    values: Mapping[int, list[Decimal | None]],
    credit_words: Callable[[str], bool],
    card: bool,
) -> tuple[str, str, bool]:
    """``decide_sign`` for the columns read as the amount, the description and the balance."""
    role = {t[0]: p for p, t in taken.items()}
    description = next(s for s in stats if s.position == role["description"])
    balances = values[role["balance"]] if "balance" in role else None
    return decide_sign(values[role["amount"]], description.values, balances, credit_words, card)


def decide_sign(
    amounts: Sequence[Decimal | None],
    texts: Sequence[str],
    balances: Sequence[Decimal | None] | None,
    credit_words: Callable[[str], bool],
    card: bool,
) -> tuple[str, str, bool]:
    """The sign convention of one amount column ("signed", "spend_positive" or
    "balance_steps"), the sentence that states it, and whether the rows decide it: from their
    wording (negative rows that pay a card off or refund it), the running balance's direction
    (an account's balance steps down on money out), and column names that say the export is a
    card's (``card``)."""
    negatives = [t for v, t in zip(amounts, texts, strict=True) if v is not None and v < 0]
    positives = [t for v, t in zip(amounts, texts, strict=True) if v is not None and v > 0]
    steps = balance_steps(amounts, balances) if balances is not None else None
    # A card's balance may be what is owed, which steps up with the spend: only an account's
    # says which way money went.
    by_balance = sign_by_balance(steps, bool(negatives)) if steps and not card else None
    if negatives and positives:
        negative_credits = sum(map(credit_words, negatives)) / len(negatives)
        positive_credits = sum(map(credit_words, positives)) / len(positives)
        if negative_credits >= 0.5 and positive_credits < 0.2 and len(positives) > len(negatives):
            note = (
                "amounts read as card spend: positive = money out (the negative rows are "
                "payments to the card and refunds)"
            )
            agrees = by_balance is None or by_balance[0] == "spend_positive"
            return "spend_positive", note, agrees
    if by_balance is not None:
        return by_balance[0], by_balance[1], True
    if positives and not negatives and card:
        note = "every amount is positive and the columns name a card: read as card spend "
        return "spend_positive", note + "(positive = money out)", False
    if positives and not negatives:
        return (
            "signed",
            (
                "every amount is positive: read as money in; if this is a card's spend, "
                "change the sign convention"
            ),
            False,
        )
    return "signed", "amounts read as signed: negative = money out", True
