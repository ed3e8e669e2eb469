"""`make demo` on a fresh machine with no network and no data folder: real answers of real models, from the embedded
bundle, labelled as a bundled subset."""

from __future__ import annotations

from pathlib import Path

from pipeline.datasets import bundle
from tests.helpers import query


def test_demo_without_data_builds_the_embedded_bundle_of_real_answers(bundle_warehouse: Path) -> None:
    log = (bundle_warehouse.parent / "build.log").read_text(errors="replace")
    assert "embedded bundle of real results" in " ".join(log.split())
    rows = query(
        bundle_warehouse,
        "SELECT dataset, is_sample, n_dishes, n_models, subset FROM marts.dataset_summary ORDER BY dataset",
    )
    assert [(dataset, sample) for dataset, sample, *_ in rows] == [
        ("borsch", False),
        ("culturemix", False),
        ("worldcuisines", False),
    ]
    borsch, culturemix, worldcuisines = rows
    assert culturemix[2] > 0 and culturemix[3] == 0  # its sample's images, and no answers: none are public
    assert borsch[2] == 1147 + 823 and borsch[4] is None  # every BORSch dish, not a subset
    note = f"bundled subset: {bundle.TASK2_ITEMS} of 500 origin questions"
    assert worldcuisines[3] == 12 and worldcuisines[4].startswith(note)


def test_the_bundle_demo_scores_every_model_in_every_prompt_language(bundle_warehouse: Path) -> None:
    per_model = query(
        bundle_warehouse,
        """SELECT model, count(DISTINCT lang), sum(n) FROM marts.leaderboard
           WHERE dataset = 'worldcuisines' AND task = 'origin_vqa' AND lang <> '*' GROUP BY model""",
    )
    assert len(per_model) == 12
    assert all(langs == 30 and answers == bundle.TASK2_ITEMS * 30 for _, langs, answers in per_model)
    linked = query(bundle_warehouse, "SELECT count(*) FROM marts.language_pull WHERE dataset = 'borsch'")[0][0]
    assert linked > 0  # BORSch's pages show the real answers to its linked WorldCuisines dishes
