"""ISO 3166-1 countries: validating codes and resolving the English country names datasets use.

The extractor (free-text answers in many languages) is a separate, larger instrument; this module
only covers what ingestion needs: datasets that write codes, and WorldCuisines' English gold names.
"""

from __future__ import annotations

import functools

import pycountry
from babel import Locale

POST_SOVIET = frozenset({"AM", "AZ", "BY", "EE", "GE", "KG", "KZ", "LT", "LV", "MD", "RU", "TJ", "TM", "UA", "UZ"})

# Names in the datasets that ISO 3166-1 and CLDR spell differently or do not list at all.
ENGLISH_ALIASES: dict[str, str | None] = {
    # The UK's constituent countries have no ISO 3166-1 code of their own (only ISO 3166-2
    # subdivisions GB-ENG, GB-SCT, GB-WLS, GB-NIR): an "English" dish is a dish of GB.
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "great britain": "GB",
    "britain": "GB",
    # WorldCuisines writes "Korea" for South Korean dishes and "North Korea" when it means the DPRK.
    "korea": "KR",
    "macau": "MO",
    "timor leste": "TL",
    "east timor": "TL",
    "czech republic": "CZ",
    "macedonia": "MK",
    "palestine": "PS",
    "democratic republic of the congo": "CD",
    "dr congo": "CD",
    "republic of the congo": "CG",
    "ivory coast": "CI",
    "cape verde": "CV",
    "swaziland": "SZ",
    "burma": "MM",
    "holland": "NL",
    "usa": "US",
    "united states of america": "US",
    "uk": "GB",
    "uae": "AE",
    "vatican": "VA",
    "russia": "RU",
    "turkey": "TR",
    # Not a country: WorldCuisines marks dishes eaten everywhere as "Global".
    "global": None,
}


class UnknownCountry(ValueError):
    pass


def is_iso_alpha2(code: str) -> bool:
    return len(code) == 2 and code.isalpha() and code.isupper() and pycountry.countries.get(alpha_2=code) is not None


@functools.cache
def _english_index() -> dict[str, str]:
    """Lower-cased English names -> alpha-2, from CLDR (babel) and ISO 3166 (pycountry)."""
    index: dict[str, str] = {}
    english = Locale("en").territories
    for country in pycountry.countries:
        code = country.alpha_2
        names = {country.name, getattr(country, "common_name", None), getattr(country, "official_name", None)}
        names.add(english.get(code))
        for name in filter(None, names):
            index.setdefault(name.casefold(), code)
    for name, code in ENGLISH_ALIASES.items():
        if code:
            index[name] = code
    return index


def resolve_english(name: str) -> str | None:
    """Alpha-2 code for an English country name; None for a known non-country ("Global").

    Raises UnknownCountry for anything else, so a new spelling is fixed here, not guessed."""
    key = " ".join(name.replace("-", " ").split()).casefold()
    if key in ENGLISH_ALIASES and ENGLISH_ALIASES[key] is None:
        return None
    index = _english_index()
    for candidate in (key, name.strip().casefold()):
        if candidate in index:
            return index[candidate]
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
