"""Answer extraction, the declared step between generation and scoring: a task names its extractor
here by string, so a parser change re-extracts without any model run."""

from __future__ import annotations

from collections.abc import Callable

from pipeline.extract.countries import EXTRACTOR as COUNTRIES_EXTRACTOR
from pipeline.extract.countries import Extraction, extract_countries

EXTRACTORS: dict[str, tuple[str, Callable[[str | None, str], Extraction]]] = {
    # task declaration name -> (name@version stored with each extraction, function)
    "countries": (COUNTRIES_EXTRACTOR, extract_countries),
}


def get_extractor(name: str) -> tuple[str, Callable[[str | None, str], Extraction]]:
    if name not in EXTRACTORS:
        raise KeyError(f"unknown extractor {name!r}; known: {', '.join(sorted(EXTRACTORS))}")
    return EXTRACTORS[name]
