"""Pattern building: inflected forms, folding and literal variants."""

from __future__ import annotations

from pipeline.corpus.patterns import forms, variants


def test_forms_cover_the_declension_of_ukrainian_and_russian_names() -> None:
    assert {"борщ", "борщу", "борщем", "борщі"} <= forms("БОРЩ", "uk")
    assert {"вареники", "вареників", "варениками"} <= forms("ВАРЕНИКИ", "uk")
    assert {"плов", "плова", "пловом"} <= forms("ПЛОВ", "ru")


def test_forms_fold_case_and_yo() -> None:
    assert "щетка" in forms("ЩЁТКА", "ru")
    assert forms("Pad Thai", "en") == {"pad thai"}


def test_apostrophes_and_dashes_are_searched_in_their_typographic_forms() -> None:
    assert variants("кулеб'яка") == sorted({"кулеб'яка", "кулеб’яка", "кулебʼяка"})
    assert set(variants("чіг-кефте")) == {"чіг-кефте", "чіг–кефте", "чіг—кефте"}
    assert variants("борщ") == ["борщ"]
