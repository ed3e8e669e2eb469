"""The Imagined dishes page, headless with AppTest, on warehouses the imagine steps filled with tiny
random models: with the describer's QA answers (scatter, Spearman), without them (said plainly),
and before anything was imagined (the empty state)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
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
    charts = at.get("vega_lite_chart")
    histogram, reference_histogram, _scatter, _regions = (json.loads(chart.proto.spec) for chart in charts)
    assert histogram["encoding"]["x"]["bin"] and histogram["encoding"]["y"]["aggregate"] == "count"
    cosines = vega_rows(charts[0])
    assert sum(row["kind"].startswith("intra") for row in cosines) == 8  # one intra cosine per generated image
    assert len(vega_rows(charts[2])) == 4  # one point per dish
    # §5's real-photo reference: 8 photos, each with its intra and inter cosine, beside the paper's 0.52 and 0.07
    assert reference_histogram["encoding"]["y"]["title"] == "real photos"
    assert sorted(row["kind"] for row in vega_rows(charts[1])).count("real photo vs its dish's other photos") == 8
    reference = at.dataframe[1].value
    ((intra,),) = query(imagined_warehouse, "SELECT intra_mean FROM marts.imagined_reference")
    assert reference[["n_photos", "n_intra_pairs", "paper_intra_mean", "paper_inter_mean"]].values.tolist() == [
        [8, 4, 0.52, 0.07]
    ]
    assert reference["intra_mean"].iloc[0] == pytest.approx(intra)
    # Table 4: 18 cells laid out as the paper prints them; the VQA half empty and saying why
    table4 = at.dataframe[2].value
    assert table4["correlation"].tolist()[:3] == ["QA Jaccard r", "QA Jaccard ρ", "QA Jaccard τ"]
    assert len(table4) == 18 and table4["correlation"].iloc[-1] == "VQA Overlap τ"
    assert table4.set_index("correlation").iloc[9:].isna().all().all()
    assert "No value in 9 cells (VQA): no VQA answers by the paired model on the drawn dishes." in text
    symbols = {"pearson": "r", "spearman": "ρ", "kendall": "τ"}
    shown_qa = table4.set_index("correlation").iloc[:, 0]
    cells = query(
        imagined_warehouse, "SELECT metric, correlation, value, note FROM marts.imagined_table4 WHERE setup = 'QA'"
    )
    for metric, correlation, value, note in cells:
        shown_value = shown_qa[f"QA {metric.capitalize()} {symbols[correlation]}"]
        # the tiny describer's answers may all score alike: then the cell is empty and the page says why
        assert shown_value == pytest.approx(value) if value is not None else pd.isna(shown_value)
        assert value is not None or f"(QA): {note}." in text
    # the paper's own Table 4 beside ours, as printed (Appendix J.2: Llama-3.2 RU, first row and last row)
    published = at.dataframe[3].value.set_index("correlation")
    assert published.shape == (18, 4) and published.loc["QA Jaccard r", "ru — Russian · Llama-3.2"] == 0.08
    assert published.loc["VQA Overlap τ", "uk — Ukrainian · Qwen2"] == 0.13
    # Fig. 8: one bar per region of the drawn dishes' origins; a dish of three African origins counts once there
    regions = {row["region"]: row for row in vega_rows(charts[3])}
    assert regions["Outside the Post-Soviet states: Africa"]["n_dishes"] == 1
    assert regions.keys() == {r for (r,) in query(imagined_warehouse, "SELECT region FROM marts.imagined_regions")}
    region_dishes = at.dataframe[5].value
    assert len(region_dishes) == regions[at.selectbox(key="url_imagined_region").value]["n_dishes"]
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
    assert len(at.get("vega_lite_chart")) == 3  # the distributions, the real-photo reference, Fig. 8; no scatter


def test_before_anything_is_imagined_the_page_says_how(warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_cli(warehouse, "ingest", "sample")
    at = open_imagined(warehouse, monkeypatch, dataset="sample")
    assert "No imagined dishes for sample in this warehouse yet" in page_text(at)
    commands = " ".join(c.value for c in at.code)  # the exact commands, offline tiny models included
    assert "python -m pipeline imagine --dataset borsch" in commands and "tiny-model --kind text-to-image" in commands
