"""Queries for dish names and dish identity: name accuracy per model x language under each rule,
the dishes models mistake for one another, and a dish's links and linked answers.

Each function is one short SELECT on `marts.*` with bound parameters.
"""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame

RULES = {
    "lev1": "BORSch: within one edit",
    "exact": "Exact name",
    "stem": "UACUISINE: same stems",
    "similarity": "CultureMix: food-match similarity ≥ 0.8",
    "paper": "WorldCuisines: gold substring",
}
ANSWER_COLUMNS = (
    "model", "lang", "item_id", "gold", "prediction", "matched_name", "matched_rule", "named_dish_name",
    "named_dish_key", "exact", "lev1", "stem", "similarity", "paper", "dish_key", "dish_name", "generation_id",
)  # fmt: skip


def tasks(source: Source, dataset: str) -> list[str]:
    """Dish-name tasks of the dataset that have scored answers."""
    sql = "SELECT DISTINCT task FROM marts.name_accuracy WHERE dataset = $dataset ORDER BY task"
    return _frame(source, sql, {"dataset": dataset})["task"].tolist()


def accuracy(source: Source, dataset: str, task: str, rule: str) -> pd.DataFrame:
    """Accuracy per model and prompt language under `rule`: model, lang, n, correct, accuracy."""
    return _frame(
        source,
        """
        SELECT model, lang, n, correct, accuracy FROM marts.name_accuracy
        WHERE dataset = $dataset AND task = $task AND rule = $rule
        ORDER BY model, lang
        """,
        {"dataset": dataset, "task": task, "rule": rule},
    )


def rules_by_model(source: Source, dataset: str, task: str) -> pd.DataFrame:
    """Accuracy of every model over all prompt languages under each rule: model, rule, n, accuracy."""
    return _frame(
        source,
        """
        SELECT model, rule, sum(n) AS n, sum(correct) / sum(n) AS accuracy FROM marts.name_accuracy
        WHERE dataset = $dataset AND task = $task
        GROUP BY model, rule ORDER BY model, rule
        """,
        {"dataset": dataset, "task": task},
    )


def confusions(
    source: Source, dataset: str, task: str, models: tuple[str, ...] = (), langs: tuple[str, ...] = (), limit: int = 15
) -> pd.DataFrame:
    """The (true dish -> dish named instead) pairs most often seen, with an image URL of each."""
    return _frame(
        source,
        """
        SELECT dish_key, any_value(dish_name) AS dish_name, named_dish_key,
               any_value(named_dish_name) AS named_dish_name,
               sum(n) AS n, count(DISTINCT model) AS n_models, any_value(example_answer) AS example_answer,
               any_value(image_url) AS image_url, any_value(named_image_url) AS named_image_url
        FROM marts.name_confusions
        WHERE dataset = $dataset AND task = $task
          AND (len($models) = 0 OR list_contains($models, model))
          AND (len($langs) = 0 OR list_contains($langs, lang))
        GROUP BY dish_key, named_dish_key
        ORDER BY n DESC, dish_key, named_dish_key
        LIMIT $limit
        """,
        {"dataset": dataset, "task": task, "models": list(models), "langs": list(langs), "limit": limit},
    )


def answers(
    source: Source,
    dataset: str,
    task: str,
    dish_key: str,
    named_dish_key: str | None = None,
    models: tuple[str, ...] = (),
    langs: tuple[str, ...] = (),
) -> pd.DataFrame:
    """The name answers about one dish (optionally only those naming `named_dish_key`)."""
    return _frame(
        source,
        f"""
        SELECT {", ".join(ANSWER_COLUMNS)} FROM marts.name_scores
        WHERE dataset = $dataset AND task = $task AND dish_key = $dish_key
          AND ($named IS NULL OR named_dish_key = $named)
          AND (len($models) = 0 OR list_contains($models, model))
          AND (len($langs) = 0 OR list_contains($langs, lang))
        ORDER BY model, lang, item_id
        """,
        {
            "dataset": dataset,
            "task": task,
            "dish_key": dish_key,
            "named": named_dish_key,
            "models": list(models),
            "langs": list(langs),
        },
    )


def dish_name_answers(source: Source, dish_key: str) -> pd.DataFrame:
    """Every name answer whose question was about this dish (any dataset, any task)."""
    return _frame(
        source,
        f"""
        SELECT dataset, task, {", ".join(ANSWER_COLUMNS)} FROM marts.name_scores
        WHERE dish_key = $dish_key ORDER BY dataset, task, model, lang, item_id
        """,
        {"dish_key": dish_key},
    )


def links(source: Source, dish_key: str) -> pd.DataFrame:
    """The dish's links to other records of it: the other record, method, score, matched names, origins."""
    return _frame(
        source,
        """
        SELECT linked_dish_key, linked_dataset, linked_display_name, method, score, name, linked_name,
               linked_name_lang, evidence, origins, linked_origins, origins_agree
        FROM marts.dish_links WHERE dish_key = $dish_key
        ORDER BY score DESC, linked_dataset, linked_dish_key
        """,
        {"dish_key": dish_key},
    )


def linked_answers(source: Source, dish_key: str) -> pd.DataFrame:
    """Answers to questions about linked records of the dish, scored against their own dataset's
    gold (`score_own_gold`) and, for origins, against this dish's gold (`score_dish_gold`)."""
    return _frame(
        source,
        """
        SELECT kind, dataset, task, answer_dish_key, via, link_score, model, lang, item_id, answer_gold,
               dish_gold, prediction, score_own_gold, score_dish_gold, status, response, generation_id
        FROM marts.linked_answers WHERE dish_key = $dish_key
        ORDER BY kind DESC, dataset, model, lang, item_id
        """,
        {"dish_key": dish_key},
    )


def linked_summary(source: Source, dish_key: str) -> pd.DataFrame:
    """Per model: linked origin answers, their accuracy against the linked dataset's gold and
    against this dish's gold, and the most frequent first country they name."""
    return _frame(
        source,
        """
        SELECT model, count(*) AS n_answers, count(DISTINCT lang) AS n_prompt_langs,
               avg(score_own_gold) AS accuracy_linked_gold, avg(score_dish_gold) AS accuracy_this_gold,
               mode(nullif(split_part(prediction, ',', 1), '')) AS most_named
        FROM marts.linked_answers WHERE dish_key = $dish_key AND kind = 'origin'
        GROUP BY model ORDER BY accuracy_this_gold DESC NULLS LAST, model
        """,
        {"dish_key": dish_key},
    )


def disagreements(source: Source, dish_key: str) -> pd.DataFrame:
    """Linked records of the dish whose dataset gives other origins: only_here / only_linked / shared."""
    return _frame(
        source,
        """
        SELECT linked_dish_key, linked_dataset, linked_display_name, method, score, origins, linked_origins,
               only_here, only_linked, shared
        FROM marts.dish_origin_disagreements WHERE dish_key = $dish_key
        ORDER BY score DESC, linked_dish_key
        """,
        {"dish_key": dish_key},
    )
