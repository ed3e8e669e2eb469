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
