"""VQA accuracy (Antol et al. 2015; the evaluation ZNO-Vision keeps for VQA-1000-UA/EN, §3): an answer
is right in proportion to the annotators who gave it, min(#matching / 3, 1), averaged over the ten
subsets of nine of the ten annotators, after the standard answer normalisation.

`vqa_accuracy` follows the official evaluation script (vqaEval.py) rule for rule, quirks included: the
answers are normalised (punctuation, then number words to digits, articles dropped, contractions
restored) only when the annotators disagree; the period-stripping regular expression is the script's
own (its look-behind is mistyped and its `re.UNICODE` lands in the `count` argument, so at most 32
periods go). `vqa_accuracy_atlas` is ours beside it: the same formula with both sides always normalised
and lower-cased, so "Yes." scores like "yes" whatever the annotators did.

The gold of an item is its ten annotator answers as a JSON list (core.item_gold_text, written by
pipeline/datasets/vqa.py).
"""

from __future__ import annotations

import json
import re

NAN = float("nan")

# vqaEval.py's tables (the contractions: the common subset of the script's list, which restores the
# apostrophes annotators left out)
CONTRACTIONS = {
    "aint": "ain't", "arent": "aren't", "cant": "can't", "couldve": "could've", "couldnt": "couldn't",
    "didnt": "didn't", "doesnt": "doesn't", "dont": "don't", "hadnt": "hadn't", "hasnt": "hasn't",
    "havent": "haven't", "hed": "he'd", "hes": "he's", "howd": "how'd", "howll": "how'll", "hows": "how's",
    "Im": "I'm", "Ive": "I've", "isnt": "isn't", "itd": "it'd", "itll": "it'll", "let's": "let's",
    "maam": "ma'am", "mightve": "might've", "mustve": "must've", "mustnt": "mustn't", "neednt": "needn't",
    "oclock": "o'clock", "shant": "shan't", "shed": "she'd", "shes": "she's", "shouldve": "should've",
    "shouldnt": "shouldn't", "thats": "that's", "thered": "there'd", "theres": "there's", "theyd": "they'd",
    "theyll": "they'll", "theyre": "they're", "theyve": "they've", "wasnt": "wasn't", "wed": "we'd",
    "weve": "we've", "werent": "weren't", "whats": "what's", "whens": "when's", "wheres": "where's",
    "whos": "who's", "whove": "who've", "whys": "why's", "wont": "won't", "wouldve": "would've",
    "wouldnt": "wouldn't", "yall": "y'all", "youd": "you'd", "youll": "you'll", "youre": "you're", "youve": "you've",
}  # fmt: skip
MANUAL_MAP = {"none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
              "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}  # fmt: skip
ARTICLES = ("a", "an", "the")
PUNCT = (";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-", ">", "<", "@", "`", ",", "?", "!")
PERIOD_STRIP = re.compile(r"(?!<=\d)(\.)(?!\d)")  # sic: the script's expression
COMMA_STRIP = re.compile(r"(\d)(\,)(\d)")


def process_punctuation(text: str) -> str:
    """vqaEval.processPunctuation."""
    out = text
    for p in PUNCT:
        if (p + " " in text or " " + p in text) or COMMA_STRIP.search(text) is not None:
            out = out.replace(p, "")
        else:
            out = out.replace(p, " ")
    return PERIOD_STRIP.sub("", out, count=re.UNICODE)  # sic: the script passes re.UNICODE (32) as count


def process_digit_article(text: str) -> str:
    """vqaEval.processDigitArticle: lower-case, number words to digits, no articles, contractions restored."""
    words = [MANUAL_MAP.get(word, word) for word in text.lower().split()]
    words = [word for word in words if word not in ARTICLES]
    return " ".join(CONTRACTIONS.get(word, word) for word in words)


def _clean(text: str) -> str:
    return text.replace("\n", " ").replace("\t", " ").strip()


def gold_answers(gold: str | None) -> list[str] | None:
    """The annotators' answers of an item (a JSON list), or None when there are none."""
    if not gold:
        return None
    try:
        answers = json.loads(gold)
    except json.JSONDecodeError:
        return None
    return [str(a) for a in answers] if isinstance(answers, list) and answers else None


def _leave_one_out(answer: str, golds: list[str]) -> float:
    """min(#matching / 3, 1) over the subsets leaving each annotator out, averaged."""
    scores = [min(1.0, sum(1 for j, g in enumerate(golds) if j != i and g == answer) / 3) for i in range(len(golds))]
    return sum(scores) / len(scores)


def vqa_accuracy(predicted: str | None, gold: str | None) -> float:
    """The official VQA accuracy of one answer (0-1); no annotator answers is NaN."""
    golds = gold_answers(gold)
    if golds is None:
        return NAN
    answer = _clean(predicted or "")
    golds = [_clean(g) for g in golds]
    if len(set(golds)) > 1:
        golds = [process_digit_article(process_punctuation(g)) for g in golds]
        answer = process_digit_article(process_punctuation(answer))
    return _leave_one_out(answer, golds)


def vqa_accuracy_atlas(predicted: str | None, gold: str | None) -> float:
    """Ours: the same formula with both sides always normalised (see the module doc)."""
    golds = gold_answers(gold)
    if golds is None:
        return NAN
    normalise = lambda text: process_digit_article(process_punctuation(_clean(text)))  # noqa: E731
    return _leave_one_out(normalise(predicted or ""), [normalise(g) for g in golds])
