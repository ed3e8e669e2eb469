"""The Method audit and Language switching pages, and the scoring-method switch on the leaderboard and
the map, run headless with AppTest against the real demo warehouse."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, unquote

import duckdb

from tests.app.conftest import open_page

AUDIT = "views/method_audit.py"
SWITCHING = "views/language_switching.py"


def test_the_audit_headline_explains_cantonese_from_the_data(warehouse_path: Path):
    at = open_page(AUDIT, 120)
    headlines = [str(info.value).replace("\\", "") for info in at.info]  # shown through safe.literal
    cantonese = [h for h in headlines if h.startswith("**yue — Cantonese** is undercounted by about")]
    assert cantonese, headlines
    assert "because most gold strings name another country" in cantonese[0]
    assert "of 500 gold strings of this language name another country" in cantonese[0]


def test_the_audit_table_puts_paper_and_ours_side_by_side_largest_gap_first(warehouse_path: Path):
    at = open_page(AUDIT, 120)
    table = at.dataframe[0].value
    assert {"model", "lang", "paper %", "ours %", "gap (points)", "commonest reason"} <= set(table.columns)
    assert len(table) == 12 * 30
    gaps = table["gap (points)"].abs().tolist()
    assert gaps == sorted(gaps, reverse=True)
    assert ((table["ours %"] - table["paper %"] - table["gap (points)"]).abs() < 1e-9).all()
    # The largest gap's answers are listed with a reason for each.
    reasons = at.dataframe[1].value
    assert {"direction", "reason", "answers", "why"} <= set(reasons.columns)
    answers = at.dataframe[2].value
    assert len(answers) == min(500, int(reasons["answers"].sum()))
    assert answers["reason"].notna().all()


def test_the_audit_answers_link_each_dish_to_its_page(warehouse_path: Path):
    """Every answer scored differently names its dish, linked to the Dish page of that dish (the dish
    its item asks about, read here straight from the scored answers)."""
    at = open_page(AUDIT, 120)
    top = at.dataframe[0].value.iloc[0]
    answers = at.dataframe[2].value
    assert answers.columns[0] == "dish" and answers["dish"].notna().all()
    with duckdb.connect(str(warehouse_path), read_only=True) as con:
        asked = dict(
            con.execute(
                """SELECT item_id, dish_key FROM marts.origin_scores
                   WHERE dataset = 'worldcuisines' AND model = ? AND lang = ?""",
                [top["model"], top["lang"].split(" ")[0]],
            ).fetchall()
        )
        names = dict(con.execute("SELECT dish_key, display_name FROM marts.dishes").fetchall())
    for url, item_id in zip(answers["dish"], answers["item_id"], strict=True):
        address, text = url.split("#", 1)
        page, query = address.split("?", 1)
        params = dict(parse_qsl(query))
        assert page == "dish" and params["dataset"] == "worldcuisines"
        assert params["dish"] == asked[str(item_id)] and unquote(text) == names[params["dish"]]


def test_the_audit_picks_a_reason(warehouse_path: Path):
    at = open_page(AUDIT, 120)
    reasons = at.dataframe[1].value["reason"].tolist()
    at.selectbox(key="audit_reason").set_value(reasons[0]).run()
    assert set(at.dataframe[2].value["reason"]) == {reasons[0]}


def test_the_scoring_method_switch_changes_the_leaderboard(warehouse_path: Path):
    ours = open_page("views/overview.py", 120, task="origin_vqa")
    paper = open_page("views/overview.py", 120, task="origin_vqa", method="paper")
    assert paper.sidebar.selectbox(key="url_method").value == "paper"
    assert ours.sidebar.selectbox(key="url_method").value == "atlas"

    def accuracy(at) -> dict:
        table = at.dataframe[0].value
        return dict(zip(table["model"], table["accuracy"], strict=True))

    assert accuracy(ours) != accuracy(paper)
    assert any("The paper's rule" in str(c.value) for c in paper.caption)


def test_the_scoring_method_switch_changes_the_map(warehouse_path: Path):
    ours = open_page("views/map.py", 120, view="recall")
    paper = open_page("views/map.py", 120, view="recall", method="paper")
    assert paper.sidebar.selectbox(key="url_method").value == "paper"
    assert not paper.exception and not ours.exception


def test_language_switching_page_shows_shares_targets_accuracy_and_examples(warehouse_path: Path):
    at = open_page(SWITCHING, 120)
    shares = at.dataframe[0].value
    assert shares.shape[0] == 12 and shares.shape[1] >= 30  # models x prompt languages
    assert ((shares >= 0) & (shares <= 1)).all().all()
    table = at.dataframe[1].value
    assert {"in prompt language", "switched to (answers)", "accuracy, switched", "accuracy, not switched"} <= set(
        table.columns
    )
    at.selectbox(key="switching_lang").set_value("ja_formal").run()
    examples = at.dataframe[2].value
    assert examples["switched"].any()
    assert set(examples.columns) >= {"item", "segment", "language", "switched"}
