"""Name forms shared by every stage: how a name is shown, folded and compared.

One fold (:func:`fold`, one character table) serves every country name and alias: the gazetteer
builds its surfaces with it (``keep_accents=True``, so Czech and Russian morphology still sees its
endings), the extractor matches answers folded by it, and ingestion resolves dataset names through
the same gazetteer. Dish names compare by :func:`norm_name` (case-folded, built on the same
apostrophe set)."""

from __future__ import annotations

import re
import unicodedata

# Ukrainian writes the apostrophe as ', ʼ (U+02BC) or ’ (U+2019), sometimes ` or ʹ; all mean the same.
APOSTROPHES = "'ʼ’`ʹ‘"
_APOSTROPHE_RE = re.compile(f"[{APOSTROPHES}]")
_SPACES_RE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n\"'«»“”„.,;:!?()[]{}*-–—"

_FOLD = {
    **{apostrophe: "'" for apostrophe in APOSTROPHES},
    "ё": "е",
    "Ё": "е",
    "İ": "i",
    "ı": "i",
    "–": "-",
    "—": "-",
    "‑": "-",
    "\u00a0": " ",
    "\t": " ",
    "\u00ad": "",  # soft hyphen
    # Arabic: hamza and madda on alef, and alef maksura, are often left out ("ايطاليا", "ايران").
    "أ": "ا",
    "إ": "ا",
    "آ": "ا",
    "ى": "ي",
}


class _FoldTable(dict):
    """str.translate table built on demand: lower case, ё->е, one apostrophe and dash form, any
    space as ' ', Arabic alef without hamza or madda; unless `keep_accents`, Latin letters without
    accents (Yoruba tones, "Nigéria") and combining accents dropped.
    Every character maps to at most one character, so only deletions move offsets."""

    def __init__(self, keep_accents: bool) -> None:
        super().__init__()
        self.keep_accents = keep_accents

    def __missing__(self, code: int) -> str:
        char = chr(code)
        if char in _FOLD:
            folded = _FOLD[char]
        elif "\u0300" <= char <= "\u036f" and not self.keep_accents:  # a combining accent standing alone
            folded = ""
        else:
            lowered = char.lower()
            folded = lowered if len(lowered) == 1 else char
            if not self.keep_accents and ("\u00c0" <= folded <= "\u024f" or "\u1e00" <= folded <= "\u1eff"):
                base = unicodedata.normalize("NFD", folded)[0]
                folded = base if base.isascii() else folded
        self[code] = folded
        return folded


_TABLES = {True: _FoldTable(keep_accents=True), False: _FoldTable(keep_accents=False)}


def fold(text: str, *, keep_accents: bool = False) -> str:
    """The one fold of country names and answers (see the module docstring)."""
    return text.translate(_TABLES[keep_accents])


def fold_with_offsets(text: str) -> tuple[str, list[int] | None]:
    """fold(text), and for each of its characters the offset in `text` when they differ (None when
    every character maps to one character, the common case)."""
    folded = fold(text)
    if len(folded) == len(text):
        return folded, None
    table = _TABLES[False]
    positions = [i for i, char in enumerate(text) if table[ord(char)]]
    return folded, positions


def fold_phrase(text: str) -> str:
    """A written name as the gazetteer stores it: folded with its accents, single spaces, trimmed."""
    return _SPACES_RE.sub(" ", fold(text, keep_accents=True)).strip()


def display_name(name: str) -> str:
    """Sentence case for names a dataset wrote in capitals ("ПЕРЕЦ ФАРШИРОВАННЫЙ" -> "Перец
    фаршированный"); mixed-case names are kept. Apostrophes become the typographic ’."""
    text = _SPACES_RE.sub(" ", name.strip())
    letters = [ch for ch in text if ch.isalpha()]
    if letters and all(ch.isupper() for ch in letters):
        text = text[:1].upper() + text[1:].lower()
    return _APOSTROPHE_RE.sub("’", text)


def norm_name(name: str) -> str:
    """Comparison form of a dish name: NFC, case-folded, ё->е, one apostrophe, single spaces, no
    edge punctuation."""
    text = unicodedata.normalize("NFC", name).casefold().replace("ё", "е")
    text = _APOSTROPHE_RE.sub("'", text)
    text = _SPACES_RE.sub(" ", text).strip(_EDGE_PUNCT)
    return text
