"""Which text encoding a file is in: found with charset-normalizer, then checked.

UTF-8 and UTF-16 are told by their bytes (a BOM, valid UTF-8, or the zero bytes UTF-16 puts
beside ASCII). For everything else charset-normalizer ranks the single-byte code pages banks
still write (Windows and ISO Latin, Central European, Cyrillic, the DOS code pages), and a
reader accepts a guess only when the text then reads (its ``check``); otherwise the next one is
tried. The guess that reads is never a silent default: the reader says which it used.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable

import charset_normalizer

# Code pages of bank exports, most common first: the order breaks ties and is the fallback.
CODE_PAGES = (
    "cp1252",
    "cp1250",
    "cp1251",
    "iso8859_2",
    "koi8_r",
    "cp850",
    "cp437",
    "cp866",
    "mac_roman",
    "latin_1",
)
NAMES = {
    "utf_8": "UTF-8",
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",
    "utf_16": "UTF-16",
    "utf-16": "UTF-16",
    "utf-16-le": "UTF-16 LE",
    "utf-16-be": "UTF-16 BE",
    "cp1252": "Windows-1252",
    "cp1250": "Windows-1250 (Central European)",
    "cp1251": "Windows-1251 (Cyrillic)",
    "iso8859_2": "ISO 8859-2",
    "koi8_r": "KOI8-R",
    "cp850": "DOS code page 850",
    "cp437": "DOS code page 437",
    "cp866": "DOS code page 866 (Cyrillic)",
    "mac_roman": "Mac Roman",
    "latin_1": "Latin-1",
    "latin-1": "Latin-1",
}
SAMPLE_BYTES = 256 * 1024
_TEXT_SIGNS = frozenset("…§°·•¿¡«»ºª²³½¼¾")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def name(encoding: str) -> str:
    """The encoding as a person knows it ("Windows-1251 (Cyrillic)")."""
    return NAMES.get(encoding, NAMES.get(codecs.lookup(encoding).name, encoding))


def utf16(head: bytes) -> str | None:
    """ "utf-16" for a file with a UTF-16 BOM, "utf-16-le"/"utf-16-be" for one without whose
    zero bytes fall on one side of ASCII characters; else None."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    sample = head[:512]
    if len(sample) < 8:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > len(odd) * 0.6 and even.count(0) < len(even) * 0.1:
        return "utf-16-le"
    if even.count(0) > len(even) * 0.6 and odd.count(0) < len(odd) * 0.1:
        return "utf-16-be"
    return None


def text_head(head: bytes) -> bytes:
    """The first bytes of a file as UTF-8 for sniffing, whatever their Unicode form."""
    found = utf16(head)
    if found is None:
        return head
    cut = head[: len(head) - len(head) % 2]
    return cut.decode(found, errors="ignore").encode("utf-8")


def candidates(sample: bytes) -> list[str]:
    """Single-byte encodings for ``sample`` (non-ASCII bytes of the file), likeliest first.

    charset-normalizer ranks them (its ties, where no language shows, in the order of
    ``CODE_PAGES``); a code page that turns the bytes into symbols rather than
    letters (Mac Roman's "‰" for a German "ä") goes after those that read them as letters; and
    a text that reads the same in Windows-1252 is called that, the usual code page."""
    order: list[str] = []
    preference = {codecs.lookup(e).name: i for i, e in enumerate(CODE_PAGES)}
    if sample:
        results = list(charset_normalizer.from_bytes(sample, cp_isolation=list(CODE_PAGES)))
        # Guesses it cannot tell apart (the same mess, no language found) go in the usual order.
        ranked = sorted(
            results,
            key=lambda m: (
                round(m.chaos, 3),
                -round(m.coherence, 3),
                preference.get(codecs.lookup(m.encoding).name, len(preference)),
            ),
        )
        order = [codecs.lookup(match.encoding).name for match in ranked]
    order += list(preference)
    ranked = sorted(dict.fromkeys(order), key=lambda encoding: -_letter_share(sample, encoding))
    if ranked and _same_text(sample, ranked[0], "cp1252"):
        ranked.insert(0, "cp1252")
    return list(dict.fromkeys(ranked))


def _letter_share(sample: bytes, encoding: str) -> float:
    """The share of non-ASCII characters that text is made of (letters, currency signs,
    dashes and quotes), to two places; -1 when the bytes do not decode."""
    try:
        text = sample.decode(encoding)
    except UnicodeDecodeError:
        return -1.0
    wide = [c for c in text if ord(c) > 127]
    return round(sum(map(_textual, wide)) / len(wide), 2) if wide else 1.0


def _textual(char: str) -> bool:
    category = unicodedata.category(char)
    return category[0] == "L" or category in ("Sc", "Pd", "Pi", "Pf") or char in _TEXT_SIGNS


def _same_text(sample: bytes, one: str, other: str) -> bool:
    try:
        return sample.decode(one) == sample.decode(other)
    except UnicodeDecodeError:
        return False


def decode(raw: bytes, check: Callable[[str], bool] = lambda _: True) -> tuple[str, str]:
    """``raw`` as text and the encoding read: UTF-8 or UTF-16 when the bytes are, else the first
    candidate whose text passes ``check``; the likeliest when none does."""
    if raw.startswith(codecs.BOM_UTF8):
        return raw[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    if found := utf16(raw):
        return raw.decode(found, errors="replace").lstrip("\ufeff"), found
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    sample = b"\n".join(line for line in raw[:SAMPLE_BYTES].splitlines() if not line.isascii())
    first: tuple[str, str] | None = None
    for encoding in candidates(sample):
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        first = first or (text, encoding)
        if check(text):
            return text, encoding
    return first or (raw.decode("latin-1"), "latin-1")


def without_controls(text: str) -> str:
    """Text with control bytes (SWIFT envelopes' SOH/ETX, NUL padding) removed."""
    return _CONTROL.sub("", text)
