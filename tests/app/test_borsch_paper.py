"""The BORSch paper page (Figs. 2b, 11, 12, 14 and Table 2), headless, on the real BORSch data with a few
answers imported as a researcher would (`import-responses --format borsch`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app.conftest import open_page
from tests.helpers import copy_warehouse, run_cli, shown, vega_rows

PAGE = "views/borsch_paper.py"
# RU dish 1 is ДАКОС, a Greek dish (wikidata); two models answer about it.
ANSWERS = [
    ("model-a", "origin_vqa", "На фотографиях итальянское блюдо, скорее всего из Италии."),
    ("model-a", "origin_vqa_with_name", "Дакос — греческое блюдо с Крита, Греция."),
    ("model-a", "origin_qa", "Не из Турции, а из Греции."),
    ("model-b", "dish_name_vqa", "Это дакос."),
]


@pytest.fixture(scope="module")
def answered(tmp_path_factory: pytest.TempPathFactory, ingested_template) -> Path:
    folder = tmp_path_factory.mktemp("borsch-paper")
    warehouse = copy_warehouse(ingested_template("borsch"), folder / "wh" / "warehouse.duckdb")
    lines = [
        {"model": model, "lang": "ru", "task": task, "variant": "1", "dish_id": "1", "response": text}
        for model, task, text in ANSWERS
    ]
    path = folder / "answers.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    run_cli(warehouse, "import-responses", "--format", "borsch", str(path))
    return warehouse


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


def test_every_figure_and_table_is_drawn_from_the_answers(answered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(answered))
    at = open_page(PAGE, dataset="borsch", file="ru")
    charts = at.get("vega_lite_chart")
    assert len(charts) == 3  # Fig. 2b (wikidata, bootstrapped), Fig. 11
    # Fig. 2b's finding: the bootstrapped dishes are more often Post-Soviet than the Wikidata ones
    shares = []
    for chart in charts[:2]:
        rows = vega_rows(chart)
        assert len(rows) == 15 and [r["n_dishes"] for r in rows] == sorted((r["n_dishes"] for r in rows), reverse=True)
        shares.append(
            sum(r["n_dishes"] for r in rows if r["group"] == "Post-Soviet") / sum(r["n_dishes"] for r in rows)
        )
    assert shares[1] > shares[0]
    parallel = {row["label"]: row["n_dishes"] for row in vega_rows(charts[2])}
    assert max(parallel, key=parallel.get) == "Russia (RU)"  # Fig. 11: the parallel subset centres on Russia
    wrong, gain, names, paper_table = (frame.value for frame in at.dataframe)
    assert paper_table.columns[0] == "row"  # last, the paper's own tables beside ours (app/paper_tables.py)
    assert list(wrong["country"]) == ["IT"] and list(wrong["model"]) == ["model-a"]  # ours: the negated TR dropped
    assert list(gain["gain"]) == [1.0] and list(gain["vqa_jaccard"]) == [0.0]
    assert list(names["country"]) == ["GR"] and list(names["accuracy"]) == [1.0] and list(names["model"]) == ["model-b"]
    assert list(names["paper_accuracy"]) == [1.0]
    assert any("model-a" in text for text in texts(at.caption))  # says which model produced what it shows


def test_the_papers_rule_counts_the_negated_country_too(answered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(answered))
    at = open_page(PAGE, dataset="borsch", file="ru", method="paper")
    wrong = at.dataframe[0].value
    assert sorted(wrong["country"]) == ["IT", "TR"]


def test_method_audit_shows_where_our_reading_and_the_papers_rule_differ_per_variant(
    answered: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(answered))
    at = open_page("views/method_audit.py", dataset="borsch", task="origin_qa")
    variants, answers = (frame.value for frame in at.dataframe)
    row = variants.iloc[0]
    assert (row["variant"], row["reading"], row["n_answers"], row["n_differ"]) == ("1", "origin", 1, 1)
    assert (row["jaccard_ours"], row["jaccard_paper"]) == (1.0, 0.5)
    assert list(answers["ours"]) == ["GR"] and list(answers["paper"]) == ["TR,GR"]
    assert list(answers["response"]) == ["Не из Турции, а из Греции."]
