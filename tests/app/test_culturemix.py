"""The Culture mix page over a warehouse with the CultureMix sample and hand-built answers: the five
plots, the drilldown with each model's answer and its shift, and what it says about its sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import REPO, copy_warehouse, run_cli
from tests.pipeline.score.test_culturemix import ANSWERS

PAGE = "views/culturemix.py"


def _answers_file(path: Path, rows: list[tuple[str, str, str]], prompt: str = "base") -> Path:
    path.write_text(
        "".join(json.dumps({"model": m, "image": i, "prompt": prompt, "response": r}) + "\n" for m, i, r in rows),
        encoding="utf-8",
    )
    return path


def _warehouse(root: Path, ingested: Path, rows: list[tuple[str, str, str]]) -> Path:
    warehouse = copy_warehouse(ingested, root / "warehouse.duckdb")
    run_cli(
        warehouse,
        "--no-publish",
        "import-responses",
        "--format",
        "culturemix",
        str(_answers_file(root / "a.jsonl", rows)),
    )
    run_cli(warehouse, "score")
    return warehouse


@pytest.fixture(scope="module")
def hand_answers(tmp_path_factory, ingested_template) -> Path:
    return _warehouse(tmp_path_factory.mktemp("cm-app"), ingested_template("culturemix"), ANSWERS)


@pytest.fixture(scope="module")
def test_model_answers(tmp_path_factory, ingested_template) -> Path:
    rows = [("tiny-vision", image, "Food: dumplings. Country: Japan") for _, image, _ in ANSWERS[:10]]
    return _warehouse(tmp_path_factory.mktemp("cm-tiny"), ingested_template("culturemix"), rows)


def open_page(warehouse: Path, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=90)
    at.query_params["dataset"] = "culturemix"
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _text(at: AppTest) -> str:
    return " ".join(m.value for m in [*at.markdown, *at.caption, *at.warning, *at.info])


def test_the_page_draws_all_five_plots_and_names_its_sources(hand_answers: Path, monkeypatch):
    at = open_page(hand_answers, monkeypatch, part="analysis")  # our analyses; the paper's tables are the default
    subheaders = [h.value for h in at.subheader]
    for title in ("(a) Label shift", "(b) Retention", "(c) Accuracy and entropy", "(d) Cultural vs", "(e) SF entropy"):
        assert any(s.startswith(title) for s in subheaders), title
    assert len(at.get("vega_lite_chart")) == 5
    text = _text(at)
    assert "hand\\-a (replay, 10 answers on 10 images)" in text and "hand\\-b (replay, 1 answers" in text
    assert not any("small test model" in w.value for w in at.warning)
    assert "≥ 0.8" in text  # the one food-match rule, with its threshold (issue 37)
    # one answer per image: the paper's SF entropy (over repeated samples) is 0, and the page says why
    assert "Every SF image was answered once" in text


def test_the_drilldown_shows_each_variant_with_its_answer_and_shift(hand_answers: Path, monkeypatch):
    at = open_page(hand_answers, monkeypatch, food="1789", part="analysis")
    assert at.selectbox(key="url_food").value == "1789"
    frames = [df.value for df in at.dataframe]
    rows = {(r["model"], r["predicted_country"], r["shift"]) for frame in frames for r in frame.to_dict("records")}
    assert ("hand-a", "PT", "(SF)") in rows
    assert ("hand-a", "CM", "→ distractor's country") in rows
    assert ("hand-a", "GT", "→ distractor's continent") in rows
    assert ("hand-a", "JP", "→ elsewhere") in rows
    assert ("hand-b", "CM", "no SF answer to compare with") in rows  # hand-b has no SF answer: no shift
    assert len(at.get("image")) == 10  # the ten images of Aletria side by side


def test_answers_only_from_a_small_test_model_are_said_to_be_so(test_model_answers: Path, monkeypatch):
    at = open_page(test_model_answers, monkeypatch)
    assert any("small test model with random weights" in w.value for w in at.warning)


def test_a_warehouse_without_culturemix_answers_says_how_to_get_them(culturemix_warehouse: Path, monkeypatch):
    at = open_page(culturemix_warehouse, monkeypatch)
    assert any("No CultureMix answers in this warehouse yet" in i.value for i in at.info)
    assert "import-responses --format culturemix" in " ".join(c.value for c in at.code)
    assert len(at.get("download_button")) == 1  # the template answer file, listing the warehouse's images
