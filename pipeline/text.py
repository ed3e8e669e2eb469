"""Name forms shared by every stage: how a dish name is shown and how it is compared."""

from __future__ import annotations

import re
import unicodedata

# Ukrainian writes the apostrophe as ', ʼ (U+02BC) or ’ (U+2019), sometimes ` or ʹ; all mean the same.
APOSTROPHES = "'ʼ’`ʹ‘"
_APOSTROPHE_RE = re.compile(f"[{APOSTROPHES}]")
_SPACES_RE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n\"'«»“”„.,;:!?()[]{}*-–—"


def display_name(name: str) -> str:
    """Sentence case for names a dataset wrote in capitals ("ПЕРЕЦ ФАРШИРОВАННЫЙ" -> "Перец
    фаршированный"); mixed-case names are kept. Apostrophes become the typographic ’."""
    text = _SPACES_RE.sub(" ", name.strip())
    letters = [ch for ch in text if ch.isalpha()]
    if letters and all(ch.isupper() for ch in letters):
        text = text[:1].upper() + text[1:].lower()
    return _APOSTROPHE_RE.sub("’", text)


def norm_name(name: str) -> str:
    """Comparison form: NFC, case-folded, ё->е, one apostrophe, single spaces, no edge punctuation."""
    text = unicodedata.normalize("NFC", name).casefold().replace("ё", "е")
    text = _APOSTROPHE_RE.sub("'", text)
    text = _SPACES_RE.sub(" ", text).strip(_EDGE_PUNCT)
    return text
