"""Gazetteer for the country-of-origin extractor: every surface form that names a country or a broad region.

Sources, per language (``ru``, ``uk``, ``en``):

* country names from CLDR via ``babel`` (``Locale(lang).territories``) for the ISO 3166-1 codes of ``pycountry``,
  and for English also pycountry's ``name`` / ``common_name`` / ``official_name``;
* hand-curated data in :mod:`pipeline.extract.aliases` (aliases, subnational regions, broad regions, adjectives).

Russian and Ukrainian phrases are expanded over all grammatical cases with pymorphy3: single words over their whole
lexeme (all cases and numbers; all genders for adjectives), multi-word names by inflecting every agreeing word
(nominative nouns, adjectives, participles) to the same case, leaving genitive complements ("Штаты *Америки*"),
appositions ("Республика *Корея*"), function words and words pymorphy3 does not know as they are.

Conflicts: one entry per ``(lang, surface)``. When a surface names two different places, the source with the
higher priority wins (CLDR/pycountry name > curated alias/subnational/region > adjective > inflected form); if the
best candidates tie, the surface is dropped. Both cases are recorded in :data:`AMBIGUOUS`.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pycountry
from babel import Locale

from pipeline.core.morph import MORPH_LANGS
from pipeline.core.morph import analyzer as _analyzer
from pipeline.core.text import fold_phrase
from pipeline.extract import aliases, czech, demonyms, historic, places, spellings
from pipeline.extract.aliases_world import ALIASES_WORLD, CZECH_ADJECTIVE_STEMS

LANGS: tuple[str, ...] = ("ru", "uk", "en")
KINDS = ("name", "alias", "adjective", "subnational", "region", "dish", "place", "historic", "endonym")

# Lower number = stronger claim on a surface.
_PRIORITY_NAME, _PRIORITY_CURATED, _PRIORITY_ADJECTIVE, _PRIORITY_INFLECTED = 0, 1, 2, 3

_CASES = {
    "ru": ("nomn", "gent", "datv", "accs", "ablt", "loct", "loc2"),
    "uk": ("nomn", "gent", "datv", "accs", "ablt", "loct", "voct"),
}
_AGREEING_POS = frozenset({"NOUN", "ADJF", "PRTF"})
_WORD_RE = re.compile(r"([\w'-]+)")  # hyphenated names are one word


@dataclass(frozen=True)
class Entry:
    """One surface form. ``country`` is ISO 3166-1 alpha-2, or None for a broad ``region``."""

    surface: str
    country: str | None
    region: str | None
    lang: str
    kind: str
    case_sensitive: bool = False
    # How strong the claim is (0 CLDR/pycountry name, 1 curated, 2 adjective, 3 inflected or generated
    # from a library's list, like pycountry's subdivisions): decides between search languages too.
    rank: int = 0


@dataclass(frozen=True)
class Ambiguity:
    """A surface that named more than one place in one language. ``kept`` is the winner, or None if dropped."""

    lang: str
    surface: str
    targets: tuple[str, ...]
    kept: str | None


AMBIGUOUS: list[Ambiguity] = []


def normalise(text: str) -> str:
    """Lower-case, ё→е, one apostrophe and dash, single spaces: `pipeline.core.text.fold_phrase`, the
    one fold of country names."""
    return fold_phrase(text)


# --- Morphology -----------------------------------------------------------------------------------------------------


def _inflect_part(lang: str, part: str, case: str) -> str:
    parse = _adjective_parse(lang, part) or _parse(lang, part)
    inflected = parse.inflect({case}) if parse is not None else None
    return normalise(inflected.word) if inflected is not None else part


@functools.cache
def _adjective_parse(lang: str, word: str):
    morph = _analyzer(lang)
    return next((p for p in morph.parse(word) if p.tag.POS == "ADJF" and "nomn" in p.tag), None)


@functools.cache
def _parse(lang: str, word: str):
    """The nominative parse of a known word (Geox and agreeing parts of speech preferred), or None."""
    morph = _analyzer(lang)
    if not morph.word_is_known(word):
        if "'" in word:  # the dictionaries write "кот-д’ивуар"
            typographic = _parse(lang, word.replace("'", "’"))
            return typographic
        return None
    parses = [p for p in morph.parse(word) if "nomn" in p.tag and p.tag.POS in _AGREEING_POS]
    if not parses:
        return None
    geo = [p for p in parses if "Geox" in p.tag.grammemes]
    return (geo or parses)[0]


def _lexeme(lang: str, word: str) -> set[str]:
    parse = _parse(lang, word)
    if "-" in word and (parse is None or "Fixd" in parse.tag.grammemes):
        return _hyphenated_forms(lang, word)
    if parse is None:
        return {word}
    forms = {normalise(f.word) for f in parse.lexeme if f.tag.POS == parse.tag.POS} | {word}
    # "польський" parses first as a surname (NOUN): the adjective reading adds the feminine and neuter forms.
    adjective = next((p for p in _analyzer(lang).parse(word) if p.tag.POS == "ADJF" and "nomn" in p.tag), None)
    if adjective is not None and parse.tag.POS != "ADJF":
        forms |= {normalise(f.word) for f in adjective.lexeme if f.tag.POS == "ADJF"}
    if "Fixd" in parse.tag.grammemes and "Geox" in parse.tag.grammemes:
        forms |= _colloquial_forms(lang, word)
    if lang == "ru" and "Pltm" in parse.tag.grammemes and word.endswith("ы"):
        forms.add(word[:-1] + "ов")  # "Мальдивов", the everyday genitive of "Мальдивы" (pymorphy3: "Мальдив")
    return forms


# Indeclinable names ending in -а that everyday Russian and Ukrainian decline anyway, as nouns of
# the first declension: "в Никарагую", "из Буркины-Фасо". Soft endings after a vowel (Никарагуа).
_COLLOQUIAL_ENDINGS = {
    ("ru", "hard"): ("ы", "е", "у", "ой", "и"),
    ("ru", "soft"): ("и", "е", "ю", "ей"),
    ("uk", "hard"): ("и", "і", "у", "ою"),
    ("uk", "soft"): ("ї", "ю", "єю"),
}


def _colloquial_forms(lang: str, word: str) -> set[str]:
    if not word.endswith("а") or len(word) < 4:
        return set()
    kind = "soft" if word[-2] in "аеёиоуыэюяіїє" else "hard"
    return {word[:-1] + ending for ending in _COLLOQUIAL_ENDINGS[lang, kind]}


def _hyphenated_forms(lang: str, word: str) -> set[str]:
    """A hyphenated name pymorphy3 does not know as a whole ("Буркина-Фасо", "Сьерра-Леоне"): every
    part inflected on its own (pymorphy3, or the colloquial first declension for an indeclinable
    part), every combination of the parts' forms ("Сьерра-Леону", "Буркину-Фасо")."""
    import itertools

    parts = word.split("-")
    options = []
    for part in parts:
        forms = {part}
        parse = _parse(lang, part) if len(part) > 2 else None
        if parse is not None and "Name" not in parse.tag.grammemes and "Surn" not in parse.tag.grammemes:
            forms |= {normalise(f.word) for f in parse.lexeme if f.tag.POS == parse.tag.POS and "sing" in f.tag}
        forms |= _colloquial_forms(lang, part)
        options.append(sorted(forms))
    if sum(len(o) for o in options) > 40:
        return {word}
    return {"-".join(combination) for combination in itertools.product(*options)}


