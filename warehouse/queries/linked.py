"""Which answers an analysis reads, and what the borrowed (linked) answers of a dataset hold.

A dataset without model answers of its own (BORSch ships none) can still be analysed with real
answers asked about a linked record of another dataset (marts.linked_origin_answers: WorldCuisines'
12 models on the same dish). The corpus and language-pull marts keep both kinds of rows apart by
`answers_from` ('own' | 'linked') and `gold` (the dataset whose gold scored them); `AnswerSource`
selects one kind, so a query never pools own and borrowed answers or two golds.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from warehouse.queries import Source, _frame


@dataclass(frozen=True)
class AnswerSource:
    """`answers_from` 'own' (the dataset's own answers, scored against its gold) or 'linked'
    (answers to a linked record of another dataset, scored against `gold`, a dataset name)."""

    answers_from: str = "own"
    gold: str | None = None

    def __post_init__(self) -> None:
        if self.answers_from not in ("own", "linked") or (self.answers_from == "linked" and not self.gold):
            raise ValueError(f"answers_from must be 'own' or 'linked' (with a gold dataset), got {self!r}")

    def where(self, alias: str = "") -> tuple[str, dict]:
        prefix = f"{alias}." if alias else ""
        if self.answers_from == "own":
            return f"{prefix}answers_from = 'own'", {}
        return f"{prefix}answers_from = 'linked' AND {prefix}gold = $gold", {"gold": self.gold}


OWN = AnswerSource()


def summary(source: Source, dataset: str) -> pd.DataFrame:
    """Per asking dataset and task, what the linked answers about `dataset`'s dishes hold: n_dishes
    (of `dataset`), n_answers (distinct answers), models and prompt languages (sorted lists)."""
    return _frame(
        source,
        """
        SELECT answer_dataset, task, count(DISTINCT dish_key) AS n_dishes,
               count(DISTINCT answer_dish_key) AS n_linked_records, count(DISTINCT generation_id) AS n_answers,
               list(DISTINCT model ORDER BY model) AS models, list(DISTINCT lang ORDER BY lang) AS langs
        FROM marts.linked_origin_answers
        WHERE dataset = $dataset
        GROUP BY answer_dataset, task
        ORDER BY n_answers DESC, answer_dataset, task
        """,
        {"dataset": dataset},
    )
