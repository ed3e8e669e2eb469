"""BORSch's dish-name rule as published (Appendix I, §4.2): the answer *contains* the dish name within one
edit, beside ours (`name_lev1`: a whole candidate within one edit)."""

from __future__ import annotations

import pytest

from pipeline.score.metrics import get_metric
from pipeline.score.names import AcceptedName, NameAnswer, NameGold, name_contains_lev1, name_lev1
from pipeline.tasks import get_task

GOLD = NameGold((AcceptedName("ДАКОС", "ru"), AcceptedName("Dakos", "en")))


@pytest.mark.parametrize(
    ("text", "candidates", "contains", "whole"),
    [
        ("Это блюдо называется дакос.", ("дакос",), 1.0, 1.0),
        ("Это дакоз.", ("дакоз",), 1.0, 1.0),  # one edit
        ("Критский дакосхлеб с помидорами.", ("критский дакосхлеб",), 1.0, 0.0),  # inside a longer candidate
        ("Возможно, это Dakos salad.", ("dakos salad",), 1.0, 0.0),
        ("Это брускетта.", ("брускетта",), 0.0, 0.0),
        (None, (), 0.0, 0.0),
    ],
)
def test_contains_within_one_edit(text: str | None, candidates: tuple, contains: float, whole: float) -> None:
    answer = NameAnswer(text, candidates, "ru")
    assert name_contains_lev1(answer, GOLD) == contains
    assert name_lev1(answer, GOLD) == whole


def test_the_dish_name_task_declares_it() -> None:
    assert "name_contains_lev1" in get_task("borsch.dish_name_vqa").metrics
    assert get_metric("name_contains_lev1") is name_contains_lev1