def inflect(phrase: str, lang: str) -> set[str]:
    """All forms of a normalised ru/uk phrase (the phrase itself included)."""
    if lang not in MORPH_LANGS:
        return {phrase}
    parts = _WORD_RE.split(phrase)  # separators at even indices, words at odd ones
    words = parts[1::2]
    if len(words) == 1:
        return {parts[0] + form + parts[2] for form in _lexeme(lang, words[0])}
    parses = []
    last = len(parts) - 2
    for index in range(1, len(parts), 2):
        parse = _parse(lang, parts[index])
        if parse is not None and parse.tag.POS == "NOUN" and index < last:
            # "нова зеландія": a word before the head is read as an adjective when it can be one.
            adjective = _adjective_parse(lang, parts[index])
            parse = adjective or parse
        # An apposition ("Республика Корея" → "Республики Корея") is mostly kept as it is; the
        # combinations below also cover writers who decline it ("Острова Мену").
        parses.append(parse)
    forms = {phrase}
    for case in _CASES[lang]:
        # Every word either inflected or kept: writers differ on which words of a long name decline
        # ("Тёркс и Кайкоса" / "Тёркса и Кайкоса"), and a wrong mix is never another country.
        options = []
        for slot, parse in enumerate(parses):
            word = parts[2 * slot + 1]
            choices = {word}
            if parse is not None:
                inflected = parse.inflect({case}) or (parse.inflect({"loct"}) if case == "loc2" else None)
                if inflected is not None:
                    choices.add(normalise(inflected.word))
            elif "-" in word:  # "папуа-нова гвінея": each known part of the hyphenated word
                choices.add("-".join(_inflect_part(lang, part, case) for part in word.split("-")))
            options.append(sorted(choices))
        combinations = itertools.islice(itertools.product(*options), 64)
        for combination in combinations:
            out = list(parts)
            for slot, word in enumerate(combination):
                out[2 * slot + 1] = word
            forms.add("".join(out))
    return forms


