"""UACUISINE scored as the ZNO-Vision paper defines it (Appendix C), beside our own scores in
pipeline/score/uacuisine.py. Registered in `pipeline.score.metrics` by name:

- `intersection_match_paper` (the paper's IM, Appendix C, Eq. 2): |W(y) ∩ W(ŷ)| / |W(y) ∪ W(ŷ)|, W the set of
  words of a string. Words as written (case folded, nothing lemmatised or dropped): two ingredient lists score
  by their shared words over all words either names, so a long answer is penalised for every extra word. Ours
  (`intersection_match`) is the share of gold ingredient lemmas named, |P ∩ G| / |G|, without function words:
  it credits "капусту" for "капуста" and does not punish a list for naming more.
- `stem_exact` (the paper's EM, Appendix C, Eq. 1, "on the stem level"): 1 when the answer and the gold have
  the same words up to their stems (pymorphy3 dictionary forms for Ukrainian and Russian, as our other
  UACUISINE scores; a word matches when one of its possible forms is one of the other's), else 0.
  The paper scores the classification questions (taste, temperature) this way: "Солона" is right for "солона",
  "Ця страва солона" is not. Ours (`taste_match`, `temperature_match`) reads the class the answer names.

Dish names (Q1-Q3) are already scored at stem level by `name_stem` (pipeline/score/names.py).

This module belongs with the score stage's metrics (pipeline/score/ in the stage layout).
"""

from __future__ import annotations

from pipeline.score.uacuisine import _WORD, NAN, lemma_candidates


def words(text: str | None) -> frozenset[str]:
    """W(·): the set of words of a string, case folded (apostrophe variants as one)."""
    return frozenset(w.casefold().replace("’", "'").replace("ʼ", "'") for w in _WORD.findall(text or ""))


def intersection_match_paper(predicted: str | None, gold: str | None) -> float:
    """The paper's IM (§ Appendix C, Eq. 2): |W(y) ∩ W(ŷ)| / |W(y) ∪ W(ŷ)|; a gold with no words is NaN."""
    gold_words = words(gold)
    if not gold_words:
        return NAN
    answer_words = words(predicted)
    return len(gold_words & answer_words) / len(gold_words | answer_words)


def stems(text: str | None) -> list[frozenset[str]]:
    """Per distinct word of a string, every stem (dictionary form) it may have: "солодка" is the adjective
    солодкий or the noun солодка; nothing is dropped."""
    return [frozenset(lemma_candidates(w)) for w in dict.fromkeys(_WORD.findall(text or ""))]


def stem_exact(predicted: str | None, gold: str | None) -> float:
    """The paper's EM (§ Appendix C, Eq. 1) at stem level: 1 when every word of the answer shares a stem with a
    word of the gold and every gold word with a word of the answer; NaN when the gold has no words."""
    gold_stems, answer_stems = stems(gold), stems(predicted)
    if not gold_stems:
        return NAN
    covered = all(any(a & g for g in gold_stems) for a in answer_stems)
    complete = all(any(a & g for a in answer_stems) for g in gold_stems)
    return 1.0 if answer_stems and covered and complete else 0.0
