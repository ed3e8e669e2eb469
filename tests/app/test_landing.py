"""A first visit lands on model answers, and no empty state sends the reader in a circle or back to
the command they just ran (AppTest on the real demo warehouse: WorldCuisines has 12 models'
answers, BORSch none)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import REPO, shown

MAIN = REPO / "app" / "main.py"
TIMEOUT = 60
# the pages about model answers, which once told a BORSch reader to run `make demo`
ANSWER_PAGES = ("map", "confusion", "language_switching", "method_audit")
# the pages that show a dataset without answers of its own the linked answers of another (app/linked.py)
LINKED_PAGES = ("language_pull", "cooccurrence")


def texts(at: AppTest) -> list[str]:
    return [shown(str(element.value)) for kind in (at.info, at.warning, at.markdown, at.caption) for element in kind]


def visit(page: str | None = None, **params: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    if page:
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_first_visit_lands_on_the_dataset_with_answers(warehouse_path: Path):
    at = visit()
    assert at.sidebar.selectbox(key="url_dataset").value == "worldcuisines"
    assert at.query_params.get("dataset") == "worldcuisines"
    assert any(header.value == "Leaderboard" for header in at.subheader)
    models = {metric.label: metric.value for metric in at.metric}["Models"]
    assert int(models) == 12


@pytest.mark.parametrize("page", ANSWER_PAGES)
def test_a_dataset_without_answers_points_to_the_one_with_them(warehouse_path: Path, page: str):
    at = visit(page, dataset="borsch")
    shown_text = " ".join(texts(at))
    assert "No model answers are scored for" in shown_text
    assert "make demo" not in shown_text  # the command the reader just ran
    switch = [button for button in at.button if button.label.startswith("worldcuisines:")]
    assert len(switch) == 1 and "12 models" in switch[0].label
    switch[0].click().run()
    assert not at.exception
    assert at.query_params.get("dataset") == "worldcuisines"
    assert "No model answers are scored for" not in " ".join(texts(at))


@pytest.mark.parametrize("page", LINKED_PAGES)
def test_a_dataset_without_answers_of_its_own_shows_linked_answers_labelled(warehouse_path: Path, page: str):
    at = visit(page, dataset="borsch")
    shown_text = " ".join(texts(at))
    assert "borsch has no model answers of its own yet" in shown_text and "linked answers" in shown_text
    assert "make demo" not in shown_text
    assert at.get("vega_lite_chart")


def test_code_mixing_never_sends_the_reader_in_a_circle(warehouse_path: Path):
    """Its pairs are BORSch dishes: from WorldCuisines the page points to BORSch, and BORSch draws their
    scores (with the linked answers while it has none of its own) instead of pointing back."""
    at = visit("codemix", dataset="worldcuisines")
    shown_text = " ".join(texts(at))
    assert "The pairs are BORSch dishes" in shown_text and "make demo" not in shown_text
    assert len(at.get("vega_lite_chart")) == 1  # the pair counts draw; no scores of WorldCuisines answers
    next(button for button in at.button if button.label == "Show the BORSch answers").click().run()
    assert not at.exception
    assert at.query_params.get("dataset") == "borsch"
    shown_text = " ".join(texts(at))
    assert "The pairs are BORSch dishes" not in shown_text and "pick the" not in shown_text.lower()
    assert not [button for button in at.button if "worldcuisines" in button.label.lower()]
    assert len(at.get("vega_lite_chart")) == 2  # the scores per bin, then the pair counts
