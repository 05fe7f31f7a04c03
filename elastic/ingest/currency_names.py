"""Currencies as exports name them in words ("人民币", "Euro", "российский рубль"), in the
languages whose headers FinSync reads, from the CLDR data Babel ships: a currency column that
holds names instead of ISO 4217 codes is still the rows' currency."""

from __future__ import annotations

from functools import cache

from babel import Locale

# The languages of the header synonyms (csv_profiles.toml): an export in one of them names its
# currency in it, or in English.
NAME_LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "sv", "ru", "zh")


@cache
def _codes_by_name() -> dict[str, str]:
    names: dict[str, str] = {}
    for language in NAME_LANGUAGES:
        for code, name in Locale.parse(language).currencies.items():
            names.setdefault(name.casefold(), code)
    return names


def currency_named(text: str) -> str | None:
    """The ISO 4217 code of the currency ``text`` names in words; None when it names none."""
    return _codes_by_name().get(text.strip().casefold())
