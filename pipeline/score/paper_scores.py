"""The accuracies WorldCuisines published (scores/MODEL_accuracy_oe.json, _mc.json) next to what the
paper's own rule gives on the prediction files we were given: cell by cell, so a reproduction is
checked exactly and any cell that differs is listed with the number of answers it differs by.

Their score.py renames two language codes when it writes the tables (su_loma -> su,
si_formal_spoken -> si); `PUBLISHED_LANG` undoes that. Only "2. Regional Cuisine" (task 2) can be
compared: the "1a/1b/1c. Dish Name" columns score the large task-1 set, whose predictions are not
in the public files we read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

PUBLISHED_LANG = {"su": "su_loma", "si": "si_formal_spoken"}
TASK_COLUMN = "2. Regional Cuisine"
FILE_OF_TASK = {"origin_vqa": "oe", "origin_mc": "mc"}


@dataclass(frozen=True)
class Cell:
    task: str
    model: str
    lang: str
    ours: float | None
    published: float | None
    n: int | None

    @property
    def matches(self) -> bool:
        return self.ours is not None and self.published is not None and self.ours == self.published

    @property
    def answers_apart(self) -> int | None:
        """How many answers the two numbers differ by (published minus ours)."""
        if self.ours is None or self.published is None or not self.n:
            return None
        return round((self.published - self.ours) * self.n / 100)


def published_table(scores_dir: Path, model: str, task: str) -> dict[str, float]:
    path = scores_dir / f"{model}_accuracy_{FILE_OF_TASK[task]}.json"
    cells = json.loads(path.read_text(encoding="utf-8"))[TASK_COLUMN]
    return {PUBLISHED_LANG.get(lang, lang): value for lang, value in cells.items() if lang != "avg_score"}


def compare(paper: pl.DataFrame, scores_dir: Path) -> list[Cell]:
    """Every published cell of every (task, model) the paper-method frame has, against it."""
    cells: list[Cell] = []
    frame = paper.filter(pl.col("dataset") == "worldcuisines", pl.col("task").is_in(list(FILE_OF_TASK)))
    for (task, model), group in frame.group_by(["task", "model"], maintain_order=True):
        if not (scores_dir / f"{model}_accuracy_{FILE_OF_TASK[task]}.json").is_file():
            continue
        published = published_table(scores_dir, model, task)
        ours = {row["lang"]: (row["accuracy"], row["n"]) for row in group.iter_rows(named=True)}
        for lang in sorted(set(published) | set(ours)):
            value, n = ours.get(lang, (None, None))
            cells.append(Cell(task, model, lang, value, published.get(lang), n))
    return cells
