"""CultureMix measures, pure functions pinned by tests on hand-built answer sets.

- **food accuracy**: the answer's food is the target when its name is similar enough
  (`food_similarity` >= `FOOD_THRESHOLD`), or when the target's name occurs in the answer as whole
  words (WorldCuisines' own open-ended rule);
- **country accuracy**: the first country the answer names is the target's (metric `accuracy`);
- **entropy** of a model's predicted labels per target food across its variants
  (`pipeline.score.metrics.entropy`, a missing label counting as one label of its own);
- **label shift** of an answer against the same model's SF answer for the same food and prompt:
  `kept` (the same country as in SF), `to_distractor_country` (a distractor's country),
  `to_distractor_continent` (another country on a distractor's continent) or `elsewhere`
  (any other country, or none). In the order given: so when the SF label is also a distractor's
  country (a same-country distractor), naming it again is `kept`. In SFB the background is the
  distractor; in MFB the other food's country and the background's both are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from rapidfuzz import fuzz

from pipeline.core.text import norm_name
from pipeline.score.metrics import entropy, metric

FOOD_THRESHOLD = 0.8
SHIFTS = ("kept", "to_distractor_country", "to_distractor_continent", "elsewhere")
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


@metric("food_match")
def food_match(predicted: Iterable[str], gold: Iterable[str], threshold: float = FOOD_THRESHOLD) -> float:
    """1.0 when any predicted food (name or answer text) is `threshold`-similar to any gold name."""
    for text in (predicted, gold):
        if isinstance(text, str):
            raise TypeError(f"pass lists of names, not a bare string {text!r}")
    best = max((food_similarity(p, g) for p in predicted for g in gold), default=0.0)
    return 1.0 if best >= threshold else 0.0


def classify_shift(
    sf_country: str | None,
    country: str | None,
    distractor_countries: Sequence[str],
    continent_of: Callable[[str], str | None],
) -> str:
    """Where an answer's country went relative to the same model's SF answer (see module doc)."""
    if country == sf_country:
        return "kept"
    if country is None:
        return "elsewhere"
    if country in distractor_countries:
        return "to_distractor_country"
    continent = continent_of(country)
    if continent is not None and continent in {continent_of(d) for d in distractor_countries}:
        return "to_distractor_continent"
    return "elsewhere"


def label_entropy(labels: Sequence[str | None]) -> float:
    """Entropy (bits) of the labels a model gave one target food across its variants."""
    return entropy(labels, base=2)
