"""The language gap (marts.language_gap, `export language-gap`): each prompt language's accuracy minus
English on the same items, with a paired bootstrap interval, checked on answers written here whose numbers
are computed by hand, and on the real demo's 12 models."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tests import shared_builds
from tests.helpers import copy_warehouse, query, run_cli
from warehouse.marts import language_gap

CONTRACT = ["dataset", "model", "task", "lang", "n", "accuracy", "accuracy_en", "gap", "low", "high"]

# WorldCuisines origin items 1900-1904 (gold: South Africa, Myanmar, Iran, Malaysia, United States).
ANSWERS = {
    "en": {"1900": "South Africa", "1901": "Myanmar", "1902": "Vietnam", "1903": "Malaysia"},  # 3 of 4
    "fr": {"1900": "France", "1901": "Myanmar", "1902": "Iran", "1903": "Malaisie"},  # 3 of 4: one lost, one gained
    # 2 of the 4 paired items; 1904 has no English answer and is left out of the pairing
    "ru_formal": {"1900": "Швеция.", "1901": "Мьянма", "1902": "Китай.", "1903": "Малайзия.", "1904": "Канада."},
}


def test_paired_bootstrap_of_identical_answers_has_zero_width() -> None:
    low, high = language_gap.paired_bootstrap(np.zeros(40), language_gap.row_rng("a"))
    assert low == high == 0.0


def test_paired_bootstrap_brackets_the_mean_difference() -> None:
    differences = np.array([-1.0] * 30 + [0.0] * 150 + [1.0] * 20)  # mean -0.05
    low, high = language_gap.paired_bootstrap(differences, language_gap.row_rng("a"))
    assert low < -0.05 < high
    # about 2 * 1.96 * sd / sqrt(n): sd = sqrt(50/200 - 0.05**2) = 0.497 -> width 0.138
    assert 0.11 < high - low < 0.16
    assert language_gap.paired_bootstrap(differences, language_gap.row_rng("a")) == (low, high)  # seeded


def test_scripts_are_read_from_the_letters() -> None:
    assert language_gap.script_of(["Из какой страны это блюдо?"]) == "Cyrillic"
    assert language_gap.script_of(["Which country is this dish from?", "123"]) == "Latin"
    assert language_gap.script_of(["この料理はどこの国のものですか"]) == "Kana"
    assert language_gap.script_of(["من أي بلد هذا الطبق؟"]) == "Arabic"
    assert language_gap.script_of(["12 ?"]) == ""
    # English instructions inside a Russian prompt do not make it Latin
    assert language_gap.script_of(["Как называется это блюдо? Print only the name of the dish."]) == "Cyrillic"


def build_gap_warehouse(folder: Path, ingested: Path) -> Path:
    """A copy of the WorldCuisines ingest with ANSWERS of one made-up model ("gaptest"), imported, scored
    and published."""
    warehouse = copy_warehouse(ingested, folder / "wh" / "warehouse.duckdb")
    lines = [
        json.dumps({"qa_id": qa_id, "prediction": text, "lang": lang})
        for lang, answers in ANSWERS.items()
        for qa_id, text in answers.items()
    ]
    path = folder / "task2_oe_gaptest.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run_cli(warehouse, "--no-publish", "import-responses", str(path))
    run_cli(warehouse, "score")
    return warehouse


def shared_gap_warehouse(ingested_template) -> Path:
    """`build_gap_warehouse` made once per test session and read by this module and the page's (none writes to it)."""
    return shared_builds.made("gap", lambda folder: build_gap_warehouse(folder, ingested_template("worldcuisines")))


@pytest.fixture(scope="module")
def gap_warehouse(ingested_template) -> Path:
    """Real WorldCuisines items, the answers above, imported, scored and published."""
    return shared_gap_warehouse(ingested_template)


def exported(warehouse: Path, *options: str) -> pl.DataFrame:
    return pl.read_csv(io.BytesIO(run_cli(warehouse, "export", "language-gap", *options).stdout.encode()))


