"""The Co-occurrence, Code mixing and Language pull pages for BORSch, which has no model answers of
its own: they show the real answers to linked WorldCuisines questions, labelled (which models, which
prompt languages, which dataset asked, whose gold), run headless with AppTest on the real demo
warehouse plus a small Ukrainian corpus (tests/warehouse/test_linked_answers.py)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import REPO, query, shown, vega_rows
from tests.warehouse.test_linked_answers import CORPUS, MODEL, shared_linked_warehouse

MAIN = REPO / "app" / "main.py"
TIMEOUT = 60


@pytest.fixture(scope="module")
def linked_warehouse(real_warehouse: Path) -> Path:
    return shared_linked_warehouse(real_warehouse)


@pytest.fixture(scope="module")
def unlinked_warehouse(linked_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same snapshot with no linked answers at all (as if no BORSch dish were a WorldCuisines one)."""
    target = tmp_path_factory.mktemp("unlinked") / "warehouse.duckdb"
    target.write_bytes(linked_warehouse.read_bytes())
    con = duckdb.connect(str(target))
    try:
        con.execute("DELETE FROM marts.linked_origin_answers")
        for mart in ("language_pull", "ru_ua_pull", "cooccurrence_bins", "codemix_bins"):
            con.execute(f"DELETE FROM marts.{mart} WHERE answers_from = 'linked'")
    finally:
        con.close()
    return target


def open_page(warehouse: Path, monkeypatch: pytest.MonkeyPatch, page: str, **params: str) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    at.query_params["dataset"] = "borsch"
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


def says_linked(at: AppTest) -> None:
    """The page says plainly that BORSch has no answers of its own and whose answers it shows."""
    info = " ".join(texts(at.info))
    assert "borsch has no model answers of its own yet" in info
    assert "linked answers" in info and "12 models" in info and "worldcuisines" in info
    assert "30 prompt languages" in info and "origin_vqa" in info


def test_cooccurrence_draws_linked_answers_with_their_labels(linked_warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_page(linked_warehouse, monkeypatch, "cooccurrence", corpus=CORPUS, lmodels=MODEL)
    says_linked(at)
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    line = [row for row in vega_rows(at.get("vega_lite_chart")[0]) if "series" in row]
    assert {row["series"] for row in line} == {MODEL} and sorted(row["bin"] for row in line) == [1, 4, 10]
    assert "vs borsch gold, linked answers" in json.dumps(spec, ensure_ascii=False)  # the y axis title
    assert any(
        "Linked answers" in text and MODEL in text and "scored against borsch gold" in text
        for text in texts(at.caption)
    )
    table = at.dataframe[0].value
    assert set(table["answers"]) == {"linked: worldcuisines origin_vqa"} and set(table["gold"]) == {"borsch"}
    assert table["n_answers"].tolist() == [30, 30, 30]  # one model, 30 prompt languages
    [(expected,)] = query(
        linked_warehouse,
        "SELECT avg(jaccard_dish_gold) FROM marts.linked_origin_answers WHERE dish_key = 'borsch:uk:460' AND model = ?",
        [MODEL],
    )
    assert table.loc[table["bin"] == 10, "jaccard"].iloc[0] == pytest.approx(expected)
    behind = [frame.value for frame in at.dataframe if "docs_with_true_country" in frame.value.columns]
    assert any(
        len(frame) and frame["answers"].astype(str).str.endswith("linked answers").all() for frame in behind
    )  # the dishes behind a point say their answers are linked ones


def test_the_gold_switch_scores_the_same_answers_against_the_asking_datasets_gold(
    linked_warehouse: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(linked_warehouse, monkeypatch, "cooccurrence", corpus=CORPUS, lmodels=MODEL, gold="worldcuisines")
    assert at.selectbox(key="cooc_linked_gold").value == "worldcuisines"
    table = at.dataframe[0].value
    assert set(table["gold"]) == {"worldcuisines"}
    [(expected,)] = query(
        linked_warehouse,
        "SELECT avg(jaccard_answer_gold) FROM marts.linked_origin_answers WHERE dish_key = 'borsch:uk:460' "
        "AND model = ?",
        [MODEL],
    )
    assert table.loc[table["bin"] == 10, "jaccard"].iloc[0] == pytest.approx(expected)
    at.selectbox(key="cooc_linked_gold").set_value("borsch").run()
    assert set(at.dataframe[0].value["gold"]) == {"borsch"}


def test_codemix_draws_linked_origin_and_name_scores(linked_warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_page(linked_warehouse, monkeypatch, "codemix", corpus=CORPUS, gold="worldcuisines")
    says_linked(at)
    rows = [row for row in vega_rows(at.get("vega_lite_chart")[0]) if "series" in row]
    assert sorted(row["bin"] for row in rows if row["series"] == "origin Jaccard") == [1, 7, 9]
    assert sorted(row["bin"] for row in rows if row["series"].startswith("dish-name match, ours")) == [
        1,
        7,
    ]  # task-1 dishes
    table = at.dataframe[0].value
    assert set(table["metric"]) == {"jaccard", "name_match"} and set(table["gold"]) == {"worldcuisines"}

    at = open_page(linked_warehouse, monkeypatch, "codemix", corpus=CORPUS)  # BORSch's gold: no name line
    assert set(at.dataframe[0].value["metric"]) == {"jaccard"}
    assert any("scored only against worldcuisines" in text for text in texts(at.caption))


def test_language_pull_shows_linked_answers_and_russia_vs_ukraine_by_borschs_gold(
    linked_warehouse: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(linked_warehouse, monkeypatch, "language_pull")
    says_linked(at)
    assert len(at.get("vega_lite_chart")) == 2
    pull = at.dataframe[0].value
    assert len(pull) == 30 and set(pull["gold"]) == {"borsch"}
    assert set(pull["answers"]) == {"linked: worldcuisines origin_vqa"}
    ru_ua = at.dataframe[1].value
    assert set(ru_ua["gold"]) == {"borsch"} and int(ru_ua["n_answers"].sum()) > 0
    assert any("whose borsch gold names both Russia and Ukraine" in text for text in texts(at.caption))

    at = open_page(linked_warehouse, monkeypatch, "language_pull", llangs="ru_formal,en", gold="worldcuisines")
    assert set(at.dataframe[0].value["lang"]) == {"ru_formal — Russian (formal)", "en — English"}  # app/fmt.py
    assert set(at.dataframe[0].value["gold"]) == {"worldcuisines"}


@pytest.mark.parametrize("page", ["language_pull", "cooccurrence", "codemix"])
def test_without_own_or_linked_answers_the_pages_say_so(
    unlinked_warehouse: Path, monkeypatch: pytest.MonkeyPatch, page: str
):
    at = open_page(unlinked_warehouse, monkeypatch, page, corpus=CORPUS)
    said = " ".join(texts(at.info))
    assert "No model answers are scored for" in said or "No answers about these BORSch dishes" in said
    assert "linked answers" not in said
    if page != "codemix":  # the pair counts need no answers
        assert not at.get("vega_lite_chart")
