"""Answer extraction, the declared step between generation and scoring: a task names its extractor
here by string, so a parser change re-extracts without any model run. Every extractor returns the
same record, `Extracted`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pipeline.extract.choice import EXTRACTOR as CHOICE_EXTRACTOR
from pipeline.extract.choice import extract_choice
from pipeline.extract.countries import EXTRACTOR as COUNTRIES_EXTRACTOR
from pipeline.extract.countries import Span, extract_countries
from pipeline.extract.dish_names import EXTRACTOR as DISH_NAMES_EXTRACTOR
from pipeline.extract.dish_names import extract_dish_names


@dataclass(frozen=True)
class Extracted:
    status: str  # ok | no_country | refusal | empty; choices: ok | several | unparsed | refusal | empty
    countries: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    spans: tuple[Span, ...] = ()
    dish_names: tuple[str, ...] = ()
    choices: tuple[int, ...] = ()  # options named by a multiple-choice answer, in order of mention


def _countries(text: str | None, lang: str) -> Extracted:
    result = extract_countries(text, lang)
    return Extracted(result.status, result.countries, result.regions, result.spans)


def _dish_names(text: str | None, lang: str) -> Extracted:
    result = extract_dish_names(text, lang)
    return Extracted(result.status, dish_names=result.names)


def _choice(text: str | None, lang: str, options: tuple[str, ...] = ()) -> Extracted:
    """The option a multiple-choice answer picks; letters read as ZNO Cyrillic (А-Д) for ru/uk prompts."""
    lettering = "cyrillic" if lang.split("_")[0] in ("uk", "ru") else "latin"
    result = extract_choice(text, options, lettering=lettering)
    return Extracted(result.status, choices=result.choices)


def _none(text: str | None, lang: str) -> Extracted:
    """Free text kept as it is (descriptions): only whether there was an answer."""
    return Extracted("ok" if text and text.strip() else "empty")


EXTRACTORS: dict[str, tuple[str, Callable[[str | None, str], Extracted]]] = {
    # task declaration name -> (name@version stored with each extraction, function)
    "countries": (COUNTRIES_EXTRACTOR, _countries),
    "dish_names": (DISH_NAMES_EXTRACTOR, _dish_names),
    "none": ("none@1", _none),
    "choice": (CHOICE_EXTRACTOR, _choice),
}


def get_extractor(name: str) -> tuple[str, Callable[[str | None, str], Extracted]]:
    if name not in EXTRACTORS:
        raise KeyError(f"unknown extractor {name!r}; known: {', '.join(sorted(EXTRACTORS))}")
    return EXTRACTORS[name]
