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
from warehouse.registry import Registry


@dataclass(frozen=True)
class Extracted:
    status: str  # ok | no_country | refusal | empty; choices: ok | several | unparsed | refusal | empty
    countries: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    spans: tuple[Span, ...] = ()
    dish_names: tuple[str, ...] = ()
    choices: tuple[int, ...] = ()  # options named by a multiple-choice answer, in order of mention
    mentioned: tuple[str, ...] = ()  # countries: every country named (BORSch's rule, §4.1), beside ours


Extract = Callable[[str | None, str], Extracted]
# task declaration name -> (name@version stored with each extraction, function)
EXTRACTORS: Registry[tuple[str, Extract]] = Registry("extractor")


def extractor(name: str, version: str) -> Callable[[Extract], Extract]:
    """Register `func(text, lang) -> Extracted` as the extractor `name`; `version` (name@N) is stored
    with every extraction, so a bumped version re-extracts the answers."""

    def register(func: Extract) -> Extract:
        EXTRACTORS.add(name, (version, func))
        return func

    return register


@extractor("countries", COUNTRIES_EXTRACTOR)
def _countries(text: str | None, lang: str, reading: str = "origin") -> Extracted:
    """`reading`: what the question asked (origin | served), as the task declares it per prompt variant."""
    result = extract_countries(text, lang, reading)
    return Extracted(result.status, result.countries, result.regions, result.spans, mentioned=result.mentioned)


@extractor("dish_names", DISH_NAMES_EXTRACTOR)
def _dish_names(text: str | None, lang: str) -> Extracted:
    result = extract_dish_names(text, lang)
    return Extracted(result.status, dish_names=result.names)


@extractor("none", "none@1")
def _none(text: str | None, lang: str) -> Extracted:
    """Free text kept as it is (descriptions): only whether there was an answer."""
    return Extracted("ok" if text and text.strip() else "empty")


@extractor("choice", CHOICE_EXTRACTOR)
def _choice(text: str | None, lang: str, options: tuple[str, ...] = ()) -> Extracted:
    """The option a multiple-choice answer picks (`options`: the option texts, option 1 first);
    letters read as the ZNO exam's Cyrillic А-Д for ru/uk prompts."""
    lettering = "cyrillic" if lang.split("_")[0] in ("uk", "ru") else "latin"
    result = extract_choice(text, options, lettering=lettering)
    return Extracted(result.status, choices=result.choices)


def get_extractor(name: str) -> tuple[str, Extract]:
    """(name@version, function) of the extractor `name`; an unknown name lists the known ones."""
    return EXTRACTORS.get(name)
