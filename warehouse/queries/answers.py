"""Queries shared by every page about model answers: the global filters and their options.

`Filters` is what the sidebar selects (dataset, task, models, prompt languages); `where()` turns it
into a SQL condition with bound parameters, so each page query stays one short SELECT on a mart.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from warehouse.queries import Source, _frame


@dataclass(frozen=True)
class Filters:
    """The global selection. Empty `models` / `langs` mean all of them."""

    dataset: str
    task: str | None = None
    models: tuple[str, ...] = ()
    langs: tuple[str, ...] = ()

    def where(self, alias: str = "") -> tuple[str, dict]:
        """`dataset = $dataset AND ...` over the columns every answer mart has."""
        prefix = f"{alias}." if alias else ""
        clauses, params = [f"{prefix}dataset = $dataset"], {"dataset": self.dataset}
        if self.task:
            clauses.append(f"{prefix}task = $task")
            params["task"] = self.task
        if self.models:
            clauses.append(f"list_contains($models, {prefix}model)")
            params["models"] = list(self.models)
        if self.langs:
            clauses.append(f"list_contains($langs, {prefix}lang)")
            params["langs"] = list(self.langs)
        return " AND ".join(clauses), params


def tasks(source: Source, dataset: str) -> list[str]:
    """Tasks of the dataset that have scored answers."""
    sql = "SELECT DISTINCT task FROM marts.leaderboard WHERE dataset = $dataset ORDER BY task"
    return _frame(source, sql, {"dataset": dataset})["task"].tolist()


def models(source: Source, dataset: str, task: str | None) -> list[str]:
    """Models by mean Jaccard over all prompt languages, best first."""
    sql = """SELECT model FROM marts.leaderboard WHERE dataset = $dataset AND lang = '*'
             AND ($task IS NULL OR task = $task) GROUP BY model ORDER BY max(jaccard) DESC, model"""
    return _frame(source, sql, {"dataset": dataset, "task": task})["model"].tolist()


def prompt_langs(source: Source, dataset: str, task: str | None) -> list[str]:
    sql = """SELECT DISTINCT lang FROM marts.leaderboard WHERE dataset = $dataset AND lang <> '*'
             AND ($task IS NULL OR task = $task) ORDER BY lang"""
    return _frame(source, sql, {"dataset": dataset, "task": task})["lang"].tolist()


def leaderboard(source: Source, filters: Filters) -> pd.DataFrame:
    """Models x prompt languages (and lang '*' = all languages) with bootstrap 95% intervals."""
    where, params = filters.where()
    if filters.langs:  # keep the all-languages rows next to the selected languages
        where = where.replace("list_contains($langs, lang)", "(list_contains($langs, lang) OR lang = '*')")
    return _frame(source, f"SELECT * FROM marts.leaderboard WHERE {where} ORDER BY jaccard DESC", params)


def answered_datasets(source: Source) -> pd.DataFrame:
    """Datasets with scored answers, most answers first: dataset, n_answers (every task, model and
    prompt language), n_models. The dashboard lands on the first and points to them from a dataset
    without answers."""
    return _frame(
        source,
        """
        SELECT dataset, sum(n)::BIGINT AS n_answers, count(DISTINCT model)::BIGINT AS n_models
        FROM marts.leaderboard
        WHERE lang = '*'
        GROUP BY dataset
        ORDER BY n_answers DESC, dataset
        """,
    )
