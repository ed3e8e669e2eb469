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
_CODES = {Language.ENGLISH: "en", Language.RUSSIAN: "ru", Language.UKRAINIAN: "uk"}


@functools.cache
def _cyrillic_detector() -> LanguageDetector:
    return LanguageDetectorBuilder.from_languages(Language.RUSSIAN, Language.UKRAINIAN).build()


@functools.cache
def _latin_detector() -> LanguageDetector:
    return LanguageDetectorBuilder.from_languages(*_LATIN_LANGUAGES).build()


def answer_language(text: str | None) -> str | None:
    """ru | uk | en | other; None for an empty answer."""
    if text is None or not any(ch.isalpha() for ch in text):
        return None
    cyrillic, latin = len(_CYRILLIC.findall(text)), len(_LATIN.findall(text))
    if cyrillic and cyrillic >= latin:
        # Letters only one of the two alphabets has settle short answers ("Грузія") at once.
        uk, ru = bool(_UKRAINIAN_ONLY.search(text)), bool(_RUSSIAN_ONLY.search(text))
        if uk != ru:
            return "uk" if uk else "ru"
        return _CODES.get(_cyrillic_detector().detect_language_of(text), "ru")
    if latin:
        # lingua cannot tell a one-word "Japan" from other Latin languages; an English country name is English.
        words = text.strip(" .!\"'*").split()
        if len(words) <= 3 and lookup(" ".join(words), "en") is not None:
            return "en"
        return _CODES.get(_latin_detector().detect_language_of(text), "other")
    return "other"


def answer_languages(texts: Sequence[str | None]) -> list[str | None]:
    return [answer_language(text) for text in texts]
