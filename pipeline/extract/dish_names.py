"""Dish names a model listed (BORSch dish-name VQA): the answer split into candidate names.

Models answer "Борщ", "Это борщ.", "1. Борщ 2. Щи" or "Борщ или свекольник"; every candidate is
kept and the metric (name_match: within one Levenshtein edit of any gold name) takes the best.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.core.text import norm_name

EXTRACTOR = "dish_names@2"  # @2: the similarity rule became CultureMix's food match (issue 37)
_SPLIT = re.compile(r"[\n;,/|]|\s(?:или|або|or|and|и|і|та)\s|\d+[.)]\s", re.I)
_LEAD = re.compile(r"^(?:это|це|this is|it is|it's|that is|на фото|на фотографии|на фотографіях|блюдо|страва)\s+", re.I)
_MAX_NAME_WORDS = 6


@dataclass(frozen=True)
class NameExtraction:
    names: tuple[str, ...]
    status: str  # ok | empty


def extract_dish_names(text: str | None, lang: str = "") -> NameExtraction:
    """Candidate names in order; sentences longer than a name are cut to their first words."""
    if text is None or not any(ch.isalpha() for ch in text):
        return NameExtraction((), "empty")
    names: list[str] = []
    for part in _SPLIT.split(text):
        candidate = _LEAD.sub("", part.strip().strip("*«»\"'.:-–— "))
        candidate = " ".join(candidate.split()[:_MAX_NAME_WORDS])
        if norm_name(candidate) and candidate not in names:
            names.append(candidate)
    return NameExtraction(tuple(names), "ok" if names else "empty")
