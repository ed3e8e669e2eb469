"""UACUISINE's scoring (the ZNO-Vision study): ingredients by word-set intersection on lemmas, recipes
by BERTScore, taste and serving temperature as classes. Registered in `pipeline.score.metrics` by name,
so a task file names them ("intersection_match", "bertscore", "class_match").

- Ingredients: both lists become sets of lemmas (pymorphy3 for Ukrainian and Russian, "капусту" ->
  "капуста"; lower-cased words otherwise), without function words; the score is the share of gold
  ingredients the answer names, |P ∩ G| / |G|.
- Recipes: BERTScore F1 (the bert-score package). The scoring model is a setting:
  DISH_ATLAS_BERTSCORE_MODEL (a hub id or a local folder; default bert-base-multilingual-cased, the
  ZNO-Vision paper's) and DISH_ATLAS_BERTSCORE_LAYERS (default: bert-score's own choice for known
  models, else the model's last layer); the score stage records the model beside each score
  (core.score_models). torch loads only when a recipe is scored.
- Taste (salty / sweet) and temperature (hot / cold): the answer and the gold are each read as a class
  from their lemmas; right when both are the same one class. `classification_report` gives per-class
  precision and recall over many answers.
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from collections.abc import Iterable

from pipeline.core.morph import analyzer as _analyzer

NAN = float("nan")

_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ][^\W\d_]+)*")
# Function words of ingredient lists ("сіль та перець", "і", "для смаку").
STOPWORDS = frozenset(
    {
        "і", "й", "та", "з", "із", "зі", "в", "у", "на", "до", "для", "або", "чи", "по", "за", "що", "як", "а",
        "але", "ще", "також", "трохи", "смаку", "смак", "вкус", "и", "с", "со", "во", "или", "что",
        "как", "но", "также", "немного", "вкусу", "and", "or", "with", "of", "the", "a", "an", "to", "for",
        "some", "taste",
    }
)  # fmt: skip

# Class words by lemma, per question; answers in Ukrainian, Russian or English.
TASTE_CLASSES = {
    "salty": {"солоний", "солоно", "солонуватий", "солёный", "соленый", "salty", "savory", "savoury"},
    "sweet": {"солодкий", "солодко", "солодкуватий", "сладкий", "сладко", "sweet"},
}
TEMPERATURE_CLASSES = {
    "hot": {"гарячий", "гаряче", "теплий", "тепло", "горячий", "горячо", "тёплый", "теплый", "hot", "warm"},
    "cold": {"холодний", "холодно", "прохолодний", "холодный", "прохладный", "cold", "chilled"},
}
CLASSES = {"taste": TASTE_CLASSES, "temperature": TEMPERATURE_CLASSES}


_PROPER = ("Surn", "Name", "Patr", "Geox")


@functools.lru_cache(maxsize=1 << 16)
def lemma_candidates(word: str) -> tuple[str, ...]:
    """Every dictionary form a word may have, common nouns and adjectives before proper names
    ("солона" is the adjective солоний before the name Солон): Ukrainian first, then Russian."""
    word = word.casefold().replace("’", "'").replace("ʼ", "'")
    if not re.search(r"[а-яіїєґё]", word):
        return (word,)
    for lang in ("uk", "ru"):
        parses = [p for p in _analyzer(lang).parse(word) if p.is_known]
        if parses:
            ordered = sorted(parses, key=lambda p: bool(set(_PROPER) & set(str(p.tag).replace(" ", ",").split(","))))
            return tuple(dict.fromkeys(p.normal_form for p in ordered))
    return (word,)


def lemma(word: str) -> str:
    """The dictionary form of a word (the likeliest common-word reading)."""
    return lemma_candidates(word)[0]


def lemmas(text: str | None) -> frozenset[str]:
    """The lemmas of a text's content words."""
    return frozenset(m for m in (lemma(w) for w in _WORD.findall(text or "")) if m not in STOPWORDS)


def intersection_match(predicted: str | None, gold: str | None) -> float:
    """Share of gold ingredient lemmas the answer names: |P ∩ G| / |G|; a gold with no words is NaN."""
    g = lemmas(gold)
    if not g:
        return NAN
    return len(lemmas(predicted) & g) / len(g)


def classify(text: str | None, question: str) -> str | None:
    """The one class an answer names (taste: salty | sweet; temperature: hot | cold), or None when it
    names none or both ("солодко-солона" is no answer to "salty or sweet?")."""
    words = {form for w in _WORD.findall(text or "") for form in (w.casefold(), *lemma_candidates(w))}
    found = {label for label, forms in CLASSES[question].items() if words & forms}
    return found.pop() if len(found) == 1 else None


def class_match(predicted: str | None, gold: str | None, question: str) -> float:
    gold_class = classify(gold, question)
    if gold_class is None:
        return NAN
    return 1.0 if classify(predicted, question) == gold_class else 0.0


def classification_report(pairs: Iterable[tuple[str | None, str | None]]) -> dict[str, dict[str, float]]:
    """Per class: precision (of the answers read as that class, the share right), recall (of the items
    of that class, the share answered so) and support. Pairs are (predicted class, gold class)."""
    pairs = list(pairs)
    predicted = Counter(p for p, _ in pairs if p is not None)
    support = Counter(g for _, g in pairs if g is not None)
    hits = Counter(g for p, g in pairs if p is not None and p == g)
    return {
        label: {
            "precision": hits[label] / predicted[label] if predicted[label] else NAN,
            "recall": hits[label] / support[label] if support[label] else NAN,
            "support": float(support[label]),
        }
        for label in sorted(set(predicted) | set(support))
    }


BERTSCORE_MODEL_ENV = "DISH_ATLAS_BERTSCORE_MODEL"
BERTSCORE_LAYERS_ENV = "DISH_ATLAS_BERTSCORE_LAYERS"
# The ZNO-Vision paper's model for recipes and captions (§3: BERTScore with bert-base-multilingual-cased).
DEFAULT_BERTSCORE_MODEL = "bert-base-multilingual-cased"


def bertscore_model() -> str:
    """The model BERTScore is computed with now: DISH_ATLAS_BERTSCORE_MODEL, else the paper's."""
    return os.environ.get(BERTSCORE_MODEL_ENV) or DEFAULT_BERTSCORE_MODEL


@functools.cache
def bertscorer(model: str, layers: int | None):
    """One bert-score scorer per model and layer (UACUISINE's recipes and the captions share it)."""
    from bert_score import BERTScorer

    if layers is None:
        from bert_score.utils import model2layers

        if model not in model2layers:
            from transformers import AutoConfig

            layers = AutoConfig.from_pretrained(model).num_hidden_layers
    scorer = BERTScorer(model_type=model, num_layers=layers, lang=None, rescale_with_baseline=False)
    if scorer._tokenizer.model_max_length > 100_000:  # a local model saved without a length: bert-score needs one
        scorer._tokenizer.model_max_length = 512
    return scorer


def bertscore_f1(predicted: str | None, gold: str | None, model: str | None = None) -> float:
    """BERTScore F1 of a recipe against the gold recipe; an empty answer scores 0, no gold is NaN."""
    if not gold or not gold.strip():
        return NAN
    if not predicted or not predicted.strip():
        return 0.0
    model = model or bertscore_model()
    layers = os.environ.get(BERTSCORE_LAYERS_ENV)
    _, _, f1 = bertscorer(model, int(layers) if layers else None).score([predicted], [gold])
    return float(f1[0])
