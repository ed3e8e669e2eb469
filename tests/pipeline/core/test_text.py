"""Name forms: display (for people) and norm (for matching)."""

from hypothesis import given
from hypothesis import strategies as st

from pipeline.core.text import display_name, norm_name


def test_capitals_become_sentence_case() -> None:
    assert display_name("ПЕРЕЦ ФАРШИРОВАННЫЙ") == "Перец фаршированный"
    assert display_name("ФИШ-ЭНД-ЧИПС") == "Фиш-энд-чипс"
    assert display_name("Chicken Kiev") == "Chicken Kiev"


def test_ukrainian_apostrophes() -> None:
    assert display_name("КУЛЕБ'ЯКА") == "Кулеб’яка"
    assert norm_name("Кулебʼяка") == norm_name("КУЛЕБ'ЯКА") == norm_name("кулеб’яка") == "кулеб'яка"


def test_norm_folds_case_yo_spaces_and_edge_punctuation() -> None:
    assert norm_name("  «Селёдка   под шубой». ") == "селедка под шубой"


@given(st.text())
def test_norm_is_idempotent(text: str) -> None:
    assert norm_name(norm_name(text)) == norm_name(text)
