"""Mentions of a country's name or adjective that speak of a language or of people, not of where a dish is
from: "the Japanese text on the price tags", "a Danish immigrant", "the Indian community of Durban", "English
translation", "Spanish-speaking countries", "bahasa Indonesia", "ภาษาไทย" (the Thai language), "スペイン語圏"
(Spanish-speaking world), "스페인어" (Spanish, the language). Found in real answers of the 12 WorldCuisines
models (issue 38's labelled set): each would otherwise add a country the answer never claims.

Checked for every mention the extractor finds (a few regex calls on a window of ~20 characters around it).
"""

from __future__ import annotations

import re

# Words after a name or adjective that make it a language or a people ("Japanese text", "German immigrant").
_AFTER = frozenset(
    {
        "text", "texts", "translation", "translations", "word", "words", "script", "characters", "letters",
        "immigrant", "immigrants", "community", "communities",
        "citizen", "citizens", "statesman", "speaking", "speakers", "speaker", "subtitles", "spelling",
        "pronunciation", "grammar", "alphabet",
        "cittadino", "cittadina", "parlante", "hablantes", "hablante", "parlé", "parlée", "語", "语",
    }
)  # fmt: skip
_NEXT_WORD = re.compile(r"[-\s]*([\w']+)")
# Words before a name that make it a language: Indonesian/Javanese/Sundanese "bahasa Indonesia", Thai
# "ภาษา" (written without a space), Filipino "wikang".
_BEFORE = re.compile(
    r"(?:\bbahasa|\bbasa|\bwikang|ภาษา|\bcittadin[oaie]|\bcitoyens?|\bciudadanos?|"
    r"\b(?:answer|question|written|translated|reply|response)\s+(?:is\s+)?in)\s*$",
    re.IGNORECASE,
)
# Endings written onto a name that make it a language: Japanese/Chinese 語 语 ("スペイン語"), Korean 어 ("스페인어").
_LANGUAGE_SUFFIX = frozenset("語语어")


# A name said to be what a language is ("text in a language that appears to be Persian or Arabic", "a language such
# as Thai or Lao"), the second of two names too (issue 49).
_LANGUAGE_IS = re.compile(
    r"\b(?:language|lingua|idioma|langue|script)s?\s+(?:(?:that|which)\s+(?:\w+\s+){0,3}?(?:be|like|is)|such\s+as|like)"
    r"\s+(?:[\w-]+\s+(?:or|and)\s+)?$",
    re.IGNORECASE,
)
_LANGUAGE_IS_WINDOW = 72


# A language label before a colon inside a list of translations: "(Russian: Пасха, Ukrainian: Пасха, ...)".
_LABEL_BEFORE = re.compile(r"[(,;]\s*$")


def names_language_or_people(text: str, start: int, end: int) -> bool:
    """Is text[start:end] (a country's name or adjective) used for a language or for people?"""
    if end < len(text) and text[end] in _LANGUAGE_SUFFIX:
        return True
    if text.startswith(": ", end) and _LABEL_BEFORE.search(text, max(0, start - 4), start):
        return True
    if _BEFORE.search(text, max(0, start - 24), start):
        return True
    if _LANGUAGE_IS.search(text, max(0, start - _LANGUAGE_IS_WINDOW), start):
        return True
    after = _NEXT_WORD.match(text, end, end + 24)
    return after is not None and after.group(1).lower() in _AFTER