# --- Building -------------------------------------------------------------------------------------------------------


def _is_case_sensitive(surface: str, lang: str, kind: str = "") -> bool:
    """Curated homographs, and every subdivision name written in a cased script ("Alba", "Sale",
    "Central" are ordinary words in lower case)."""
    if kind == "place":
        return places.is_cased(surface)
    if kind == "subnational" and surface in _pycountry_subdivision_keys(lang):
        return any(ch.isalpha() and ch.lower() != ch.upper() for ch in surface)
    return surface in _case_sensitive_bases(lang)


@functools.cache
def _pycountry_subdivision_keys(lang: str) -> frozenset[str]:
    return frozenset(normalise(name) for name in _subdivisions(lang))


@functools.cache
def _case_sensitive_bases(lang: str) -> frozenset[str]:
    return frozenset(normalise(word) for word in aliases.CASE_SENSITIVE.get(lang, ()))


@functools.cache
def _case_sensitive_acronyms(lang: str) -> frozenset[str]:
    return frozenset(normalise(word) for word in aliases.CASE_SENSITIVE.get(lang, ()) if word.isupper())


@functools.cache
def _country_codes() -> tuple[str, ...]:
    return tuple(country.alpha_2 for country in pycountry.countries)


@functools.cache
def _parsed_territories(lang: str) -> dict | Exception:
    try:
        return Locale.parse(lang).territories
    except Exception as exc:  # babel's UnknownLocaleError, or ValueError for a malformed code
        return exc


def _territories(lang: str) -> dict:
    """CLDR's country names in `lang`; a language CLDR does not know raises (babel's error) every time it is
    asked, without parsing again: the answer-language step asks for every prompt language's names."""
    found = _parsed_territories(lang)
    if isinstance(found, Exception):
        raise found.with_traceback(None)
    return found