@pytest.mark.parametrize("method", ["atlas", "paper"])
def test_the_gap_by_hand(gap_warehouse: Path, method: str) -> None:
    frame = exported(gap_warehouse, "--format", "csv", "--method", method)
    assert frame.columns[:10] == CONTRACT
    rows = {r["lang"]: r for r in frame.filter(pl.col("model") == "gaptest").iter_rows(named=True)}
    assert set(rows) == {"fr", "ru_formal"}  # English is the baseline, not a row
    fr, ru = rows["fr"], rows["ru_formal"]
    assert (fr["dataset"], fr["task"]) == ("worldcuisines", "origin_vqa")
    assert (fr["n"], fr["accuracy"], fr["accuracy_en"], fr["gap"]) == (4, 75.0, 75.0, 0.0)
    assert (fr["n_lost"], fr["n_gained"]) == (1, 1)
    assert fr["low"] < 0.0 < fr["high"]
    # ru: per-item differences (-1, 0, 0, 0); the bootstrap mean is -k/4 with k ~ Binomial(4, 1/4):
    # P(k = 0) = 0.32 > 2.5%, so high = 0; P(k >= 3) = 5.1% > 2.5% > P(k = 4) = 0.4%, so low = -75.
    assert (ru["n"], ru["accuracy"], ru["accuracy_en"], ru["gap"]) == (4, 50.0, 75.0, -25.0)
    assert (ru["low"], ru["high"]) == (-75.0, 0.0)
    assert (ru["script"], fr["script"]) == ("Cyrillic", "Latin")


def test_the_items_behind_a_gap_show_both_answers(gap_warehouse: Path) -> None:
    rows = query(
        gap_warehouse,
        """SELECT lang, item_id, change, response_en, response FROM marts.language_gap_items
           WHERE model = 'gaptest' AND method = 'atlas' ORDER BY lang, item_id""",
    )
    assert rows == [
        ("fr", "1900", "lost", "South Africa", "France"),
        ("fr", "1902", "gained", "Vietnam", "Iran"),
        ("ru_formal", "1900", "lost", "South Africa", "Швеция."),
    ]


def test_an_unknown_method_is_one_error_line(gap_warehouse: Path) -> None:
    result = run_cli(gap_warehouse, "export", "language-gap", "--method", "mine", check=False)
    assert result.returncode == 2 and "error:" in result.stderr and "mine" in result.stderr


def test_parquet_keeps_the_contract(gap_warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "gap.parquet"
    run_cli(gap_warehouse, "export", "language-gap", "--format", "parquet", "--out", str(out))
    assert pl.read_parquet(out).columns[:10] == CONTRACT


def test_the_real_demo_shows_every_model_in_every_language(real_warehouse: Path) -> None:
    frame = exported(real_warehouse, "--format", "csv")
    origin = frame.filter((pl.col("dataset") == "worldcuisines") & (pl.col("task") == "origin_vqa"))
    assert origin["model"].n_unique() == 12
    assert origin["lang"].n_unique() == 29  # the 30 variants less English
    assert origin["n"].max() <= 500 and origin["n"].min() >= 490
    # the gap is the difference of the two accuracies, and its interval holds it
    assert (origin["gap"] - (origin["accuracy"] - origin["accuracy_en"])).abs().max() < 1e-9
    assert ((origin["low"] <= origin["gap"] + 1e-9) & (origin["gap"] <= origin["high"] + 1e-9)).all()
    # recount one row from the core tables: gpt-4o in Yoruba against English, on the same items
    row = origin.filter((pl.col("model") == "gpt-4o-2024-08-06") & (pl.col("lang") == "yo")).row(0, named=True)
    (n, right, right_en) = query(
        real_warehouse,
        """WITH s AS (SELECT g.item_id, g.variant, g.lang, s.value FROM core.scores s JOIN core.generations g
                      USING (generation_id) JOIN core.items i USING (item_id)
                      WHERE i.task_id = 'worldcuisines.origin_vqa' AND s.metric = 'accuracy'
                        AND g.model_id = 'gpt-4o-2024-08-06' AND NOT isnan(s.value))
           SELECT count(*), sum(a.value), sum(e.value) FROM s a JOIN s e USING (item_id, variant)
           WHERE a.lang = 'yo' AND e.lang = 'en'""",
    )[0]
    assert row["n"] == n
    assert row["accuracy"] == pytest.approx(right / n * 100)
    assert row["accuracy_en"] == pytest.approx(right_en / n * 100)
