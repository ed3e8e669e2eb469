"""The Imagined dishes page, headless with AppTest, on warehouses the imagine steps filled with tiny
random models: with the describer's QA answers (scatter, Spearman), without them (said plainly),
and before anything was imagined (the empty state)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import make_dish_photos
from tests.helpers import REPO, query, run_cli, shown, vega_rows

MAIN = REPO / "app" / "main.py"


def open_imagined(warehouse: Path, monkeypatch: pytest.MonkeyPatch, dataset: str = "borsch", **params) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(MAIN, default_timeout=90)
    at.query_params["dataset"] = dataset
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    at.switch_page("views/imagined.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_text(at: AppTest) -> str:
    parts = [shown(str(e.value)) for kind in ("markdown", "info", "warning", "caption") for e in at.get(kind)]
    return "\n".join(parts)


def test_the_page_shows_distributions_scatter_and_gallery_and_names_the_tiny_models(
    imagined_warehouse: Path, tiny_text_model: Path, tiny_text_to_image_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = open_imagined(imagined_warehouse, monkeypatch)
    text = page_text(at)
    assert "Tiny random test models produced" in text
    assert f"describer {tiny_text_model} (tiny random)" in text.replace("`", "")
    assert f"generator {tiny_text_to_image_model} (tiny random)" in text.replace("`", "")
    summary = at.dataframe[0].value
    assert summary[["n_dishes", "n_images", "n_dishes_with_qa"]].values.tolist() == [[4, 8, 4]]
    histogram, _scatter = (json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart"))
    assert histogram["encoding"]["x"]["bin"] and histogram["encoding"]["y"]["aggregate"] == "count"
    cosines = vega_rows(at.get("vega_lite_chart")[0])
    assert sum(row["kind"].startswith("intra") for row in cosines) == 8  # one intra cosine per generated image
    assert len(vega_rows(at.get("vega_lite_chart")[1])) == 4  # one point per dish
    correlation = query(imagined_warehouse, "SELECT spearman FROM marts.imagined_correlations")[0][0]
    expected = "Spearman ρ not computed" if correlation is None else f"Spearman ρ = {correlation:.2f}"
    assert expected in text
    (description,) = query(
        imagined_warehouse,
        "SELECT DISTINCT description FROM marts.imagined WHERE dish_key = 'borsch:ru:1'",
    )[0:1]
    assert at.text[0].value == description[0]  # the gallery's first dish, its description as plain text
    assert len(at.get("image")) == 4  # 2 generated (seeds 0, 1) beside 2 real photos


def test_without_qa_answers_the_page_says_so_instead_of_inventing(
    borsch_warehouse: Path, tmp_path: Path, tiny_text_model: Path, tiny_text_to_image_model: Path,
    tiny_image_encoder: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    warehouse = borsch_warehouse
    photos = make_dish_photos(tmp_path / "photos", "UK", [1, 2])
    run_cli(
        warehouse, "imagine", "--dataset", "borsch", "--lang", "uk", "--describer", str(tiny_text_model),
        "--generator", str(tiny_text_to_image_model), "--encoder", str(tiny_image_encoder), "--limit", "2",
        "--images", str(photos), "--steps", "1", "--size", "32", "--setting", "max_new_tokens=8",
    )  # fmt: skip
    at = open_imagined(warehouse, monkeypatch)
    text = page_text(at)
    assert "has no scored origin-QA answer about these dishes" in text
    assert "Spearman ρ not computed (0 dishes with a QA score" in text
    assert len(at.get("vega_lite_chart")) == 1  # the distributions; no scatter


def test_before_anything_is_imagined_the_page_says_how(warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_cli(warehouse, "ingest", "sample")
    at = open_imagined(warehouse, monkeypatch, dataset="sample")
    assert "No imagined dishes for **sample** yet" in page_text(at)
    assert "python -m pipeline imagine --dataset borsch" in page_text(at)