def _candidates(lang: str) -> Iterator[tuple[str, str | None, str | None, str, int]]:
    """(written form, country, region, kind, priority) before normalisation and inflection."""
    codes = _country_codes()
    territories = _territories(lang)
    for code in codes:
        if code in territories:
            yield territories[code], code, None, "name", _PRIORITY_NAME
    if lang == "en":
        for country in pycountry.countries:
            for attribute in ("name", "common_name", "official_name"):
                value = getattr(country, attribute, None)
                if value:
                    yield value, country.alpha_2, None, "name", _PRIORITY_NAME
    for written, code in aliases.ALIASES.get(lang, {}).items():
        yield written, code, None, "alias", _PRIORITY_CURATED
    for written, code in ALIASES_WORLD.get(lang, {}).items():
        yield written, code, None, "alias", _PRIORITY_CURATED
    for written, code in aliases.SUBNATIONAL.get(lang, {}).items():
        yield written, code, None, "subnational", _PRIORITY_CURATED
    if lang == "en":
        # US states (ISO 3166-2): models answer "Louisiana" or "Hawaii" for American dishes. A state
        # named like a country (Georgia) stays the country; the curated "state of Georgia" covers it.
        for state in pycountry.subdivisions.get(country_code="US") or ():
            if state.type == "State" and state.name.casefold() not in _country_names_en():
                yield state.name, "US", None, "subnational", _PRIORITY_INFLECTED
    for written, region in aliases.REGIONS.get(lang, {}).items():
        yield written, None, region, "region", _PRIORITY_CURATED
    for written, code in aliases.ADJECTIVES.get(lang, {}).items():
        yield written, code, None, "adjective", _PRIORITY_ADJECTIVE
    for written, region in aliases.REGION_ADJECTIVES.get(lang, {}).items():
        yield written, None, region, "adjective", _PRIORITY_ADJECTIVE
    if lang == "cs":
        for stem, code in CZECH_ADJECTIVE_STEMS.items():
            for written in czech.adjective_forms(stem):
                yield written, code, None, "adjective", _PRIORITY_ADJECTIVE
    for base, code in demonyms.ROMANCE.get(lang, {}).items():
        for written in demonyms.romance_forms(base, lang):
            yield written, code, None, "adjective", _PRIORITY_ADJECTIVE
    if lang == "ar":
        for code in codes:
            for written in demonyms.arabic_nisba(territories.get(code, "")):
                yield written, code, None, "adjective", _PRIORITY_ADJECTIVE
    for written, code in _subdivisions(lang).items():
        yield written, code, None, "subnational", _PRIORITY_INFLECTED
    for written in aliases.NOT_ORIGIN:
        yield written, None, None, "dish", _PRIORITY_NAME
    yield from _more_candidates(lang, territories, codes)


def _more_candidates(lang: str, territories: dict, codes: tuple[str, ...]) -> Iterator[tuple]:
    """Issue 38: more spellings (Natural Earth names, endonyms, continental regions), older names, and places
    inside countries (see `spellings`, `historic`, `places`)."""
    for written, kind, code in spellings.candidates(lang, territories, codes):
        yield written, code, None, kind, _PRIORITY_CURATED
    for written, code in spellings.endonyms().items():
        yield written, code, None, "endonym", _PRIORITY_INFLECTED
    for written, region in spellings.region_candidates(lang):
        yield written, None, region, "region", _PRIORITY_CURATED
    for written, code, region in historic.candidates(lang):
        yield written, code, region, "historic", _PRIORITY_CURATED
    for written in places.DISH_NAMES:
        yield written, None, None, "dish", _PRIORITY_NAME
    for written, code in places.candidates(lang, _country_surfaces()):
        yield written, code, None, "place", _PRIORITY_INFLECTED


@functools.cache
def _country_surfaces() -> frozenset[str]:
    """Every folded country name, in CLDR (the prompt languages' locales), Natural Earth and the endonyms,
    with the curated aliases and adjectives: a place named like any of them is left out (the country wins)."""
    from pipeline.extract.aliases_world import LOCALE_OF

    locales = {"en", "ru", "uk", "fr", "es", "it", "de", "pt", "id", "jv", "tr", "az", "cs", "ar", "hi", "mr", "bn"}
    locales |= {"ja", "ko", "th", "si", "yo", "fil", "su", "sc", "zh", "zh_Hant", *LOCALE_OF.values()}
    names: set[str] = set()
    for locale in locales:
        try:
            names.update(normalise(name) for name in _territories(locale).values())
        except Exception:  # a locale this babel lacks
            continue
    for column in spellings.natural_earth_names().values():
        names.update(normalise(name) for name in column)
    names.update(normalise(name) for name in spellings.endonyms())
    for table in (aliases.ALIASES, ALIASES_WORLD, aliases.ADJECTIVES, spellings.ALIASES, spellings.ADJECTIVES):
        for written in table.values():
            names.update(normalise(name) for name in written)
    return frozenset(names)


