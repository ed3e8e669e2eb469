"""An answer's language, per segment (`pipeline/extract/switching.py`): the one detector behind every answer language
the warehouse stores (core.answer_languages) and every page shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.extract.switching import _runs, _runs_by_character, analyse, analyse_many
from tests.helpers import query


def segments(text: str, prompt_lang: str) -> list[tuple[str, str]]:
    found = analyse(text, prompt_lang)
    return [(text[s.start : s.end], s.lang) for s in found.segments]


@pytest.mark.parametrize("prompt_lang", ["sc", "jv_krama", "jv_ngoko", "su_loma", "nan_spoken"])
@pytest.mark.parametrize(
    "text",
    [
        "The image shows a variety of colorful cupcakes with different flavors and toppings.",
        "The image shows a plate of fried potato slices",  # lingua's English confidence here is only about 0.6
        "No, I do not recognize the person in the image",
    ],
)
def test_a_long_english_answer_to_a_language_lingua_does_not_know_is_english(text: str, prompt_lang: str) -> None:
    """Sardinian, Javanese, Sundanese and romanised Min Nan are unknown to lingua; a sentence of 25 letters or more that
    lingua takes for English is a switch to English, even where function words are few (they were the only test)."""
    found = analyse(text, prompt_lang)
    assert (found.answer_lang, found.kind, found.switched) == ("en", "other", True)


@pytest.mark.parametrize(
    ("text", "prompt_lang"),
    [
        ("Puding", "jv_ngoko"),  # one word: too short to tell
        ("Hot dog", "su_loma"),
        ("Corned Beef Sandwich", "su_loma"),
        ("Panganan iki yaiku thepla, sing populer ing masakan Gujarat, India.", "jv_ngoko"),  # Javanese
        ("Asal kulinér ieu pasakan nyaéta Jepang", "su_loma"),  # Sundanese
        ("Custa coghina tìpica est una specialità de sa traditzione", "sc"),  # Sardinian
    ],
)
def test_what_lingua_does_not_take_for_english_stays_in_the_unknown_language(text: str, prompt_lang: str) -> None:
    found = analyse(text, prompt_lang)
    assert found.kind == "prompt" and found.answer_lang == found.prompt_lang != "en"


def test_letters_only_one_alphabet_has_settle_russian_and_ukrainian() -> None:
    assert analyse("Это блюдо из Грузии", "uk").answer_lang == "ru"  # э, ы
    assert analyse("Це страва з Грузії", "ru").answer_lang == "uk"  # ї, і
    assert analyse("Це страва з Грузії", "uk").kind == "prompt"


@pytest.mark.parametrize("prompt_lang", ["ru", "uk"])
@pytest.mark.parametrize("text", ["Борщ", "Вареники", "Салат олів'є", "Пельмени"])
def test_a_short_cyrillic_answer_no_letter_of_which_tells_russian_from_ukrainian_is_in_the_prompts_language(
    text: str, prompt_lang: str
) -> None:
    """lingua gives "Борщ" to Russian with confidence 1.0: a Ukrainian prompt answered "Борщ" is no switch. A
    letter only one of them has still decides ("олів'є" is Ukrainian whatever the prompt)."""
    found = analyse(text, prompt_lang)
    expected = "uk" if "і" in text else prompt_lang
    assert found.answer_lang == expected and found.switched == (expected != prompt_lang)


def test_a_long_cyrillic_answer_without_such_letters_is_lingua_s_to_judge() -> None:
    text = "Борщ варят на говяжьем бульоне и подают со сметаной"  # Russian, with no letter only Russian has
    assert analyse(text, "uk").answer_lang == "ru"


def test_a_short_place_name_in_the_prompts_language_is_no_switch() -> None:
    """'Italia' is Spanish in a Spanish answer: one word cannot tell Spanish from Italian."""
    assert analyse("Italia", "es").kind == "prompt"
    assert analyse("Vietnam.", "es").kind == "prompt"
    assert analyse("It is from Italy", "es").answer_lang == "en"


def test_a_mixed_answer_has_a_segment_per_language_with_offsets_into_the_answer() -> None:
    text = "Nasi goreng berasal dari Indonesia. The dish is popular in Malaysia too."
    assert segments(text, "id_formal") == [
        ("Nasi goreng berasal dari Indonesia", "id"),
        ("The dish is popular in Malaysia too", "en"),
    ]
    assert analyse(text, "id_formal").kind == "mixed"
    assert segments("이 음식은 한국 Korean food", "ko_formal") == [("이 음식은 한국", "ko"), ("Korean food", "en")]


@pytest.mark.parametrize("text", ["", None, "2", "🙅"])
def test_an_answer_without_letters_has_no_language(text: str | None) -> None:
    found = analyse(text, "en")
    assert (found.answer_lang, found.kind, found.switched, found.segments) == (None, "empty", None, ())


def test_a_batch_gives_each_answer_what_it_gets_alone(real_warehouse: Path) -> None:
    """`analyse_many` (the step's batch: lingua asked once per distinct segment) equals `analyse` one answer at a
    time, on real answers of every prompt language and task."""
    batch = query(
        real_warehouse,
        "SELECT response, lang FROM marts.language_switching WHERE response <> '' "
        "QUALIFY row_number() OVER (PARTITION BY lang ORDER BY hash(generation_id)) <= 12 ORDER BY lang, response",
    )
    assert len({lang for _, lang in batch}) >= 30 and len(batch) >= 300
    assert analyse_many(batch) == [analyse(text, lang) for text, lang in batch]


@given(st.text(alphabet="aZé .!?\n,1-'\t", max_size=40))
def test_an_ascii_answer_is_cut_into_the_runs_the_character_loop_finds(text: str) -> None:
    """ASCII answers take a regular expression instead of the loop over characters: the same runs, cut at the
    same sentence ends (é: a text that is not ASCII, for the loop itself)."""
    assert _runs(text) == _runs_by_character(text)
    if text.isascii():
        assert all(script == "LATIN" for *_, script in _runs(text))
