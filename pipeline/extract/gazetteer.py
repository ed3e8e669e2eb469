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
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pycountry
from babel import Locale

from pipeline.extract import aliases, czech
from pipeline.extract.aliases_world import ALIASES_WORLD, CZECH_ADJECTIVE_STEMS

LANGS: tuple[str, ...] = ("ru", "uk", "en")
MORPH_LANGS = frozenset({"ru", "uk"})
KINDS = ("name", "alias", "adjective", "subnational", "region")

# Lower number = stronger claim on a surface.
_PRIORITY_NAME, _PRIORITY_CURATED, _PRIORITY_ADJECTIVE, _PRIORITY_INFLECTED = 0, 1, 2, 3

_CASES = {
    "ru": ("nomn", "gent", "datv", "accs", "ablt", "loct", "loc2"),
    "uk": ("nomn", "gent", "datv", "accs", "ablt", "loct", "voct"),
}
_AGREEING_POS = frozenset({"NOUN", "ADJF", "PRTF"})
_WORD_RE = re.compile(r"([\w']+)")
_APOSTROPHES = str.maketrans({"’": "'", "ʼ": "'", "‘": "'", "`": "'", "ё": "е", "–": "-", "—": "-"})
_SPACES_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class Entry:
    """One surface form. ``country`` is ISO 3166-1 alpha-2, or None for a broad ``region``."""

    surface: str
    country: str | None
    region: str | None
    lang: str
    kind: str
    case_sensitive: bool = False


@dataclass(frozen=True)
class Ambiguity:
    """A surface that named more than one place in one language. ``kept`` is the winner, or None if dropped."""

    lang: str
    surface: str
    targets: tuple[str, ...]
    kept: str | None


AMBIGUOUS: list[Ambiguity] = []


def normalise(text: str) -> str:
    """Lower-case, ё→е, unify apostrophes (' ʼ ’ ‘) and dashes (– — → -), collapse whitespace."""
    return _SPACES_RE.sub(" ", text.lower().translate(_APOSTROPHES)).strip()


# --- Morphology -----------------------------------------------------------------------------------------------------


@functools.cache
def _analyzers() -> dict:
    """Both analyzers, Ukrainian loaded first. pymorphy3 shares one tag class between languages and
    the dictionary loaded last defines its grammemes: loaded after Russian, Ukrainian would drop
    Russian-only ones ("loc2": "в Крыму") and inflecting a Russian word would fail. Russian's set
    covers Ukrainian's cases, so Russian goes last."""
    import pymorphy3

    ukrainian = pymorphy3.MorphAnalyzer(lang="uk")
    russian = pymorphy3.MorphAnalyzer(lang="ru")
    return {"uk": ukrainian, "ru": russian}


def _analyzer(lang: str):
    return _analyzers()[lang]


@functools.cache
def _parse(lang: str, word: str):
    """The nominative parse of a known word (Geox and agreeing parts of speech preferred), or None."""
    morph = _analyzer(lang)
    if not morph.word_is_known(word):
        return None
    parses = [p for p in morph.parse(word) if "nomn" in p.tag and p.tag.POS in _AGREEING_POS]
    if not parses:
        return None
    geo = [p for p in parses if "Geox" in p.tag.grammemes]
    return (geo or parses)[0]


def _lexeme(lang: str, word: str) -> set[str]:
    parse = _parse(lang, word)
    if parse is None:
        return {word}
    forms = {normalise(f.word) for f in parse.lexeme if f.tag.POS == parse.tag.POS} | {word}
    # "польський" parses first as a surname (NOUN): the adjective reading adds the feminine and neuter forms.
    adjective = next((p for p in _analyzer(lang).parse(word) if p.tag.POS == "ADJF" and "nomn" in p.tag), None)
    if adjective is not None and parse.tag.POS != "ADJF":
        forms |= {normalise(f.word) for f in adjective.lexeme if f.tag.POS == "ADJF"}
    return forms


def inflect(phrase: str, lang: str) -> set[str]:
    """All forms of a normalised ru/uk phrase (the phrase itself included)."""
    if lang not in MORPH_LANGS:
        return {phrase}
    parts = _WORD_RE.split(phrase)  # separators at even indices, words at odd ones
    words = parts[1::2]
    if len(words) == 1:
        return {parts[0] + form + parts[2] for form in _lexeme(lang, words[0])}
    parses = []
    previous_noun = False
    for index in range(1, len(parts), 2):
        parse = _parse(lang, parts[index])
        if parse is not None and parse.tag.POS == "NOUN" and previous_noun and parts[index - 1].strip() == "":
            parse = None  # apposition: "Республика Корея" → "Республики Корея"
        previous_noun = parse is not None and parse.tag.POS == "NOUN"
        parses.append(parse)
    forms = {phrase}
    for case in _CASES[lang]:
        out = list(parts)
        for slot, parse in enumerate(parses):
            if parse is None:
                continue
            inflected = parse.inflect({case}) or (parse.inflect({"loct"}) if case == "loc2" else None)
            if inflected is not None:
                out[2 * slot + 1] = normalise(inflected.word)
        forms.add("".join(out))
    return forms


# --- Building -------------------------------------------------------------------------------------------------------


def _is_case_sensitive(surface: str, lang: str) -> bool:
    return surface in _case_sensitive_bases(lang)


@functools.cache
def _case_sensitive_bases(lang: str) -> frozenset[str]:
    return frozenset(normalise(word) for word in aliases.CASE_SENSITIVE.get(lang, ()))


@functools.cache
def _case_sensitive_acronyms(lang: str) -> frozenset[str]:
    return frozenset(normalise(word) for word in aliases.CASE_SENSITIVE.get(lang, ()) if word.isupper())


def _candidates(lang: str) -> Iterator[tuple[str, str | None, str | None, str, int]]:
    """(written form, country, region, kind, priority) before normalisation and inflection."""
    codes = [country.alpha_2 for country in pycountry.countries]
    territories = Locale.parse(lang).territories
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


def _build_lang(lang: str) -> list[Entry]:
    # surface → {target: (priority, Entry)}: the best claim of each target on that surface.
    claims: dict[str, dict[str, tuple[int, Entry]]] = {}
    for written, country, region, kind, priority in _candidates(lang):
        base = normalise(written)
        sensitive = _is_case_sensitive(base, lang)
        for surface in _forms(base, lang, kind):
            rank = priority if surface == base else _PRIORITY_INFLECTED
            entry = Entry(surface, country, region, lang, kind, sensitive)
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
    return tuple(_build_lang(lang))


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
