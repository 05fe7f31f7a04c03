"""Latin-script names written in Arabic script: "ستاربكس" is Starbucks, "هول فودز" Whole Foods.

Both spellings are reduced to a skeleton: letters become sound classes that Arabic and Latin
writing share (p and b, v and f, c and k or s, s and z, sh/ch and ش), and vowels, with the
semi-vowels w and y, are only marked, since Arabic omits short vowels in borrowed names. Names
match when their consonants agree and Arabic writes a vowel wherever the Latin name has a long
one ("ماريوت" is Marriott, "مارت" is not). Arabic letters with no Latin counterpart (ع, ح, خ)
keep a class of their own, and a phrase holding one names no merchant; nor does a word with
the article "ال". So ordinary Arabic words rarely reduce to a merchant's skeleton. A skeleton
needs sound classes rather than a letter-for-letter romanisation, so the table is kept here
instead of in a transliteration library.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from llm.understanding.text_norm import strip_accents

# Arabic letter -> sound class ("" drops it, "_" is a written vowel). Capitals are classes
# Latin never produces.
_ARABIC = {
    **dict.fromkeys("اآوىي", "_"),
    **dict.fromkeys("أإءؤئة\u0640", ""),
    "ه": "h",
    **dict.fromkeys("بپ", "b"),
    **dict.fromkeys("تطث", "t"),
    **dict.fromkeys("دض", "d"),
    **dict.fromkeys("سصزذظ", "s"),
    **dict.fromkeys("كقگ", "k"),
    **dict.fromkeys("جغ", "g"),
    **dict.fromkeys("فڤ", "f"),
    "ش": "C",
    "ر": "r",
    "ل": "l",
    "م": "m",
    "ن": "n",
    "ع": "E",
    "ح": "H",
    "خ": "X",
}
# Latin spellings, digraphs first, -> sound class; vowels, w and y are marked "_".
_LATIN = (
    (re.compile(r"sh|ch|tch|ti(?=o)"), "C"),
    (re.compile(r"ph"), "f"),
    (re.compile(r"th"), "t"),
    (re.compile(r"ck|q"), "k"),
    (re.compile(r"c(?=[eiy])"), "s"),
    (re.compile(r"c"), "k"),
    (re.compile(r"x"), "ks"),
    (re.compile(r"[zs]"), "s"),
    (re.compile(r"[pb]"), "b"),
    (re.compile(r"v"), "f"),
    (re.compile(r"j"), "g"),
    (re.compile(r"[aeiouyw]"), "_"),
    (re.compile(r"[^a-zC_]"), ""),
)
ARABIC_LETTERS = "[\u0621-\u064a\u067e\u06a4\u06af]"
_ARABIC_LETTER = re.compile(ARABIC_LETTERS)
# Prepositions Arabic joins to a name: ب (at), ل (for).
_PREFIX = re.compile(r"^[بل](?=\w{4})")
# The article, also after a joined "and", "at" or "for": "الثاني", "والمطاعم", "للسفر"; a
# word needs two letters after it ("فالي" is Valley).
_ARTICLE = re.compile(r"^(?:[وفبك]?ال|لل)(?=\w{2})")
MIN_SKELETON = 2
_EXACT_BELOW = 5  # shorter skeletons must be equal; longer ones may differ by one letter
_CUTOFF = 90.0


def is_arabic(text: str) -> bool:
    return _ARABIC_LETTER.search(text) is not None


def _collapse(classes: str) -> str:
    """Doubled letters are one sound: "Starbucks" has one k, "Shell" one l."""
    return re.sub(r"([^_])\1+", r"\1", classes)


def latin_skeleton(name: str) -> str:
    """The skeleton of a Latin-script name, vowels marked: "Whole Foods" -> "_h_lf__ds"."""
    text = strip_accents(name.casefold())
    for pattern, sound in _LATIN:
        text = pattern.sub(sound, text)
    return _collapse(text)


def arabic_skeletons(phrase: str) -> set[str]:
    """The skeletons an Arabic-script phrase may stand for: as written, and without a joined
    prefix on its first word ("بستاربكس", at Starbucks)."""
    words = phrase.split()
    if any(_ARTICLE.match(word) for word in words):
        return set()
    spellings = {" ".join(words)}
    if words and (bare := _PREFIX.sub("", words[0])) != words[0]:
        spellings.add(" ".join([bare, *words[1:]]))
    found = set()
    for spelling in spellings:
        letters = spelling.replace(" ", "").replace("تش", "ش")  # "تشيبوتلي", Chipotle
        skeleton = _collapse("".join(_ARABIC.get(ch, "") for ch in letters))
        consonants = skeleton.replace("_", "")
        if len(consonants) >= MIN_SKELETON and not set(consonants) & set("EHX"):
            found.add(skeleton)
    return found


def _vowels_written(arabic: str, latin: str) -> bool:
    """Whether Arabic writes a vowel wherever the Latin name has a long one ("oo", "io"):
    "ماريوت" is Marriott, "مارت" (mart) is not."""
    pairs = zip(re.split(r"[^_]", arabic), re.split(r"[^_]", latin), strict=True)
    return all(written for written, latin_run in pairs if len(latin_run) >= 2)


def skeleton_score(arabic: set[str], latin: str) -> float:
    """How well an Arabic phrase's skeletons spell a Latin name's, 0-100; 0 below the cut.
    Short skeletons must be equal, with the long vowels written; longer ones may differ by a
    letter."""
    consonants = latin.replace("_", "")
    best = 0.0
    for skeleton in arabic:
        written = skeleton.replace("_", "")
        if written == consonants and _vowels_written(skeleton, latin):
            return 100.0
        if min(len(written), len(consonants)) >= _EXACT_BELOW:
            best = max(best, fuzz.ratio(written, consonants, score_cutoff=_CUTOFF))
    return best
