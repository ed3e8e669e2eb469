"""Russian and Ukrainian cue words are matched by lemma (issue 49): every form pymorphy3 gives a spread verb,
participle or adjective is a spread cue, so an origin answer that lists where the dish later spread keeps only
the origin, whatever person, number, gender, aspect or form the cue is written in."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core.morph import analyzer
from pipeline.extract import cue_words
from pipeline.extract.countries import extract_countries
from pipeline.extract.cue_words import cue_forms


def _forms(lang: str, lemma: str, grammeme: str) -> list[str]:
    parse = next(p for p in analyzer(lang).parse(lemma) if p.normal_form == lemma)
    return sorted({form.word for form in parse.lexeme if grammeme in form.tag})


@pytest.mark.parametrize(
    ("lang", "template", "lemma", "grammeme", "origin"),
    [
        ("ru", "Борщ происходит с Украины. Позже он {} в России, Польше и Беларуси.", "распространиться", "past", "UA"),
        ("ru", "Борщ происходит с Украины, позже {} в России, Польше и Беларуси.", "распространиться", "GRND", "UA"),
        ("ru", "Блюдо родом из Грузии, {} также в России и Армении.", "распространить", "PRTS", "GE"),
        ("uk", "Борщ походить з України. Згодом він {} в Росії, Польщі та Білорусі.", "поширитися", "past", "UA"),
        ("uk", "Борщ походить з України; згодом страва {} у Росії та Польщі.", "поширюватися", "pres", "UA"),
        ("uk", "Страва походить із Грузії, {} також у Росії та Вірменії.", "поширений", "nomn", "GE"),
        ("uk", "Страва походить із Грузії, {} також у Росії та Вірменії.", "популярний", "nomn", "GE"),
    ],
)
def test_every_form_of_a_spread_cue_keeps_only_the_origin(
    lang: str, template: str, lemma: str, grammeme: str, origin: str
) -> None:
    forms = _forms(lang, lemma, grammeme)
    assert forms
    wrong = {form: extract_countries(template.format(form), lang).countries for form in forms}
    assert {form: found for form, found in wrong.items() if found != (origin,)} == {}


def test_ukrainian_gerund_of_spreading_is_a_cue() -> None:
    answer = "Борщ походить з України, поширившись згодом у Росії та Польщі."
    assert extract_countries(answer, "uk").countries == ("UA",)


def test_forms_shared_with_the_copula_or_another_noun_are_no_cue() -> None:
    assert {"едят", "ест", "подаётся", "подается", "поширилися"} <= cue_forms("spread")
    assert "есть" not in cue_forms("spread")  # also "быть": "there is"
    assert "типов" not in cue_forms("claim")  # the genitive plural of "тип", not "типовой"
    assert {"типовой", "традиционное", "традиційна"} <= cue_forms("claim")


def test_the_forms_are_read_back_from_the_derived_file_cache_as_pymorphy3_gives_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that extracts reads the forms from the cache (a third of a CPU-second less each time): a file per
    kind, and what it holds is what reading pymorphy3's lexemes gives."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("DISH_ATLAS_PATTERN_CACHE", raising=False)
    cue_forms.cache_clear()
    try:
        built = {kind: cue_forms(kind) for kind in cue_words.CUE_LEMMAS}
        folder = tmp_path / "cache" / "dish-atlas" / "cache" / "cue-forms"
        assert sorted(p.name.split("@")[0] for p in folder.glob("*.pickle")) == sorted(cue_words.CUE_LEMMAS)
        cue_forms.cache_clear()
        for kind, forms in built.items():
            assert cue_forms(kind) == forms == cue_words._lexeme_forms(kind)
    finally:
        cue_forms.cache_clear()


@pytest.mark.parametrize(
    ("answer", "lang", "origin"),
    [
        ("Borscht comes from Ukraine; it later spreads to Russia, Poland and Belarus.", "en", "UA"),
        ("Borscht comes from Ukraine and has been spreading to Russia, Poland and Belarus.", "en", "UA"),
        ("Borscht originated in Ukraine and later travelled to Russia and Poland.", "en", "UA"),
        ("Borscht originated in Ukraine; it is also enjoyed across Russia and Poland.", "en", "UA"),
        ("El borscht es originario de Ucrania y se extendió a Rusia y Polonia.", "es", "UA"),
        ("Le bortsch est originaire d'Ukraine et s'est propagé en Russie et en Pologne.", "fr", "UA"),
        ("Il borscht proviene dall'Ucraina e si diffonde in Russia e Polonia.", "it", "UA"),
    ],
)
def test_verbs_of_spreading_and_coming_from_in_other_languages_match_by_stem(
    answer: str, lang: str, origin: str
) -> None:
    assert extract_countries(answer, lang).countries == (origin,)


def test_a_word_that_only_begins_like_a_stemmed_verb_is_no_cue() -> None:
    from pipeline.extract.cue_words import stem_agrees

    assert stem_agrees("spreading to") and stem_agrees("came from") and stem_agrees("propagée en")
    assert not stem_agrees("spreadsheet to")
    assert not stem_agrees("comedy from")
