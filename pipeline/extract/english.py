"""English country names as datasets write them ("England", "United States"), resolved through the extractor's
gazetteer (the one source of names), so ingestion and extraction never disagree on a name."""

from __future__ import annotations

from pipeline.core.text import fold_phrase
from pipeline.extract import aliases
from pipeline.extract.gazetteer import entries_for, lookup


class UnknownCountry(ValueError):
    pass


def english_names() -> dict[str, str]:
    """Folded English country names and aliases -> alpha-2, from the extractor's gazetteer (the one
    source of names), for callers that match names their own way (CultureMix's squashed labels)."""
    return {
        entry.surface: entry.country
        for entry in entries_for("en")
        if entry.country and entry.kind in ("name", "alias", "subnational") and entry.region is None
    }


# Kept for callers written before the names module (pipeline/datasets/culturemix.py).
_english_index = english_names


def resolve_english(name: str) -> str | None:
    """Alpha-2 code for an English country name; None for a known non-country ("Global").

    Names and aliases come from the extractor's gazetteer (`pipeline.extract.aliases`, CLDR and
    pycountry, one fold), so ingestion and extraction never disagree on a name. Raises
    UnknownCountry for anything else, so a new spelling is fixed there, not guessed here."""
    written = " ".join(name.split())
    if fold_phrase(written) in {fold_phrase(n) for n in aliases.NOT_COUNTRIES["en"]}:
        return None
    for candidate in (written, written.replace("-", " "), written.title()):
        entry = lookup(candidate, "en")
        if entry is not None and entry.country and entry.kind in ("name", "alias", "subnational"):
            return entry.country
    raise UnknownCountry(f"unknown country name {name!r}")
