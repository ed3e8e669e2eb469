"""Scoring functions: how far a model's answer about a dish is from the gold answer.

Every function here is pure (no I/O, no state) so scores are reproducible and cheap to test.
Per-item scores of the form ``score(pred, gold) -> float`` are registered by name in `METRICS`,
so task declarations (``pipeline/tasks/*.toml``) can name them as strings. Aggregate measures
over many answers (`entropy`) take other arguments and are not registered. CultureMix's label
shift has its own home: each answer classified once (pipeline/score/culturemix.py
`classify_shift`), its shares in warehouse/queries/culturemix.py.

Conventions:

- Scores are in [0, 1]. ``float('nan')`` means "undefined for this input" (e.g. no shared items
  to compare), never "wrong"; callers must decide how to aggregate it (e.g. skip it).
- Set inputs accept any iterable and are treated as sets; a bare ``str`` is refused with
  ``TypeError`` because iterating it would silently compare characters ("UA" -> {"U", "A"}).
- Names and free text are compared after `pipeline.core.text.norm_name`, never re-implemented here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from rapidfuzz.distance import Levenshtein

from pipeline.core.text import norm_name
from warehouse import set_measures
from warehouse.registry import DuplicateName, Registry
from warehouse.set_measures import as_sets

Metric = Callable[..., float]
F = TypeVar("F", bound=Metric)

NAN = float("nan")

# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

METRICS: Registry[Metric] = Registry(
    "metric",
    # Registered where their reading lives, imported on first use (no import for its side effect).
    modules={
        **{
            f"name_{rule}": "pipeline.score.names"
            for rule in ("exact", "lev1", "stem", "similarity", "paper", "contains_lev1")
        },
        "food_match": "pipeline.score.culturemix",
    },
)
"""Metric name -> ``score(pred, gold) -> float`` (read-only from outside: register with `metric`)."""

DuplicateMetric = DuplicateName


def metric(*names: str) -> Callable[[F], F]:
    """Register a ``score(pred, gold)`` function under one or more names (aliases allowed).

    Raises `DuplicateMetric` if a name is taken, so a task never silently gets another metric."""
    return METRICS.register(*names)


def get_metric(name: str) -> Metric:
    """Look a metric up by name, with the known names in the error so typos in a task file are obvious."""
    return METRICS.get(name)


# A metric's `reads` attribute tells the score stage what to pass as `pred` and `gold`:
#   "extracted" (default): the extractor's countries and the item's gold countries;
#   "nations": the extractor's countries and regions, and the gold countries with the UK nations a
#             dataset names (stored only for answers whose gold names a nation);
#   "text":   the answer text and the gold answer as written in the prompt language;
#   "choice": the option our choice extractor read and the right option;
#   "paper_choice": the option the paper's own rule read and the right option;
#   "paper_countries": every country the answer names, BORSch's own rule (§4.1; core.extractions.paper_countries,
#             which the countries extractor keeps), and the item's gold countries.


def reads(what: str) -> Callable[[F], F]:
    def mark(func: F) -> F:
        func.reads = what  # type: ignore[attr-defined]
        return func

    return mark


# --------------------------------------------------------------------------------------------
# Set overlap of country sets
# --------------------------------------------------------------------------------------------


# The set measures live below both stages that compute them (warehouse/set_measures.py): this score stage, and the
# marts that score linked answers against a gold changed after scoring; registered here by their metric names.
jaccard = metric("jaccard")(set_measures.jaccard)
dice = metric("dice")(set_measures.dice)
overlap = metric("overlap")(set_measures.overlap)
first_in_gold = metric("first_in_gold", "accuracy")(set_measures.first_in_gold)


# BORSch's own rule beside ours (§4.1): every country the answer names, scored with the set measures of Appendix J,
# equations 1-3 (P the named countries, T the gold), and exact set equality; the functions above, so the same
# empty-set conventions (both empty -> 1, one empty -> 0). The score stage passes the paper rule's countries
# (`reads("paper_countries")`); every task the countries extractor reads declares them (pipeline/tasks/*.toml).


def _on_named_countries(measure: Metric, equation: str) -> Metric:
    """`measure` as BORSch's own rule is scored: on every country the answer names (`reads("paper_countries")`)."""

    def score(pred: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
        return measure(pred, gold)

    score.__name__ = score.__qualname__ = f"paper_{measure.__name__}"
    score.__doc__ = f"BORSch §J {equation} on every country the answer names: `{measure.__name__}`."
    return reads("paper_countries")(score)


paper_jaccard = metric("paper_jaccard")(_on_named_countries(jaccard, "equation 1, |P∩T| / |P∪T|,"))
paper_dice = metric("paper_dice")(_on_named_countries(dice, "equation 2, 2|P∩T| / (|P|+|T|),"))
paper_overlap = metric("paper_overlap")(_on_named_countries(overlap, "equation 3, |P∩T| / min(|P|,|T|),"))


@metric("paper_exact")
@reads("paper_countries")
def paper_exact(pred: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
    """1.0 when the countries the answer names are exactly the gold set (order and repeats aside), else 0.0; both
    empty is a match, as for the set measures."""
    p, g = as_sets(pred, gold)
    return 1.0 if p == g else 0.0


@metric("uk_nation_match")
@reads("nations")
def uk_nation_match(pred: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
    """Nation-level match for UK dishes: `gold` holds a UK nation (GB-ENG, GB-SCT, GB-WLS, GB-NIR)
    and `pred` the countries and regions an answer named. 1.0 if the answer names that nation,
    else 0.0 — an answer naming England for a Scottish dish scores 0 here although the
    country-level metrics see GB = GB. Gold without a nation falls back to `overlap`."""
    from pipeline.reference.countries import UK_NATIONS

    p, g = as_sets(pred, gold)
    nations = {code for code in g if code in UK_NATIONS}
    if not nations:
        return overlap(p, g)
    return 1.0 if nations & p else 0.0


# --------------------------------------------------------------------------------------------
# Dish names (BORSch dish_name_vqa)
# --------------------------------------------------------------------------------------------

normalize_dish_name = norm_name
"""Alias of `pipeline.core.text.norm_name`: the one comparison form for dish names."""


def _normalised_names(names: Iterable[str], what: str) -> set[str]:
    if isinstance(names, str):
        raise TypeError(f"{what} must be an iterable of names, not a bare string {names!r}; wrap it: [{names!r}]")
    return {n for n in map(norm_name, names) if n}


@metric("name_match")
def name_match(predicted_names: Iterable[str], gold_names: Iterable[str], max_edits: int = 1) -> float:
    """1.0 if any predicted name is within `max_edits` Levenshtein edits of any gold name, both
    after `norm_name`; else 0.0. One edit forgives a typo or a singular/plural ending
    ("пельмени"/"пельмень") without accepting a different language's spelling ("оливье"/"олів'є").

    Names that are empty after normalisation never match (an empty answer is not a near miss)."""
    if max_edits < 0:
        raise ValueError(f"max_edits must be >= 0, got {max_edits}")
    preds = _normalised_names(predicted_names, "predicted_names")
    golds = _normalised_names(gold_names, "gold_names")
    if preds & golds:
        return 1.0
    return 1.0 if any(within_edits(p, g, max_edits) for p in preds for g in golds) else 0.0


def within_edits(predicted: str, gold: str, max_edits: int = 1) -> bool:
    """`name_match` on two names already in `norm_name` form: at most `max_edits` Levenshtein edits apart."""
    return abs(len(predicted) - len(gold)) <= max_edits and (
        Levenshtein.distance(predicted, gold, score_cutoff=max_edits) <= max_edits
    )


# --------------------------------------------------------------------------------------------
# Free text (UACUISINE): words, stems
# --------------------------------------------------------------------------------------------

# A word: a run of letters, possibly with apostrophes *inside* it (м'ясо, кулеб'яка). Digits,
# underscores, hyphens and punctuation separate words. norm_name has already unified apostrophes.
WORD_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")

# Common Ukrainian and Russian inflection endings (nouns and adjectives; case, number, gender).
# Only inflections, no derivational suffixes, so "вареники" and "вареник" share a stem but
# "вареники" and "варення" do not. Tried longest first; one ending is stripped at most.
STEM_SUFFIXES: tuple[str, ...] = tuple(
    sorted(
        {
            # adjectives, uk + ru
            "ого", "его", "ього", "ому", "ему", "ьому", "ими", "ыми", "іми",
            "ий", "ій", "ый", "ой", "ая", "яя", "ое", "ее", "ые", "ие",
            "их", "ых", "іх", "им", "ым", "ім", "ую", "юю", "ої", "ьої",
            # nouns, uk + ru
            "ами", "ями", "ові", "еві", "єві",
            "ів", "їв", "ов", "ев", "ей", "ам", "ям", "ах", "ях", "ом", "ем", "єм", "ою", "ею", "єю",
            "а", "я", "и", "ы", "і", "ї", "у", "ю", "о", "е", "є", "ь",
        },
        key=lambda s: (-len(s), s),
    )
)  # fmt: skip
MIN_STEM = 3


def tokenize(text: str) -> list[str]:
    """Words of `text` after `norm_name`, in order (letters, with inner apostrophes kept)."""
    return WORD_RE.findall(norm_name(text))


def crude_stem(word: str) -> str:
    """Strip the longest matching ending in `STEM_SUFFIXES`, keeping at least `MIN_STEM` letters.

    Deliberately crude (no dictionary, one ending, no vowel alternations such as піч/печі): enough
    to match "борщу"/"борщ" and "українського"/"український" in short answers, cheap and
    transparent. Words of `MIN_STEM` letters or fewer are kept whole."""
    for suffix in STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            return word[: -len(suffix)]
    return word


def _stems(text: str, stem: Callable[[str], str]) -> frozenset[str]:
    return frozenset(s for s in map(stem, tokenize(text)) if s)


@metric("stem_match")
def stem_match(predicted: str, gold: str, stem: Callable[[str], str] | None = None) -> float:
    """1.0 if predicted and gold have the same *set* of word stems, else 0.0: exact match that
    forgives inflection ("борщу українського" = "Борщ український"), word order and repeats.

    `stem` maps one normalised word to its stem; default `crude_stem`. Text with no words never
    matches (an empty answer is not a correct one, even against an empty gold)."""
    stemmer = crude_stem if stem is None else stem
    p, g = _stems(predicted, stemmer), _stems(gold, stemmer)
    return 1.0 if p and p == g else 0.0


@metric("word_set_match")
def word_set_match(predicted: str, gold: str) -> float:
    """1.0 if predicted and gold share at least one normalised word, else 0.0: the lenient
    "intersection match" for ingredient lists, where naming any gold ingredient counts."""
    return 1.0 if set(tokenize(predicted)) & set(tokenize(gold)) else 0.0


@metric("word_set_overlap")
def word_set_overlap(predicted: str, gold: str) -> float:
    """|P∩G| / |G| over normalised words: the share of gold words (ingredients) the answer names.

    Gold with no words -> NaN (undefined: there is nothing to recall; a data problem, not a score)."""
    g = set(tokenize(gold))
    if not g:
        return NAN
    return len(set(tokenize(predicted)) & g) / len(g)


# --------------------------------------------------------------------------------------------
# Consistency across prompt variants
# --------------------------------------------------------------------------------------------


def entropy(labels: Sequence[str | None], base: float = 2) -> float:
    """Shannon entropy of the answers one item got across prompt variants: 0 when the model
    always says the same thing, log_base(n) when all n variants disagree.

    None is a label of its own ("no answer"), so refusing half the time is inconsistency too.
    Empty sequence -> 0.0 (no answers, no disagreement)."""
    if base <= 0 or base == 1:
        raise ValueError(f"base must be positive and not 1, got {base}")
    n = len(labels)
    if n == 0:
        return 0.0
    h = sum(c * math.log(n / c) for c in Counter(labels).values()) / n
    return h / math.log(base)


# --------------------------------------------------------------------------------------------
# The papers' own scoring, beside ours (`export accuracy --method paper|atlas`)
# --------------------------------------------------------------------------------------------
@metric("paper_substring")
@reads("text")
def paper_substring(response: str | None, gold_text: str | None) -> float:
    """WorldCuisines' open-ended rule: 1.0 when the gold string, lower-cased, occurs in the
    lower-cased answer (Python's str.lower, as their score.py). A missing answer is the empty
    string, as their fillna('') makes it; a missing gold is undefined here (NaN), not "right"."""
    if gold_text is None:
        return NAN
    return 1.0 if gold_text.lower() in (response or "").lower() else 0.0


@metric("choice_accuracy")
@reads("choice")
def choice_accuracy(choice: int | None, gold_choice: int | None) -> float:
    """1.0 when the one option our choice extractor read is the right one; no option (several,
    unparsed, refusal, empty) is wrong. No gold option -> NaN."""
    if gold_choice is None:
        return NAN
    return 1.0 if choice is not None and choice == gold_choice else 0.0


@metric("paper_choice_accuracy")
@reads("paper_choice")
def paper_choice_accuracy(paper_choice: int | None, gold_choice: int | None) -> float:
    """WorldCuisines' multiple-choice rule: the number their score.py parsed equals the right
    option (an answer it could not read as a number counts as wrong). No gold option -> NaN."""
    if gold_choice is None:
        return NAN
    return 1.0 if paper_choice is not None and paper_choice == gold_choice else 0.0


# --------------------------------------------------------------------------------------------
# UACUISINE (pipeline/score/uacuisine.py): free-text answers against gold text
# --------------------------------------------------------------------------------------------


@metric("intersection_match")
@reads("text")
def intersection_match(predicted: str | None, gold: str | None) -> float:
    """Ingredients: share of gold ingredient lemmas (pymorphy3) the answer names."""
    from pipeline.score import uacuisine as uacuisine_metrics

    return uacuisine_metrics.intersection_match(predicted, gold)


@metric("bertscore")
@reads("text")
def bertscore(predicted: str | None, gold: str | None) -> float:
    """Recipes: BERTScore F1 (model set by DISH_ATLAS_BERTSCORE_MODEL)."""
    from pipeline.score import uacuisine as uacuisine_metrics

    return uacuisine_metrics.bertscore_f1(predicted, gold)


def _bertscore_model() -> str:
    from pipeline.score import uacuisine as uacuisine_metrics

    return uacuisine_metrics.bertscore_model()


bertscore.scored_by = _bertscore_model  # type: ignore[attr-defined]  # the score stage records it per answer


@metric("intersection_match_paper")
@reads("text")
def intersection_match_paper(predicted: str | None, gold: str | None) -> float:
    """Ingredients as the ZNO-Vision paper scores them: |W(y) ∩ W(ŷ)| / |W(y) ∪ W(ŷ)| over words."""
    from pipeline.score import uacuisine_paper

    return uacuisine_paper.intersection_match_paper(predicted, gold)


@metric("stem_exact")
@reads("text")
def stem_exact(predicted: str | None, gold: str | None) -> float:
    """The ZNO-Vision paper's exact match at stem level: the answer's stems are the gold's."""
    from pipeline.score import uacuisine_paper

    return uacuisine_paper.stem_exact(predicted, gold)


@metric("taste_match")
@reads("text")
def taste_match(predicted: str | None, gold: str | None) -> float:
    """Taste as a class (salty | sweet): right when the answer names the gold's one class."""
    from pipeline.score import uacuisine as uacuisine_metrics

    return uacuisine_metrics.class_match(predicted, gold, "taste")


@metric("temperature_match")
@reads("text")
def temperature_match(predicted: str | None, gold: str | None) -> float:
    """Serving temperature as a class (hot | cold)."""
    from pipeline.score import uacuisine as uacuisine_metrics

    return uacuisine_metrics.class_match(predicted, gold, "temperature")


# --------------------------------------------------------------------------------------------
# ZNO-Vision's captions (Multi30K-UK) and VQA in two languages: pipeline/score/captions.py,
# pipeline/score/vqa.py (the gold is the reference caption, or the ten annotator answers as JSON)
# --------------------------------------------------------------------------------------------


@metric("caption_bleu")
@reads("text")
def caption_bleu(predicted: str | None, gold: str | None) -> float:
    """Captions: sacrebleu's sentence BLEU (0-100) against the reference caption."""
    from pipeline.score import captions as caption_metrics

    return caption_metrics.sentence_bleu(predicted, gold)


@metric("caption_bertscore")
@reads("text")
def caption_bertscore(predicted: str | None, gold: str | None) -> float:
    """Captions: BERTScore F1 (default bert-base-multilingual-cased, as the paper)."""
    from pipeline.score import captions as caption_metrics

    return caption_metrics.bertscore_f1(predicted, gold)


def _bleu_statistic(name: str) -> Metric:
    def statistic(predicted: str | None, gold: str | None) -> float:
        from pipeline.score import captions as caption_metrics

        return caption_metrics.statistic(name, predicted, gold)

    statistic.__doc__ = f"Captions: the BLEU statistic {name} (summed over answers for corpus BLEU)."
    return reads("text")(statistic)


for _name in ("bleu_sys_len", "bleu_ref_len", *(f"bleu_{k}_{n}" for k in ("correct", "total") for n in range(1, 5))):
    metric(_name)(_bleu_statistic(_name))


@metric("vqa_accuracy")
@reads("text")
def vqa_accuracy(predicted: str | None, gold: str | None) -> float:
    """VQA: min(#matching annotators / 3, 1) over the 10 choose 9 subsets, official normalisation."""
    from pipeline.score import vqa as vqa_metrics

    return vqa_metrics.vqa_accuracy(predicted, gold)


@metric("vqa_accuracy_atlas")
@reads("text")
def vqa_accuracy_atlas(predicted: str | None, gold: str | None) -> float:
    """VQA, ours: the same formula with both sides always normalised."""
    from pipeline.score import vqa as vqa_metrics

    return vqa_metrics.vqa_accuracy_atlas(predicted, gold)
