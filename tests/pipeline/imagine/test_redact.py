"""BORSch §5: the dish's name is redacted from its description before translation and drawing."""

from __future__ import annotations

import pytest

from pipeline.imagine.redact import REDACTED, redact


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        (
            "Борщ — густой суп. Борща налили, борщем пахнет.",
            ["БОРЩ"],
            "[DISH] — густой суп. [DISH] налили, [DISH] пахнет.",
        ),
        ("Дакос — критский сухарь; дакоса много.", ["ДАКОС", "Dakos"], "[DISH] — критский сухарь; [DISH] много."),
        ("Вареники з картоплею, вареник ліплять.", ["ВАРЕНИКИ"], "[DISH] з картоплею, [DISH] ліплять."),
        ("Салат олів'є з ковбасою.", ["САЛАТ ОЛІВ'Є"], "[DISH] з ковбасою."),
        ("A crisp barley rusk with tomato.", ["ДАКОС", "Dakos"], "A crisp barley rusk with tomato."),
    ],
)
def test_the_name_is_redacted_in_any_case_form(text: str, names: list[str], expected: str) -> None:
    assert redact(text, names) == expected


def test_other_words_and_an_empty_name_list_are_left_alone() -> None:
    text = "Суп из свёклы, подаётся со сметаной."
    assert redact(text, []) == text
    assert redact(text, ["БОРЩ"]) == text and REDACTED not in redact(text, ["", " "])
