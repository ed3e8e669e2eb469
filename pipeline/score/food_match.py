"""The project's one food-match rule: CultureMix's (§3.1: an answer names the target food when its
name is similar enough to the target's). Its own module so that every scorer of dish names
(pipeline/score/names.py, pipeline/score/culturemix.py) imports the same rule without an import cycle.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from pipeline.core.text import norm_name

FOOD_THRESHOLD = 0.8
FOOD_RULE = (
    f"similarity of the answer's food name to the target's name ≥ {FOOD_THRESHOLD} (rapidfuzz normalised Indel "
    "similarity; 1.0 when the target's name occurs in the answer as whole words). The paper (§3.1) matches by "
    "similarity with a predefined threshold but publishes neither; this measure and threshold are the project's."
)
_NON_WORD = re.compile(r"[^\w']+")


def words(text: str | None) -> str:
    """Comparison form with punctuation as spaces, framed by spaces (for whole-word search)."""
    return " " + " ".join(_NON_WORD.sub(" ", norm_name(text or "")).split()) + " "


def food_similarity(predicted: str | None, gold: str) -> float:
    """0..1: 1.0 when the gold name occurs in `predicted` as whole words, else rapidfuzz's
    normalised Indel similarity of the two names (after `norm_name`)."""
    if not predicted or not gold.strip():
        return 0.0
    if words(gold).strip() and words(gold) in words(predicted):
        return 1.0
    return fuzz.ratio(norm_name(predicted), norm_name(gold)) / 100
