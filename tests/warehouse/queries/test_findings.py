"""The landing page's headline findings (warehouse/queries/findings.py) on the embedded bundle's real answers, each
recounted from the per-answer mart the evidence pages read, so a sentence and the page it links to agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.datasets import bundle
from tests.helpers import query
from warehouse.queries import findings
from warehouse.queries.answers import Filters

ORIGIN = Filters(dataset="worldcuisines", task="origin_vqa")


def test_overall_accuracy_is_the_share_of_right_answers(bundle_warehouse: Path) -> None:
    (row,) = findings.overall(bundle_warehouse, ORIGIN).to_dict("records")
    n, right, models, langs = query(
        bundle_warehouse,
        """SELECT count(*), sum(accuracy), count(DISTINCT model), count(DISTINCT lang) FROM marts.origin_scores
           WHERE dataset = 'worldcuisines' AND task = 'origin_vqa'""",
    )[0]
    assert (row["n_answers"], row["n_models"], row["n_langs"]) == (n, models, langs)
    assert (n, models, langs) == (bundle.TASK2_ITEMS * 30 * 12, 12, 30)
    assert row["accuracy"] == pytest.approx(right / n)


def test_the_best_and_worst_models_bound_every_model(bundle_warehouse: Path) -> None:
    extremes = findings.model_range(bundle_warehouse, ORIGIN)
    per_model = dict(
        query(
            bundle_warehouse,
            """SELECT model, avg(accuracy) FROM marts.origin_scores
               WHERE dataset = 'worldcuisines' AND task = 'origin_vqa' GROUP BY model""",
        )
    )
    assert list(extremes["rank"]) == ["best", "worst"]
    assert extremes["accuracy"].iloc[0] == pytest.approx(max(per_model.values()))
    assert extremes["accuracy"].iloc[1] == pytest.approx(min(per_model.values()))
    assert extremes["model"].iloc[0] == max(per_model, key=per_model.get)


def test_the_language_pull_pools_the_wrong_answers_of_every_non_english_prompt(bundle_warehouse: Path) -> None:
    (row,) = findings.language_pull(bundle_warehouse, ORIGIN).to_dict("records")
    n_wrong, n_pulled = query(
        bundle_warehouse,
        """SELECT sum(n_wrong), sum(n_pulled) FROM marts.language_pull WHERE dataset = 'worldcuisines'
           AND task = 'origin_vqa' AND answers_from = 'own' AND lang <> 'en'""",
    )[0]
    assert row["n_wrong"] == n_wrong and row["pull_share"] == pytest.approx(n_pulled / n_wrong)
    assert row["top_n_wrong"] >= findings.MIN_WRONG and row["top_pull_share"] >= row["top_base_share"]


def test_the_top_confusion_is_a_real_mistake_of_an_origin_with_enough_answers(bundle_warehouse: Path) -> None:
    (row,) = findings.top_confusion(bundle_warehouse, ORIGIN).to_dict("records")
    assert row["true_country"] != row["named"] and row["n_true"] >= findings.MIN_CONFUSED
    n_named = query(
        bundle_warehouse,
        """SELECT sum(n) FROM marts.confusion WHERE dataset = 'worldcuisines' AND task = 'origin_vqa'
           AND true_country = ? AND confusion_label = ?""",
        [row["true_country"], row["named"]],
    )[0][0]
    assert row["n"] == n_named and row["share"] == pytest.approx(n_named / row["n_true"])


def test_a_dataset_without_answers_has_no_findings(bundle_warehouse: Path) -> None:
    nothing = Filters(dataset="no-such-dataset", task="origin_vqa")
    for finding in (findings.overall, findings.model_range, findings.language_pull, findings.top_confusion):
        assert finding(bundle_warehouse, nothing).empty
