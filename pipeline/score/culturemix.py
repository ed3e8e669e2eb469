"""CultureMix measures, pure functions pinned by tests on hand-built answer sets.

- **food accuracy** (the one food-match rule of the project, CultureMix §3.1 "similarity matching
  with a predefined threshold"): the answer's food is the target when its name is similar enough
  (`food_similarity` >= `FOOD_THRESHOLD`), or when the target's name occurs in the answer as whole
  words (WorldCuisines' own open-ended rule). The paper publishes neither its similarity measure
  nor its threshold: ours is rapidfuzz's normalised Indel similarity at 0.8 (`FOOD_RULE` says so
  wherever the rule is shown);
- **country accuracy** (§3.1: exact match allowing for known variants of country names): the
  country on the answer's `Country:` line when the prompt asks for one (`country_of_answer`), else
  the first country it names; names and their variants ("USA", "Korea", "England") become alpha-2
  codes through the shared countries extractor, so a variant matches its country;
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

from pipeline.score.food_match import FOOD_RULE, FOOD_THRESHOLD, food_similarity, words  # noqa: F401 (re-exported)
from pipeline.score.metrics import entropy, metric

COUNTRY_SOURCES = ("country_line", "first_mention", "fallback_first_mention", "none")
# The last "Country: …" line of an answer (chain of thought ends with it), up to the line's end.
_COUNTRY_LINE = re.compile(r"\bcountry(?:\s+of\s+origin)?\s*[:：]\s*\**\s*(?P<value>[^\n*]+)", re.IGNORECASE)
SHIFTS = ("kept", "to_distractor_country", "to_distractor_continent", "elsewhere")


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


def asks_country_line(prompt: str | None) -> bool:
    """Whether a prompt asks the model to end with a `Country: <country>` line (the direct and CoT
    prompts do; the paper's base question does not)."""
    return bool(prompt) and "country:" in prompt.lower()


def country_line(response: str | None) -> str | None:
    """The text of the answer's last `Country:` line, None without one."""
    found = _COUNTRY_LINE.findall(response or "")
    return found[-1].strip() or None if found else None


def country_of_answer(
    response: str | None,
    first_mentions: Sequence[str],
    asks_line: bool,
    read_countries: Callable[[str], Sequence[str]],
) -> tuple[str | None, str]:
    """(predicted country, where it came from) for one answer (§3.1).

    When the prompt asks for a `Country:` line, the first country named on the answer's last such
    line (`country_line`); without a usable line, the first country the whole answer names, stored
    as `fallback_first_mention`. When the prompt asks for no line, the first mention
    (`first_mention`). `read_countries` turns text into alpha-2 codes (the countries extractor,
    which resolves name variants); `first_mentions` are the whole answer's countries in order."""
    if asks_line:
        line = country_line(response)
        countries = list(read_countries(line)) if line else []
        if countries:
            return countries[0], "country_line"
        if first_mentions:
            return first_mentions[0], "fallback_first_mention"
        return None, "none"
    if first_mentions:
        return first_mentions[0], "first_mention"
    return None, "none"
