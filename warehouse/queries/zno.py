"""Queries of the ZNO exam page over marts.zno_accuracy, marts.zno_baselines and marts.zno_answers."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame

ALL = "(all subjects)"


def splits(source: Source) -> list[str]:
    """The splits with answers, validation before test (the paper's Table 1 order)."""
    frame = _frame(source, "SELECT DISTINCT split FROM marts.zno_accuracy")
    order = {"dev": 0, "validation": 1, "test": 2}
    return sorted(frame["split"].tolist(), key=lambda s: (order.get(s, 9), s))


def accuracy(source: Source, method: str, split: str) -> pd.DataFrame:
    """model, subject, n, correct, accuracy, low, high of one method and split (every subject and all)."""
    return _frame(
        source,
        """SELECT model, subject, n, correct, accuracy, low, high FROM marts.zno_accuracy
           WHERE method = $method AND split = $split ORDER BY model, subject""",
        {"method": method, "split": split},
    )


def baselines(source: Source, split: str) -> pd.DataFrame:
    """subject, n, first_choice (with its interval) and random of one split."""
    return _frame(
        source,
        """SELECT subject, n, first_choice, first_choice_low, first_choice_high, random
           FROM marts.zno_baselines WHERE split = $split ORDER BY subject""",
        {"split": split},
    )


def questions(source: Source) -> pd.DataFrame:
    """Questions per split, subject and exam year (Figure 1; Tables 7 and 8 are its sums)."""
    return _frame(source, "SELECT split, subject, year, n FROM marts.zno_questions ORDER BY split, subject, year")


def answers(source: Source, model: str, split: str, subject: str) -> pd.DataFrame:
    """The answers of one model to one split's questions of one subject (all subjects: ALL)."""
    return _frame(
        source,
        """SELECT item_id, subject, year, question, gold_letter, paper_letter, paper_status, paper_correct,
                  atlas_letter, status, atlas_correct, response, image, letters
           FROM marts.zno_answers
           WHERE model = $model AND split = $split AND ($subject = $all OR subject = $subject)
           ORDER BY subject, item_id""",
        {"model": model, "split": split, "subject": subject, "all": ALL},
    )


def caption_scores(source: Source) -> pd.DataFrame:
    """The caption table per model (ZNO-Vision Table 2): split, lang, n, sentence BLEU and BERTScore mean
    and std, corpus BLEU."""
    return _frame(
        source,
        """SELECT model, split, lang, n, bleu_mean, bleu_std, bertscore_mean, bertscore_std, corpus_bleu
           FROM marts.caption_scores ORDER BY split, lang, bleu_mean DESC, model""",
    )


def caption_answers(source: Source, model: str, split: str, lang: str) -> pd.DataFrame:
    """One model's captions of one split and language beside their references, worst BLEU first."""
    return _frame(
        source,
        """SELECT item_id, reference, response, caption_bleu, caption_bertscore FROM marts.caption_answers
           WHERE model = $model AND split = $split AND lang = $lang ORDER BY caption_bleu, item_id""",
        {"model": model, "split": split, "lang": lang},
    )


def vqa_languages(source: Source) -> pd.DataFrame:
    """Per model, VQA accuracy (%) in Ukrainian and English and the gap (ZNO-Vision Table 3)."""
    return _frame(source, "SELECT * FROM marts.vqa_languages ORDER BY vqa_uk DESC NULLS LAST, model")


def vqa_pairs(source: Source, model: str) -> pd.DataFrame:
    """One model's answers to each question in both languages side by side, the largest UA-EN difference first."""
    return _frame(
        source,
        """SELECT coalesce(u.question_id, e.question_id) AS question_id, coalesce(u.answer_type, e.answer_type)
                  AS answer_type, e.question AS question_en, e.response AS answer_en, e.vqa_accuracy AS accuracy_en,
                  u.question AS question_uk, u.response AS answer_uk, u.vqa_accuracy AS accuracy_uk
           FROM (SELECT * FROM marts.vqa_answers WHERE model = $model AND lang = 'uk') u
           FULL JOIN (SELECT * FROM marts.vqa_answers WHERE model = $model AND lang = 'en') e USING (question_id)
           ORDER BY abs(coalesce(u.vqa_accuracy, 0) - coalesce(e.vqa_accuracy, 0)) DESC, question_id""",
        {"model": model},
    )


def visual_only(source: Source) -> pd.DataFrame:
    """ZNO-Vision Tables 7-8: visual-only questions per subject and per split, where the release flags them."""
    return _frame(source, "SELECT * FROM marts.zno_visual_only")
