"""Queries for the Compare page: model A against model B on the same questions.

A *pair* is one question (item) in one prompt language answered by both models (same prompt
variant): `paired()` reads them from `marts.origin_scores` in one self-join. The difference of the
means, A − B, is the mean of the per-pair differences; its 95% interval comes from a paired
bootstrap: the pairs are resampled with replacement (so each resample keeps A's and B's answers to
the same question together), 2,000 times, from a fixed seed, as in marts.leaderboard. Differences
take few distinct values (−1, 0, 1 for accuracy), so a resample is drawn exactly as a multinomial
over them and the cost does not grow with the number of pairs. Per language and per gold country,
the same over that group's pairs (a question with two gold countries counts in both).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters

RESAMPLES = 2_000
SEED = 20241
METRICS = ("accuracy", "jaccard")  # columns of marts.origin_scores; a missing score counts as 0


def paired(source: Source, filters: Filters, model_a: str, model_b: str) -> pd.DataFrame:
    """One row per question and prompt language both models answered under `filters` (its models
    are ignored: A and B are the models): dish, gold, what each named, each one's accuracy and Jaccard."""
    where, params = Filters(filters.dataset, filters.task, (), filters.langs).where("a")
    return _frame(
        source,
        f"""
        SELECT a.item_id, a.lang, a.variant, a.dish_key,
               coalesce(d.display_name, d.name, a.dish_key) AS dish_name, a.gold,
               a.predicted AS predicted_a, b.predicted AS predicted_b,
               coalesce(a.accuracy, 0) AS accuracy_a, coalesce(b.accuracy, 0) AS accuracy_b,
               coalesce(a.jaccard, 0) AS jaccard_a, coalesce(b.jaccard, 0) AS jaccard_b,
               a.response AS response_a, b.response AS response_b
        FROM marts.origin_scores a
        JOIN marts.origin_scores b
          ON b.dataset = a.dataset AND b.task = a.task AND b.item_id = a.item_id AND b.lang = a.lang
         AND b.variant = a.variant AND b.model = $model_b
        LEFT JOIN marts.dishes d ON d.dish_key = a.dish_key
        WHERE {where} AND a.model = $model_a
        ORDER BY try_cast(a.item_id AS BIGINT) NULLS LAST, a.item_id, a.lang
        """,
        {**params, "model_a": model_a, "model_b": model_b},
    )


def paired_bootstrap(differences: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """Percentile 95% interval of the mean paired difference: `resamples` resamples of the pairs with
    replacement, drawn as a multinomial over the distinct differences (the same distribution as
    drawing pair indices), from `seed`. NaN for no pairs."""
    differences = np.asarray(differences, dtype=float)
    if differences.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    distinct, counts = np.unique(differences, return_counts=True)
    draws = rng.multinomial(differences.size, counts / differences.size, size=resamples)
    means = draws @ distinct / differences.size
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def _summary(groups: Iterable[tuple[object, pd.DataFrame]], metric: str, by: str) -> pd.DataFrame:
    rows = []
    for key, group in groups:
        diff = (group[f"{metric}_a"] - group[f"{metric}_b"]).to_numpy()
        low, high = paired_bootstrap(diff)
        right_a, right_b = group["accuracy_a"] == 1, group["accuracy_b"] == 1
        rows.append(
            {
                by: key,
                "n": len(group),
                "a": float(group[f"{metric}_a"].mean()),
                "b": float(group[f"{metric}_b"].mean()),
                "difference": float(diff.mean()),
                "low": low,
                "high": high,
                "only_a_right": int((right_a & ~right_b).sum()),
                "only_b_right": int((right_b & ~right_a).sum()),
            }
        )
    return pd.DataFrame(rows, columns=[by, "n", "a", "b", "difference", "low", "high", "only_a_right", "only_b_right"])


def summary(pairs: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """All pairs: n, mean of A and B, difference A − B with its paired-bootstrap interval (low, high),
    and how many pairs only A (only B) got right. One row."""
    return _summary([("all", pairs)] if len(pairs) else [], metric, "group")


def by_language(pairs: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """As `summary`, one row per prompt language, largest difference first."""
    frame = _summary(pairs.groupby("lang", sort=True), metric, "lang")
    return frame.sort_values(["difference", "lang"], ascending=[False, True], kind="stable", ignore_index=True)


def by_country(pairs: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """As `summary`, one row per gold country (a question with several counts in each), most pairs first."""
    exploded = pairs.assign(country=pairs["gold"].str.split(",")).explode("country")
    exploded = exploded[exploded["country"].fillna("") != ""]
    frame = _summary(exploded.groupby("country", sort=True), metric, "country")
    return frame.sort_values(["n", "country"], ascending=[False, True], kind="stable", ignore_index=True)


def split_decisions(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs where exactly one model is right (accuracy), with `right` = "A" or "B"."""
    right_a, right_b = pairs["accuracy_a"] == 1, pairs["accuracy_b"] == 1
    split = pairs[right_a != right_b]
    return split.assign(right=np.where(split["accuracy_a"] == 1, "A", "B"))


@dataclass(frozen=True)
class Comparison:
    """What the Compare page shows first for one (A, B, metric); the per-country rows are a separate
    query (`countries`), run when their tab is opened."""

    pairs: pd.DataFrame
    overall: pd.DataFrame
    languages: pd.DataFrame
    split: pd.DataFrame


def _checked(metric: str) -> str:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}: one of {', '.join(METRICS)}")
    return metric


def compare(source: Source, filters: Filters, model_a: str, model_b: str, metric: str = "accuracy") -> Comparison:
    """`paired()` and its summaries in one call (one cached result per selection in the app)."""
    pairs = paired(source, filters, model_a, model_b)
    metric = _checked(metric)
    return Comparison(
        pairs=pairs,
        overall=summary(pairs, metric),
        languages=by_language(pairs, metric),
        split=split_decisions(pairs),
    )


def countries(source: Source, filters: Filters, model_a: str, model_b: str, metric: str = "accuracy") -> pd.DataFrame:
    """`by_country()` of the pairs, with each country's English `name`. Apart from `compare` because a
    bootstrap per country costs more than the rest of the page (~1 s for ~150 countries) and the page
    shows it only in its second tab."""
    metric = _checked(metric)
    frame = by_country(paired(source, filters, model_a, model_b), metric)
    names = _frame(
        source,
        "SELECT country, name_en AS name FROM marts.country_shapes WHERE list_contains($codes, country)",
        {"codes": frame["country"].tolist()},
    )
    frame = frame.merge(names, on="country", how="left")
    frame["name"] = frame["name"].fillna(frame["country"])
    return frame
