"""Dish names page, and the Dish page's view of one dish across datasets (real demo warehouse)."""

from __future__ import annotations

import pytest

from tests.app.conftest import open_page
from tests.helpers import shown

pytestmark = pytest.mark.usefixtures("warehouse_path")

PAGE = "views/dish_names.py"
DISH_PAGE = "views/dish.py"


def texts(elements) -> list[str]:
    return [str(element.value) for element in elements]


def test_accuracy_of_twelve_models_under_each_rule() -> None:
    at = open_page(PAGE)
    assert "Dish names" in texts(at.title)
    assert at.selectbox(key="url_rule").value == "lev1"
    assert at.get("vega_lite_chart"), "no model x language heatmap"
    rules = next(frame.value for frame in at.dataframe if "paper" in frame.value.columns)
    assert len(rules) == 12
    assert {"exact", "lev1", "stem", "similarity", "paper"} <= set(rules.columns)
    assert rules.iloc[0]["model"] == "gpt-4o-2024-08-06"  # best first under BORSch's rule
    assert (rules["lev1"] >= rules["exact"]).all()
    assert any("real answers of 12 models" in text for text in texts(at.caption))


def test_rule_switch_is_in_the_link() -> None:
    at = open_page(PAGE, rule="paper")
    assert at.selectbox(key="url_rule").value == "paper"
    assert any("gold string occurs in the answer" in text for text in texts(at.caption))
    at.selectbox(key="url_rule").select("stem").run()
    assert not at.exception
    assert at.query_params.get("rule") == "stem"


def test_most_confused_dishes_with_photos_and_their_answers() -> None:
    at = open_page(PAGE)
    confusions = next(frame.value for frame in at.dataframe if "named_dish_key" in frame.value.columns)
    assert len(confusions) == 15
    assert (confusions["dish_key"] != confusions["named_dish_key"]).all()
    assert confusions["n"].is_monotonic_decreasing
    assert at.get("image"), "no dish photos (st.image with the Wikimedia URL)"
    pair = at.selectbox(key="url_pair")
    true_key, named_key = pair.value.split("|")
    answers = next(frame.value for frame in at.dataframe if "prediction" in frame.value.columns)
    assert len(answers) == confusions.iloc[0]["n"]
    assert set(answers["named_dish_key"]) == {named_key} and set(answers["dish_key"]) == {true_key}
    assert (answers["lev1"] == 0).all()
    top = confusions.iloc[0]
    said = f"**{int(top['n']):,}** answers by **{int(top['n_models']):,}** models"
    assert said in texts(at.markdown)  # whole counts: "458 answers", never "458.0"


def test_sidebar_models_and_languages_apply() -> None:
    at = open_page(PAGE, models="gpt-4o-2024-08-06", langs="en,ru_formal")
    rules = next(frame.value for frame in at.dataframe if "paper" in frame.value.columns)
    assert rules["model"].tolist() == ["gpt-4o-2024-08-06"]
    answers = next(frame.value for frame in at.dataframe if "prediction" in frame.value.columns)
    assert set(answers["model"]) == {"gpt-4o-2024-08-06"}
    assert set(answers["lang"]) <= {"en — English", "ru_formal — Russian (formal)"}  # codes with their names


def test_dataset_without_name_answers_says_so_and_offers_the_one_with_them() -> None:
    at = open_page(PAGE, dataset="borsch")
    assert any("No dish-name answers are scored for borsch" in text for text in texts(at.info))
    assert not any("make demo" in text for text in texts(at.info))  # not the command the user just ran
    switch = next(button for button in at.button if button.label == "Show worldcuisines")
    switch.click().run()
    assert at.query_params.get("dataset") == "worldcuisines"
    assert not at.info and any("paper" in frame.value.columns for frame in at.dataframe)


def test_a_borsch_dish_shows_the_linked_worldcuisines_answers_against_its_own_gold() -> None:
    at = open_page(DISH_PAGE, dataset="borsch", dish="borsch:ru:785")  # Деруны <-> Potato pancake
    links = next(frame.value for frame in at.dataframe if "linked_dish_key" in frame.value.columns)
    assert "worldcuisines" in set(links["linked_dataset"]) and {"method", "score"} <= set(links.columns)
    assert any("disagree" in text and "worldcuisines" in text for text in texts(at.warning))
    assert any("real answers to questions about the linked record" in text for text in texts(at.info))
    summary = next(frame.value for frame in at.dataframe if "accuracy vs borsch gold" in frame.value.columns)
    assert len(summary) == 12
    answers = next(frame.value for frame in at.dataframe if "answer_gold" in frame.value.columns)
    assert len(answers) == 12 and set(answers["lang"]) == {"en"}  # English prompts by default
    assert set(answers["dataset"]) == {"worldcuisines"} and set(answers["dish_gold"]) == {"BY,RU,UA"}


def test_borscht_says_why_no_model_answered_about_it() -> None:
    """No question about borscht was put to any model (WorldCuisines' Borscht is in none of the answered
    items): the page says so, shows the real answers that called another dish borscht or mentioned it,
    and the nearest dishes that were asked about, one click away."""
    at = open_page(DISH_PAGE, dataset="borsch", dish="borsch:ru:679")
    links = next(frame.value for frame in at.dataframe if "linked_dish_key" in frame.value.columns)
    assert "worldcuisines:en:1191" in set(links["linked_dish_key"])  # Borscht
    [warning] = [shown(text) for text in texts(at.warning) if "No model was asked about this dish" in text]
    assert "worldcuisines:en:1191" in warning and "borsch:uk:422" in warning
    nearest = next(frame.value for frame in at.dataframe if "relation" in frame.value.columns)
    assert "Зелений борщ" in set(nearest["display_name"]) and (nearest["n_answers"] > 0).all()
    assert "/dish?dataset=borsch&dish=borsch:uk:668" in set(nearest["page"])
    called = {metric.label: metric.value for metric in at.metric}
    assert int(called["Called it, shown another dish"]) > 100  # "Borscht" for a photo of Ukha, ...
    assert int(called["Mentioned it, asked about another dish"]) > 10
    per_dish = next(frame.value for frame in at.dataframe if "named_as" in frame.value.columns)
    assert per_dish["asked_about"].iloc[0] == "Ukha"
