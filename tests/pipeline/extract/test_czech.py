"""Czech answers decline the country; the rule-based forms of pipeline.extract.czech find it."""

from __future__ import annotations

import pytest

from pipeline.extract.countries import extract_countries
from pipeline.extract.czech import adjective_forms, forms


def test_case_forms_of_the_declension_patterns_of_country_names() -> None:
    assert {"číny", "číně", "čínu", "čínou"} <= forms("čína")
    assert {"americe", "ameriky"} <= forms("amerika")  # k -> c before -e
    assert {"keni", "keňou"} <= forms("keňa")  # a soft stem
    assert {"itálii", "itálií"} <= forms("itálie")
    assert {"japonska", "japonsku", "japonskem"} <= forms("japonsko")
    assert {"vietnamu", "vietnamem"} <= forms("vietnam")
    assert {"velké británie", "velké británii", "velkou británií"} <= forms("velká británie")
    assert {"nového zélandu", "novém zélandu"} <= forms("nový zéland")
    assert forms("peru") == {"peru"} and forms("spojené státy") == {"spojené státy"}


def test_adjectives_in_every_singular_form() -> None:
    assert {"český", "česká", "českého", "českém", "českou"} <= adjective_forms("česk")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Tento pokrm byl zpopularizován v Japonsku.", ["JP"]),
        ("Tento pokrm je spojen s Čínou.", ["CN"]),
        ("Pochází z Mexika.", ["MX"]),
        ("V Itálii", ["IT"]),
        ("Velká Británie", ["GB"]),
        ("Ve Spojených státech", ["US"]),
        ("V Čechách", ["CZ"]),
        ("Česká země", ["CZ"]),
        ("V českém kulinářském původu", ["CZ"]),
        ("Tento pokrm je spojen s indickou kuchyní.", ["IN"]),
        ("Nějaká země", []),
    ],
)
def test_czech_answers(answer: str, expected: list[str]) -> None:
    assert list(extract_countries(answer, "cs").countries) == expected