# Subdivision types that name a place people say a dish comes from (not districts, parishes, councils).
_SUBDIVISION_TYPES = frozenset(
    {
        "State", "Province", "Region", "Autonomous region", "Autonomous Region", "Autonomous community",
        "Prefecture", "Land", "Union territory", "Autonomous province", "Country", "Nation", "Republic",
        "Metropolitan region", "Metropolitan department", "Autonomous republic",
    }
)  # fmt: skip
# Chinese and Japanese romanised suffixes pycountry keeps in the name ("Sichuan Sheng", "Okinawa-ken").
_SUBDIVISION_SUFFIXES = re.compile(
    r"\s+(?:Sheng|Shi|Zizhiqu|Huizu Zizhiqu|Zhuangzu Zizhiqu|Weiwu'er Zizhiqu)$|-(?:ken|fu|to)$"
)
# Subdivisions named only by a compass point or a generic word ("Utara" North, "Centre", "Capital").
_GENERIC_PLACE_WORDS = frozenset(
    {
        "north", "south", "east", "west", "central", "northern", "southern", "eastern", "western", "capital",
        "nord", "sud", "est", "ouest", "centre", "centro", "norte", "sur", "este", "oeste", "utara", "selatan",
        "timur", "barat", "tengah", "pusat", "ibu", "kota", "region", "province", "district", "littoral",
        "north-east", "north-west", "south-east", "south-west", "nord-est", "nord-ouest", "sud-est", "sud-ouest",
        "upper", "lower", "coast", "islands", "island", "lakes", "mountain", "valley", "river", "plateau",
        "северный", "южный", "восточный", "западный", "центральный",
    }
)  # fmt: skip
# Translations that are only a compass point and a word for region ("Austurland" -> Thai "ภาคตะวันออก",
# "Southland" -> Chinese "南部地区"): generic words in those languages, whatever the original name.
_GENERIC_TRANSLATED = re.compile(
    r"(?:ภาค)?(?:ตะวันออก|ตะวันตก|เหนือ|ใต้|กลาง)(?:เฉียง(?:เหนือ|ใต้))?|"
    r"[东西南北中東][南北]?[部方]?(?:地区|地區|地方|区|區|部)?"
)
_GETTEXT_LOCALES = {"zh": "zh_CN", "zh_Hant": "zh_TW", "zh_Hant_HK": "zh_HK", "fil": "fil", "yue": "zh_HK"}


def _first_level(sub) -> bool:
    """A subdivision without a parent, or whose parent is only a geographical grouping (Indonesia's
    provinces sit under "Jawa", "Sumatera"... units)."""
    if sub.parent_code is None:
        return True
    parent = pycountry.subdivisions.get(code=sub.parent_code)
    return parent is not None and parent.type not in _SUBDIVISION_TYPES


