"""ISO 3166-1 countries: validating codes and resolving the English country names datasets use.

The extractor (free-text answers in many languages) is a separate, larger instrument; this module
only covers what ingestion needs: datasets that write codes. English gold names are resolved
through the extractor's gazetteer, in `pipeline.extract.english`.
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


def is_iso_alpha2(code: str) -> bool:
    return len(code) == 2 and code.isalpha() and code.isupper() and pycountry.countries.get(alpha_2=code) is not None


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
