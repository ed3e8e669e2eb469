"""ISO 3166-1 countries: validating codes and resolving the English country names datasets use.

The extractor (free-text answers in many languages) is a separate, larger instrument; this module
only covers what ingestion needs: datasets that write codes, and WorldCuisines' English gold names.
"""

from __future__ import annotations

import pycountry
from babel import Locale

POST_SOVIET = frozenset({"AM", "AZ", "BY", "EE", "GE", "KG", "KZ", "LT", "LV", "MD", "RU", "TJ", "TM", "UA", "UZ"})

# The UK's nations: ISO 3166-2 subdivisions of GB. Kept as regions that resolve to GB, so a
# Scotland gold is not credited to an answer naming England at nation level (metric
# `uk_nation_match`), while country-level metrics see GB for both.
UK_NATIONS = {"GB-ENG": "England", "GB-SCT": "Scotland", "GB-WLS": "Wales", "GB-NIR": "Northern Ireland"}


def resolve_uk_nation(name: str) -> str | None:
    """The ISO 3166-2 code of a UK nation named in English ("Scotland" -> GB-SCT), else None."""
    written = " ".join(name.split()).casefold()
    return next((code for code, nation in UK_NATIONS.items() if nation.casefold() == written), None)


def nation_country(code: str) -> str:
    """The country a code resolves to: GB for a UK nation (GB-SCT), the code itself otherwise."""
    return "GB" if code in UK_NATIONS else code


class UnknownCountry(ValueError):
    pass


def is_iso_alpha2(code: str) -> bool:
    return len(code) == 2 and code.isalpha() and code.isupper() and pycountry.countries.get(alpha_2=code) is not None


def english_names() -> dict[str, str]:
    """Folded English country names and aliases -> alpha-2, from the extractor's gazetteer (the one
    source of names), for callers that match names their own way (CultureMix's squashed labels)."""
    from pipeline.extract.gazetteer import entries_for

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
    from pipeline.extract import aliases
    from pipeline.extract.gazetteer import lookup
    from pipeline.text import fold_phrase

    written = " ".join(name.split())
    if fold_phrase(written) in {fold_phrase(n) for n in aliases.NOT_COUNTRIES["en"]}:
        return None
    for candidate in (written, written.replace("-", " "), written.title()):
        entry = lookup(candidate, "en")
        if entry is not None and entry.country and entry.kind in ("name", "alias", "subnational"):
            return entry.country
    raise UnknownCountry(f"unknown country name {name!r}")


def country_table() -> list[dict]:
    """Reference rows for core.countries: codes, English/Russian/Ukrainian CLDR names, Post-Soviet flag."""
    en, ru, uk = (Locale(code).territories for code in ("en", "ru", "uk"))
    rows = []
    for country in pycountry.countries:
        code = country.alpha_2
        rows.append(
            {
                "country": code,
                "alpha3": country.alpha_3,
                "numeric_code": country.numeric,
                "name_en": en.get(code, getattr(country, "common_name", country.name)),
                "name_ru": ru.get(code),
                "name_uk": uk.get(code),
                "post_soviet": code in POST_SOVIET,
            }
        )
    return rows


# Majority languages that CLDR files under another code or gives no official status.
SPOKEN_ALSO = {
    "yue": ("HK",),  # Cantonese: the majority language of Hong Kong
    "zh": ("TW",),  # Mandarin is official in Taiwan (CLDR lists it as zh_Hant)
    "nan": ("TW",),  # Hokkien (Taiwanese): the most common home language of Taiwan
}


def language_countries() -> list[dict]:
    """(CLDR language, country) pairs: where a prompt language is spoken, for the language-pull
    analysis. Official or de facto official languages of a territory count; a language official
    nowhere (Javanese, Cantonese, Sardinian...) belongs to the territory where it is most widespread."""
    from babel.core import get_global

    territories = get_global("territory_languages")
    official: dict[str, set[str]] = {}
    # Russian has had no official status in Ukraine since the 2019 language law; CLDR still lists
    # it as de facto official there, which would make every Ukrainian answer a "Russian pull".
    excluded = {("ru", "UA")}
    widest: dict[str, tuple[float, str]] = {}
    for territory, languages in territories.items():
        if not is_iso_alpha2(territory):
            continue
        for language, info in languages.items():
            share = info.get("population_percent") or 0.0
            if (language, territory) in excluded:
                continue
            if info.get("official_status") in ("official", "de_facto_official"):
                official.setdefault(language, set()).add(territory)
            if share > widest.get(language, (-1.0, ""))[0]:
                widest[language] = (share, territory)
    pairs = {(language, country) for language, countries in official.items() for country in countries}
    pairs |= {(language, territory) for language, (_, territory) in widest.items() if language not in official}
    pairs |= {(language, country) for language, countries in SPOKEN_ALSO.items() for country in countries}
    return [{"lang": language, "country": country} for language, country in sorted(pairs)]
