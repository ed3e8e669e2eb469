"""Corpus text folded to one byte per character, so the Hyperscan pass is whole-word and fast.

Why: Hyperscan's literal matcher hashes the last bytes of each literal. In UTF-8 Cyrillic every other byte is a
0xD0/0xD1 lead byte and the literals end in the same few inflection endings, so on real Ukrainian text it ran at
80-180 MB/s, below the scanner's budget. The same text with one byte per character, and every boundary character
written as a space byte, lets each literal carry its boundaries (`` борщу ``): Hyperscan then runs several times
faster (0.6-1.2 GB/s of the original text), reports whole words only, and the fold replaces Arrow's lower-casing,
which cost as much as the kernel does.

The fold, per Unicode character (built once per alphabet from :func:`pipeline.extract.gazetteer.normalise`):

* a character that folds to a word character of the surfaces' alphabet (any case, ``ё``→``е``) becomes that
  character's byte (:data:`FIRST_CODE` upward); other word characters (letters and digits of other scripts, ``_``)
  become :data:`WORD`;
* every other character (white space, punctuation, apostrophes, dashes, symbols, emoji) is a word boundary and
  becomes :data:`SPACE`, so ``по-турецьки``, ``по—турецьки`` and ``по турецьки`` fold alike (runs are kept: one
  output byte per character, which keeps the kernel fast);
* combining marks and format characters (a stress accent, a soft hyphen) are dropped: ``бо́рщ`` is ``борщ``.

Documents are framed as ``" " doc0 " \\n " doc1 " \\n " ...``: a name at a document's edge has its spaces, and no
multi-word name spans two documents. Each output value is a uint16: the byte in the low half and, in bit 8,
whether the character was upper case (for the case-sensitive country names: "Того" is Togo, "того" a pronoun).
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass

import numpy as np

from pipeline.core.errors import CorpusError

DROP, WORD, SEP, SPACE = 0, 1, 0x0A, 0x20
FIRST_CODE = 0x21
UPPER = 0x100
SLOW = 0xFFFF  # pair-table entry of a 3- or 4-byte sequence: decoded in the kernel's slow path
_MAX_CODES = 0xFF - FIRST_CODE


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


@dataclass(frozen=True)
class Alphabet:
    """The kernel's lookup tables for the word characters of the surfaces."""

    by_code_point: np.ndarray  # uint16 per BMP code point: byte | UPPER, DROP, SPACE or WORD
    by_pair: np.ndarray  # uint16 per (first byte << 8 | second byte) of a UTF-8 sequence; SLOW for 3/4-byte ones

    @classmethod
    def of(cls, surfaces: list[str]) -> Alphabet:
        from pipeline.extract.gazetteer import normalise  # building only: a cached alphabet needs no gazetteer

        letters = sorted({ch for surface in surfaces for ch in normalise(surface) if _is_word(ch)})
        if len(letters) > _MAX_CODES:
            raise CorpusError(f"the names use {len(letters)} distinct letters; the scanner folds at most {_MAX_CODES}")
        table = _code_point_table(tuple(letters))
        return cls(table, _pair_table(table))

    def encode(self, surface: str) -> bytes:
        """A surface folded exactly as the text is, without its edge spaces ("" when nothing is left)."""
        out = bytes(self._value(ch) & 0xFF for ch in surface)
        return out.replace(bytes([DROP]), b"").strip(b" ")

    def positions(self, text: str) -> list[int]:
        """For one document, the index in `text` of the character behind each folded byte (the kernel's framing
        space excluded); used to cut review samples out of the original text."""
        return [index for index, ch in enumerate(text) if self._value(ch) & 0xFF != DROP]

    def _value(self, ch: str) -> int:
        point = ord(ch)
        return int(self.by_code_point[point]) if point < 0x10000 else astral(point)


@functools.cache
def _code_point_table(letters: tuple[str, ...]) -> np.ndarray:
    """The fold of every BMP character (0.5 s of unicodedata lookups: cached per alphabet)."""
    codes = {ch: FIRST_CODE + i for i, ch in enumerate(letters)}
    table = np.empty(0x10000, dtype=np.uint16)
    for point in range(0x10000):
        table[point] = _fold_char(chr(point), codes)
    table.flags.writeable = False
    return table


def _fold_char(ch: str, codes: dict[str, int]) -> int:
    category = unicodedata.category(ch)
    if category in ("Mn", "Me") or (category == "Cf" and ch != "\u200b"):
        return DROP
    if ch.isspace():
        return SPACE
    from pipeline.extract.gazetteer import normalise

    folded = "".join(c for c in normalise(ch) if unicodedata.category(c) not in ("Mn", "Me"))
    upper = UPPER if ch != ch.lower() else 0
    if len(folded) == 1 and folded in codes:
        return codes[folded] | upper
    if folded and all(_is_word(c) for c in folded):
        return WORD | upper
    if category == "Mc":  # spacing marks of Indic scripts: inside words
        return WORD
    return SPACE  # punctuation (apostrophes and dashes included), symbols, separators, controls


def astral(point: int) -> int:
    """Characters beyond the BMP: emoji and symbols (U+1F000-U+1FFFF) are boundaries, the rest (CJK extensions,
    historic scripts) word characters. (Compiled into the kernel too: pipeline.corpus.kernel.)"""
    return SPACE if 0x1F000 <= point < 0x20000 else WORD


def _pair_table(by_code_point: np.ndarray) -> np.ndarray:
    pairs = np.zeros(0x10000, dtype=np.uint16)
    for first in range(0x80):  # ASCII: the second byte does not matter
        pairs[first << 8 : (first + 1) << 8] = by_code_point[first]
    seconds = np.arange(0x80, 0xC0)
    for first in range(0xC2, 0xE0):  # two-byte sequences
        pairs[(first << 8) | seconds] = by_code_point[((first & 0x1F) << 6) | (seconds & 0x3F)]
    pairs[0xE000:] = SLOW
    return pairs  # continuation bytes (0x80-0xBF first) stay DROP: they emit nothing


@dataclass
class Folded:
    """A batch folded: `text` (one byte per character, framed) and `case` (the same with the UPPER bit);
    document i's characters are text[starts[i]:ends[i]]. Views into the :class:`Folder`'s buffers: valid until
    its next call."""

    text: np.ndarray
    case: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
