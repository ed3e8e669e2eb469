"""The language an answer is written in (ru, uk, en or other): answering in another language than
the prompt's is itself a finding. lingua decides between candidates of the answer's script;
Cyrillic answers are only ever Russian or Ukrainian here."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from lingua import Language, LanguageDetector, LanguageDetectorBuilder

from pipeline.extract.gazetteer import lookup

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_UKRAINIAN_ONLY = re.compile(r"[іїєґІЇЄҐ]")
_RUSSIAN_ONLY = re.compile(r"[ыэёъЫЭЁЪ]")
# Latin-script languages of the WorldCuisines prompts, so that Spanish is not called English.
_LATIN_LANGUAGES = (
    Language.ENGLISH,
    Language.SPANISH,
    Language.FRENCH,
    Language.ITALIAN,
    Language.INDONESIAN,
    Language.TAGALOG,
    Language.AZERBAIJANI,
    Language.CZECH,
    Language.YORUBA,
    Language.GERMAN,
    Language.PORTUGUESE,
)
_CYRILLIC_LANGUAGES = (Language.RUSSIAN, Language.UKRAINIAN)  # Cyrillic answers are only ever these here
# every language `answer_language` may ask lingua about (callers that load lingua's models ahead of time)
LINGUA_LANGUAGES = frozenset({*_LATIN_LANGUAGES, *_CYRILLIC_LANGUAGES})
_CODES = {Language.ENGLISH: "en", Language.RUSSIAN: "ru", Language.UKRAINIAN: "uk"}


@functools.cache
def _cyrillic_detector() -> LanguageDetector:
    return LanguageDetectorBuilder.from_languages(*_CYRILLIC_LANGUAGES).build()


@functools.cache
def _latin_detector() -> LanguageDetector:
    return LanguageDetectorBuilder.from_languages(*_LATIN_LANGUAGES).build()


# What the rules leave to lingua: which of its two detectors decides, and what it says when it names no language.
_ASK_CYRILLIC, _ASK_LATIN = "?cyrillic", "?latin"
_LINGUA = {_ASK_CYRILLIC: (_cyrillic_detector, "ru"), _ASK_LATIN: (_latin_detector, "other")}
OPEN = frozenset(_LINGUA)  # `by_rule`'s verdicts that leave the language to lingua (`by_lingua`)


def _by_rule(text: str | None) -> str | None:
    """The language when a rule settles it, else which lingua detector must (`_ASK_*`)."""
    if text is None or not any(ch.isalpha() for ch in text):
        return None
    cyrillic, latin = len(_CYRILLIC.findall(text)), len(_LATIN.findall(text))
    if cyrillic and cyrillic >= latin:
        # Letters only one of the two alphabets has settle short answers ("Грузія") at once.
        uk, ru = bool(_UKRAINIAN_ONLY.search(text)), bool(_RUSSIAN_ONLY.search(text))
        if uk != ru:
            return "uk" if uk else "ru"
        return _ASK_CYRILLIC
    if latin:
        # lingua cannot tell a one-word "Japan" from other Latin languages; an English country name is English.
        words = text.strip(" .!\"'*").split()
        if len(words) <= 3 and lookup(" ".join(words), "en") is not None:
            return "en"
        return _ASK_LATIN
    return "other"


def answer_language(text: str | None) -> str | None:
    """ru | uk | en | other; None for an empty answer."""
    decided = _by_rule(text)
    if decided in _LINGUA:
        return by_lingua([(decided, text)])[0]
    return decided


def by_rule(texts: Sequence[str | None]) -> list[str | None]:
    """Each text's language where a rule settles it, else which of lingua's detectors must (a key of `by_lingua`'s
    pairs): the cheap half of `answer_language`, so that the costly half can run elsewhere."""
    return [_by_rule(text) for text in texts]


# lingua reads a text only as its words: the runs of letters of the lower-cased text (single characters for Han and
# kana). ASCII digits, punctuation, spaces and symbols are never part of a word, so a run of them parts words exactly as
# one space does, and an ASCII capital is read as its small letter: texts equal after folding those are one text to
# lingua ("Pizza!" and "pizza"). A capital sigma lower-cases by its neighbours (final ς), so a text with one is kept as
# it is. Measured on the demo's 57,428 texts left to lingua: 54,391 distinct folded texts (5% fewer calls), and every
# text's verdict equal to its own call's.
_ASCII_NON_LETTERS = re.compile(r"[\x00-@\[-`{-\x7f]+")
_ASCII_CAPITALS = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SHARED_MAX = 1 << 18  # folded texts remembered by one process (a long-lived caller's memory stays bounded)
_shared: dict[tuple[str, str], str] = {}


def lingua_text(text: str) -> str:
    """The text as lingua reads it, for sharing one call between texts: ASCII capitals lower-cased, runs of ASCII
    non-letters one space; a text with a capital sigma unchanged."""
    if "\u03a3" in text:
        return text
    return _ASCII_NON_LETTERS.sub(" ", text.translate(_ASCII_CAPITALS)).strip(" ")


def lingua_verdict(ask: str, text: str) -> str:
    """lingua's own verdict on one text for `by_rule`'s open verdict `ask` (one call, nothing shared)."""
    detector, default = _LINGUA[ask]
    return _CODES.get(detector().detect_language_of(text), default)


def by_lingua(asked: Sequence[tuple[str, str]]) -> list[str]:
    """The language of each (`by_rule`'s open verdict, text): what `answer_language` gives it, one lingua call per
    distinct `lingua_text` (per process, across calls). The score stage runs this in a worker process beside its own
    work (lingua's batch call holds the GIL)."""
    if len(_shared) > _SHARED_MAX:
        _shared.clear()
    found = []
    for ask, text in asked:
        key = (ask, lingua_text(text))
        code = _shared.get(key)
        if code is None:
            code = _shared[key] = lingua_verdict(ask, text)
        found.append(code)
    return found


def answer_languages(texts: Sequence[str | None]) -> list[str | None]:
    """`answer_language` of each text; the texts the rules leave open go to lingua in one batch per detector,
    which spreads them over the cores (lingua's per-text work is most of the cost)."""
    decided = [_by_rule(text) for text in texts]
    for ask, (detector, default) in _LINGUA.items():
        asked = [index for index, value in enumerate(decided) if value == ask]
        if asked:
            found = detector().detect_languages_in_parallel_of([texts[index] for index in asked])
            for index, language in zip(asked, found, strict=True):
                decided[index] = _CODES.get(language, default)
    return decided