@functools.cache
def _subdivisions(lang: str) -> dict[str, str]:
    """ISO 3166-2 first-level subdivisions (states, provinces, regions) -> their country, named as
    pycountry writes them and as its translations for `lang` do (Sicilia, Bavière, Сычуань, 四川省).
    Names shorter than 4 letters, names of a country, and names two countries share are left out."""
    import gettext

    try:
        translation = gettext.translation(
            "iso3166-2", pycountry.LOCALES_DIR, languages=[_GETTEXT_LOCALES.get(lang, lang)]
        )
    except OSError:
        translation = None
    countries = {normalise(name) for name in _territories(lang).values()} | _country_names_en()
    found: dict[str, set[str]] = {}
    generic_local: set[str] = set()
    for sub in pycountry.subdivisions:
        if sub.type not in _SUBDIVISION_TYPES or not _first_level(sub):
            continue
        if set(re.findall(r"\w+", normalise(sub.name))) <= _GENERIC_PLACE_WORDS:
            # "Sud", "Sud-Ouest": their translations ("दक्षिण", "Східна") are generic words too, and no other
            # subdivision may claim them ("Східна" is also how Ukrainian renders an Eritrean region)
            if translation is not None:
                generic_local.add(normalise(_SUBDIVISION_SUFFIXES.sub("", translation.gettext(sub.name))))
            continue
        names = {sub.name, _SUBDIVISION_SUFFIXES.sub("", sub.name)}
        if translation is not None:
            local = translation.gettext(sub.name)
            names |= {local, _SUBDIVISION_SUFFIXES.sub("", local)}
        for name in names:
            name = name.split(" (")[0].split("[")[0].strip()  # "Davao (Region XI)"
            key = normalise(name)
            words = set(re.findall(r"\w+", key))
            generic = words <= _GENERIC_PLACE_WORDS or _GENERIC_TRANSLATED.fullmatch(key) is not None
            if len(key) >= 4 and key not in countries and "(" not in key and not generic:
                found.setdefault(name, set()).add(sub.country_code)
    by_key: dict[str, set[str]] = {}
    for name, codes in found.items():
        by_key.setdefault(normalise(name), set()).update(codes)
    return {
        name: next(iter(codes))
        for name, codes in found.items()
        if len(by_key[normalise(name)]) == 1 and normalise(name) not in generic_local
    }


@functools.cache
def _country_names_en() -> frozenset[str]:
    english = Locale("en").territories
    return frozenset(english[c.alpha_2].casefold() for c in pycountry.countries if c.alpha_2 in english)


def _target(country: str | None, region: str | None) -> str:
    return country or f"region:{region}"


def _forms(base: str, lang: str, kind: str) -> set[str]:
    """Case forms: pymorphy3 for ru/uk, rules for Czech names (its adjectives come in all their forms), Arabic
    names with and without the article."""
    if lang == "cs":
        return {base} if kind == "adjective" else czech.forms(base)
    if lang == "ar" and kind in ("name", "alias") and not base.startswith("ال"):
        return {base, "ال" + base}  # with the article: "الإسبانيا"
    return inflect(base, lang)


# Adjectives of the UK's nations, in the languages whose names for the nations are listed elsewhere.
_NATION_ADJECTIVES = {
    "GB-ENG": (
        "English",
        "английский",
        "англійський",
        "anglais",
        "inglese",
        "inglés",
        "Англия",
        "Англія",
        "Angleterre",
        "Inghilterra",
        "Inglaterra",
        "Anglie",
        "イングランド",
        "英格兰",
        "英格蘭",
    ),
    "GB-SCT": (
        "Scottish",
        "Scotch",
        "шотландский",
        "шотландський",
        "écossais",
        "scozzese",
        "escocés",
        "Шотландия",
        "Шотландія",
        "Écosse",
        "Scozia",
        "Escocia",
        "Skotsko",
        "スコットランド",
        "苏格兰",
        "蘇格蘭",
    ),
    "GB-WLS": (
        "Welsh",
        "валлийский",
        "валлійський",
        "gallois",
        "gallese",
        "galés",
        "Уэльс",
        "Уельс",
        "Pays de Galles",
        "Galles",
        "Gales",
        "ウェールズ",
        "威尔士",
        "威爾斯",
    ),
    "GB-NIR": ("Northern Irish", "Ulster", "Северная Ирландия", "Північна Ірландія", "Irlande du Nord"),
}


