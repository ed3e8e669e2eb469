"""The ZNO-Vision pages over one warehouse holding the small files of the dataset tests (ZNO exam,
Multi30K captions, VQA in two languages) and hand-written answers: the exam's subjects x models heatmap
with both baselines, Table 1 with intervals and the click-through to one model's questions with their
images and both readings; the captions table (Table 2); the VQA UA-vs-EN table (Table 3)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.score import captions as caption_metrics
from tests.helpers import REPO, run_cli, shown, vega_rows
from tests.pipeline.datasets.caption_vqa_files import load_captions_and_vqa, tiny_bert
from tests.pipeline.datasets.zno_files import write_answers, write_zno

PAGE = "views/zno.py"


@pytest.fixture(scope="module")
def zno_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("zno-app")
    warehouse = root / "warehouse.duckdb"
    run_cli(warehouse, "--no-publish", "ingest", "zno", "--source", str(write_zno(root / "zno")))
    run_cli(
        warehouse, "--no-publish", "import-responses", "--format", "zno", str(write_answers(root / "answers.jsonl"))
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(caption_metrics.BERTSCORE_MODEL_ENV, str(tiny_bert(root / "tiny-bert")))
        load_captions_and_vqa(warehouse, root)
        run_cli(warehouse, "score")
    return warehouse


def open_page(warehouse: Path, monkeypatch: pytest.MonkeyPatch, page: str = PAGE, **params: str) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=90)
    at.query_params["dataset"] = "zno"
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def test_the_heatmap_draws_models_and_both_baselines(zno_warehouse: Path, monkeypatch) -> None:
    at = open_page(zno_warehouse, monkeypatch)
    chart = at.get("vega_lite_chart")[0]
    cells = {(c["model"], c["subject"]): c["accuracy"] for c in vega_rows(chart)}
    # paper rule, validation (the first split): m1 right on v1 and v2 of 3; first option right on v1, v3
    assert cells["m1", "(all subjects)"] == pytest.approx(2 / 3)
    assert cells["m1", "Mathematics"] == 1.0
    assert cells["baseline: first option", "(all subjects)"] == pytest.approx(2 / 3)
    assert cells["baseline: random", "(all subjects)"] == pytest.approx((0.25 + 0.25 + 0.2) / 3)
    intervals = {(c["model"], c["subject"]): c["interval"] for c in vega_rows(chart)}
    assert intervals["m1", "(all subjects)"] == "0.21–0.94"  # Wilson 95% for 2 of 3 in the tooltip
    assert intervals["baseline: random", "(all subjects)"] == ""
    table = at.dataframe[0].value
    assert table["model"].tolist()[-2:] == ["baseline: first option", "baseline: random"]
    m1 = table[table["model"] == "m1"].iloc[0]
    assert (round(m1["low"], 4), round(m1["high"], 4)) == (0.2077, 0.9385)
    assert "m1, m2 (2 models" in shown(" ".join(m.value for m in at.markdown))
    assert "layout and hub id are unverified" in shown(" ".join(m.value for m in at.markdown))  # stated, not hidden
    (visual,) = [df.value for df in at.dataframe if "n_visual_only" in df.value.columns]  # Tables 7-8, flagged
    assert visual.set_index("name").loc["Mathematics", "n_visual_only"] == 1
    years = {(r["subject"], r["year"]): r["n"] for r in vega_rows(at.get("vega_lite_chart")[1])}
    assert years == {("Chemistry", "2019"): 1, ("Chemistry", "2023"): 1, ("History", "2020"): 1,
                     ("Mathematics", "2021"): 1, ("Mathematics", "2022"): 1}  # fmt: skip


def test_the_click_through_lists_answers_with_both_readings(zno_warehouse: Path, monkeypatch) -> None:
    at = open_page(zno_warehouse, monkeypatch, zno_model="m1", zno_split="test", zno_method="atlas")
    answers = next(df.value for df in at.dataframe if "item_id" in df.value.columns)
    assert answers["item_id"].tolist() == ["t1", "t2"]
    assert answers["atlas_correct"].tolist() == [True, True]
    assert answers["paper_status"].tolist() == ["unparsed", "bracket_other"]
    assert len(at.get("image")) == 2  # each question's image
    assert any("2 of 2 right by ours" in c.value for c in at.caption)
    at.selectbox(key="url_zno_subject").set_value("Chemistry").run()
    answers = next(df.value for df in at.dataframe if "item_id" in df.value.columns)
    assert answers["subject"].unique().tolist() == ["Chemistry"]


def test_the_captions_page_shows_table_2_per_model(zno_warehouse: Path, monkeypatch) -> None:
    at = open_page(zno_warehouse, monkeypatch, "views/captions.py")
    table = at.dataframe[0].value
    row = table[(table["model"] == "m1") & table["lang"].str.startswith("uk")].iloc[0]
    assert row["bleu"] == "68.39 ± 31.61"  # sentence BLEU 100 and 100 e^-1
    assert row["corpus_bleu"] == pytest.approx(100 * math.exp(1 - 8 / 6))
    assert "±" in row["bertscore"]  # BERTScore F1 of a random tiny BERT: only its form is known
    answers = at.dataframe[1].value
    assert answers["response"].tolist()[0] == "a cat sits on the mat"  # the first split/lang: en
    assert any("bert-base-multilingual-cased" in c.value for c in at.caption)


def test_the_vqa_page_shows_table_3_and_both_answers(zno_warehouse: Path, monkeypatch) -> None:
    at = open_page(zno_warehouse, monkeypatch, "views/vqa.py")
    table = at.dataframe[0].value
    m1 = table[table["model"] == "m1"].iloc[0]
    assert (m1["vqa_uk"], m1["vqa_en"], m1["gap"]) == (pytest.approx(80.0), pytest.approx(50.0), pytest.approx(30.0))
    pairs = at.dataframe[1].value  # m1 first: the highest Ukrainian accuracy
    assert pairs["question_id"].tolist() == ["2", "1"]  # "two" vs "2": 0 in English, 1 in Ukrainian first
    assert pairs.iloc[0][["answer_en", "answer_uk"]].tolist() == ["two", "2"]