@functools.cache
def _nation_surfaces(lang: str) -> dict[str, str]:
    """Folded name or adjective -> UK nation code: pycountry's nations and their translations, and
    the names and adjectives listed above (Inggris, which is the UK in Indonesian, is not England)."""
    import gettext

    from pipeline.reference.countries import UK_NATIONS

    names: dict[str, str] = {}
    try:
        translation = gettext.translation(
            "iso3166-2", pycountry.LOCALES_DIR, languages=[_GETTEXT_LOCALES.get(lang, lang)]
        )
    except OSError:
        translation = None
    for code in UK_NATIONS:
        sub = pycountry.subdivisions.get(code=code)
        for name in {sub.name, translation.gettext(sub.name) if translation else sub.name}:
            names[normalise(name)] = code
        for adjective in _NATION_ADJECTIVES[code]:
            names[normalise(adjective)] = code
    return names


def _nation(surface_base: str, lang: str, country: str | None) -> str | None:
    return _nation_surfaces(lang).get(surface_base) if country == "GB" else None


def _build_lang(lang: str) -> list[Entry]:
    # surface → {target: (priority, Entry)}: the best claim of each target on that surface.
    claims: dict[str, dict[str, tuple[int, Entry]]] = {}
    for written, country, region, kind, priority in _candidates(lang):
        base = normalise(written)
        region = region or _nation(base, lang, country)
        sensitive = _is_case_sensitive(base, lang, kind)
        for surface in _forms(base, lang, kind):
            rank = priority if surface == base else _PRIORITY_INFLECTED
            entry = Entry(surface, country, region, lang, kind, sensitive, rank)
            target = _target(country, region)
            current = claims.setdefault(surface, {}).get(target)
            if current is None or rank < current[0]:
                claims[surface][target] = (rank, entry)
    entries = []
    for surface, by_target in claims.items():
        ranked = sorted(by_target.items(), key=lambda item: item[1][0])
        if len(ranked) > 1:
            targets = tuple(target for target, _ in ranked)
            if ranked[0][1][0] == ranked[1][1][0]:
                AMBIGUOUS.append(Ambiguity(lang, surface, targets, None))
                continue
            AMBIGUOUS.append(Ambiguity(lang, surface, targets, ranked[0][0]))
        entries.append(ranked[0][1][1])
    return entries


@functools.cache
def build_gazetteer(langs: tuple[str, ...] = LANGS) -> list[Entry]:
    """All entries for ``langs``, one per (lang, surface). Cached; conflicts are recorded in :data:`AMBIGUOUS`."""
    entries: list[Entry] = []
    for lang in langs:
        entries.extend(_lang_entries(lang))
    return entries


@functools.cache
def _lang_entries(lang: str) -> tuple[Entry, ...]:
    """A language's entries, from the disk cache when this code and its library data built them before: inflecting
    and reading CLDR take about a second per language, paid by every command that extracts countries. A language a
    background worker (`prebuild`) is building is waited for; one it has not started on is built here."""
    _territories(lang)  # a language CLDR does not know fails here, before the cache is looked at
    path = _cache_file(lang)
    cached = _load_cached(path)
    if cached is None and any(job.wait_for(lang) for job in _PREBUILDS):
        cached = _load_cached(path)
    if cached is not None:
        entries, ambiguities = cached
        AMBIGUOUS.extend(ambiguities)
        return entries
    return _build_and_store(lang, path)


def _cache_file(lang: str):
    from pipeline.core import derived

    return derived.cache_path("gazetteer", lang, derived.inputs_digest("gazetteer", lang))


def _load_cached(path) -> tuple | None:
    from pipeline.core import derived

    cached = derived.load(path)
    return cached if isinstance(cached, tuple) and len(cached) == 2 else None


def _build_and_store(lang: str, path) -> tuple[Entry, ...]:
    from pipeline.core import derived

    recorded = len(AMBIGUOUS)
    entries = tuple(_build_lang(lang))
    derived.store(path, (entries, AMBIGUOUS[recorded:]))
    return entries


class _Prebuild:
    """One background process building languages' entries into the disk cache, in order, while the command goes on
    with other work (on two cores, a first demo's 30 prompt languages cost ~12 CPU-s, the corpus scan runs meanwhile).

    Each language is claimed once, by the worker or by this process, under one lock: a language this process needs
    before the worker reached it is built here (the worker then skips it), one the worker is building is waited for.
    The worker is a daemon: a command that ends first ends it, and a half-written cache file is never read (`store`
    writes a temporary name and renames it)."""

    def __init__(self, langs: list[str]) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # never fork a process holding DuckDB's threads
        self.langs = langs
        self.claimed = context.Array("b", len(langs))  # 1: someone builds it
        self.done = context.Array("b", len(langs), lock=False)  # 1: the worker finished it (stored or failed)
        self.worker = context.Process(
            target=_prebuild_worker, args=(langs, self.claimed, self.done), name="gazetteer-prebuild", daemon=True
        )
        self.worker.start()

    def wait_for(self, lang: str) -> bool:
        """Whether the worker built `lang` (now or before): False when this process should build it itself."""
        import time

        if lang not in self.langs:
            return False
        index = self.langs.index(lang)
        with self.claimed.get_lock():
            if not self.claimed[index]:
                self.claimed[index] = 1
                return False
        while not self.done[index] and self.worker.is_alive():
            time.sleep(0.02)
        return bool(self.done[index])


def _prebuild_worker(langs: list[str], claimed, done) -> None:
    for index, lang in enumerate(langs):
        with claimed.get_lock():
            if claimed[index]:
                continue
            claimed[index] = 1
        try:
            path = _cache_file(lang)
            if path is not None and not path.is_file():
                _build_and_store(lang, path)
        except Exception:  # the command that needs the language builds it and reports the error
            pass
        done[index] = 1


_PREBUILDS: list[_Prebuild] = []


def prebuild(langs: Iterable[str]) -> list[str]:
    """Start building, in a background process, the entries of `langs` that the disk cache lacks, and return at once
    the languages it will build: a command calls it as soon as it knows which languages its answers are in, so the
    build overlaps its other steps. Unknown languages, cached ones and those an earlier call took are left out."""
    from pipeline.core import derived

    if not derived.enabled():
        return []
    taken = {lang for job in _PREBUILDS for lang in job.langs}
    missing = []
    for lang in dict.fromkeys(langs):
        if lang in taken:
            continue
        try:
            _territories(lang)
        except Exception:  # not a language CLDR knows: its extraction reports it
            continue
        path = _cache_file(lang)
        if path is not None and not path.is_file():
            missing.append(lang)
    if missing:
        try:
            _PREBUILDS.append(_Prebuild(missing))
        except (AssertionError, OSError):  # a daemonic process may not start one, nor a process out of resources:
            return []  # the languages are built when needed, as without a worker
    return missing


@functools.cache
def _index(lang: str) -> dict[str, Entry]:
    return {entry.surface: entry for entry in _lang_entries(lang)}


def lookup(surface: str, lang: str) -> Entry | None:
    """The entry a written phrase names in ``lang``, or None.

    Case-sensitive entries (homographs such as "turkey", "того") only match when written capitalised; acronyms
    among them ("US") only when written in upper case.
    """
    entry = _index(lang).get(normalise(surface))
    if entry is None or not entry.case_sensitive:
        return entry
    written = surface.strip()
    if entry.surface in _case_sensitive_acronyms(lang):
        return entry if written.isupper() else None
    return entry if written[:1].isupper() else None


def counts(entries: Iterable[Entry]) -> dict[tuple[str, str], int]:
    """Number of entries per (lang, kind)."""
    result: dict[tuple[str, str], int] = {}
    for entry in entries:
        result[entry.lang, entry.kind] = result.get((entry.lang, entry.kind), 0) + 1
    return result


def entries_for(lang: str) -> tuple[Entry, ...]:
    """Every entry of one language (any CLDR locale; curated lists exist for ru, uk and en)."""
    return _lang_entries(lang)


def is_acronym(entry: Entry) -> bool:
    """Case-sensitive acronyms ("US") only match when written in upper case."""
    return entry.surface in _case_sensitive_acronyms(entry.lang)
