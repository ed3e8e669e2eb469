"""Specification of the country-of-origin gazetteer (names, aliases, regions, adjectives, inflected forms)."""

from __future__ import annotations

import pycountry
import pytest
from babel import Locale

from pipeline.extract import aliases
from pipeline.extract import gazetteer as gazetteer_module
from pipeline.extract.gazetteer import AMBIGUOUS, KINDS, Entry, build_gazetteer, lookup, normalise
from pipeline.reference.countries import UK_NATIONS


@pytest.fixture(scope="module")
def gazetteer() -> list[Entry]:
    return build_gazetteer()


@pytest.mark.parametrize(
    ("surface", "lang", "country"),
    [
        ("индии", "ru", "IN"),
        ("франции", "ru", "FR"),
        ("білорусі", "uk", "BY"),
        ("україни", "uk", "UA"),
        ("узбекской", "ru", "UZ"),
        ("узбецької", "uk", "UZ"),
        ("грузинское", "ru", "GE"),
        ("грузинської", "uk", "GE"),
        ("южной кореи", "ru", "KR"),
        ("соединенных штатах америки", "ru", "US"),
        ("Соединённых Штатах Америки", "ru", "US"),
        ("сша", "ru", "US"),
        ("великобритании", "ru", "GB"),
        ("китайскую", "ru", "CN"),
        ("японської", "uk", "JP"),
        ("молдавии", "ru", "MD"),
        ("Киргизии", "ru", "KG"),
        ("Англии", "ru", "GB"),
        ("англійської", "uk", "GB"),
        ("корейская", "ru", "KR"),
        ("корейської", "uk", "KR"),
        ("КНДР", "ru", "KP"),
        ("ПАР", "uk", "ZA"),
        ("Holland", "en", "NL"),
        ("Dutch", "en", "NL"),
        ("Scottish", "en", "GB"),
        ("Korean", "en", "KR"),
        ("USA", "en", "US"),
        ("в’єтнамської", "uk", "VN"),
        ("республики корея", "ru", "KR"),
        ("боснии и герцеговины", "ru", "BA"),
    ],
)
def test_examples_resolve_to_their_country(gazetteer, surface, lang, country):
    entry = lookup(surface, lang)
    assert entry is not None, surface
    assert entry.country == country
    assert entry.lang == lang


@pytest.mark.parametrize(
    ("surface", "lang"), [("Крым", "ru"), ("Крыму", "ru"), ("Крим", "uk"), ("Криму", "uk"), ("Crimea", "en")]
)
def test_crimea_is_ukraine(gazetteer, surface, lang):
    entry = lookup(surface, lang)
    assert entry is not None
    assert (entry.country, entry.kind) == ("UA", "subnational")


@pytest.mark.parametrize(
    ("surface", "lang", "region"),
    [
        ("Кавказ", "ru", "Caucasus"),
        ("Кавказе", "ru", "Caucasus"),
        ("кавказская", "ru", "Caucasus"),
        ("Средней Азии", "ru", "Central Asia"),
        ("Середньої Азії", "uk", "Central Asia"),
        ("СССР", "ru", "Soviet Union"),
        ("советской", "ru", "Soviet Union"),
        ("Balkans", "en", "Balkans"),
    ],
)
def test_broad_regions_name_no_country(gazetteer, surface, lang, region):
    entry = lookup(surface, lang)
    assert entry is not None
    assert entry.country is None
    assert entry.region == region


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_every_cldr_short_name_resolves_to_its_code(gazetteer, lang):
    territories = Locale.parse(lang).territories
    wrong = {}
    for country in pycountry.countries:
        name = territories.get(country.alpha_2)
        if name is None:
            continue
        entry = lookup(name, lang)
        if entry is None or entry.country != country.alpha_2:
            wrong[name] = entry
    assert wrong == {}


@pytest.mark.parametrize(
    ("lang", "forms", "country"),
    [
        ("ru", ["индия", "индии", "индию", "индией"], "IN"),
        ("ru", ["франция", "франции", "францию", "францией"], "FR"),
        ("ru", ["южная корея", "южной кореи", "южную корею", "южной кореей"], "KR"),
        ("uk", ["україна", "україни", "україну", "україною", "україні"], "UA"),
        ("uk", ["білорусь", "білорусі", "білоруссю"], "BY"),
    ],
)
def test_pymorphy_forms_of_names(gazetteer, lang, forms, country):
    for form in forms:
        entry = lookup(form, lang)
        assert entry is not None, form
        assert entry.country == country


def test_adjectives_cover_all_genders_numbers_and_cases(gazetteer):
    forms = ["узбекский", "узбекская", "узбекское", "узбекские", "узбекского", "узбекской", "узбекскую", "узбекских"]
    assert all(lookup(form, "ru").country == "UZ" for form in forms)


@pytest.mark.parametrize(
    ("written", "lang", "matches"),
    [
        ("Turkey", "en", True),
        ("turkey", "en", False),
        ("china", "en", False),
        ("China", "en", True),
        ("georgia", "en", False),
        ("jordan", "en", False),
        ("chad", "en", False),
        ("US", "en", True),
        ("us", "en", False),
        ("Того", "ru", True),
        ("того", "ru", False),
        ("Чад", "ru", True),
        ("чад", "ru", False),
    ],
)
def test_homographs_match_only_capitalised(gazetteer, written, lang, matches):
    assert (lookup(written, lang) is not None) is matches
    assert lookup(written.upper() if written.upper() == "US" else written.capitalize(), lang).case_sensitive


def test_one_entry_per_language_and_surface(gazetteer):
    keys = [(entry.lang, entry.surface) for entry in gazetteer]
    assert len(keys) == len(set(keys))


def test_surfaces_are_normalised(gazetteer):
    for entry in gazetteer:
        assert entry.surface == normalise(entry.surface)
        assert "ё" not in entry.surface
        assert entry.kind in KINDS
        if entry.kind == "dish":  # a dish name that claims no origin ("French toast")
            assert entry.country is None and entry.region is None
        elif entry.region in UK_NATIONS:  # a UK nation: a region that resolves to GB
            assert entry.country == "GB"
        else:
            assert (entry.country is None) == (entry.region is not None)


def test_normalise():
    assert normalise("  Кот-д’Ивуар ") == "кот-д'ивуар"
    assert normalise("Соединённые   Штаты") == "соединенные штаты"
    assert normalise("Вʼєтнам") == "в'єтнам"


def test_ambiguous_surfaces_are_not_entries(gazetteer):
    """Whatever the real lists hold today (no surface is claimed twice at the moment), every recorded
    ambiguity matches what the gazetteer kept."""
    index = {(entry.lang, entry.surface): entry for entry in gazetteer}
    langs = {entry.lang for entry in gazetteer}
    for ambiguity in AMBIGUOUS:
        if ambiguity.lang not in langs:  # recorded while another test built another language
            continue
        entry = index.get((ambiguity.lang, ambiguity.surface))
        assert (entry is None) == (ambiguity.kept is None)


def test_a_tie_drops_the_surface_and_a_better_claim_wins(monkeypatch: pytest.MonkeyPatch):
    """The rule itself, on a language's candidate list with conflicts built in: two countries
    claiming "georgia" with the same priority (a tie) -> no entry, recorded with kept None; a name
    (priority 0) against an adjective (priority 2) on "dutch" -> the name's country wins, recorded."""
    candidates = [
        ("Georgia", "GE", None, "name", gazetteer_module._PRIORITY_NAME),
        ("Georgia", "US", None, "name", gazetteer_module._PRIORITY_NAME),
        ("Dutch", "NL", None, "name", gazetteer_module._PRIORITY_NAME),
        ("Dutch", "DE", None, "adjective", gazetteer_module._PRIORITY_ADJECTIVE),
        ("Peru", "PE", None, "name", gazetteer_module._PRIORITY_NAME),
    ]
    monkeypatch.setattr(gazetteer_module, "_candidates", lambda lang: iter(candidates))
    monkeypatch.setattr(gazetteer_module, "AMBIGUOUS", [])
    entries = {entry.surface: entry for entry in gazetteer_module._build_lang("en")}
    assert "georgia" not in entries
    assert entries["dutch"].country == "NL"
    assert entries["peru"].country == "PE"
    recorded = {(a.surface, a.kept): set(a.targets) for a in gazetteer_module.AMBIGUOUS}
    assert recorded == {("georgia", None): {"GE", "US"}, ("dutch", "NL"): {"NL", "DE"}}


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_at_least_sixty_adjective_countries(lang):
    assert len(set(aliases.ADJECTIVES[lang].values())) >= 60


def test_lookup_unknown_is_none(gazetteer):
    assert lookup("атлантида", "ru") is None
    assert lookup("индии", "en") is None


# --- building languages in the background (a first demo's thirty prompt languages) ---------------------------------


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """A fresh derived-file cache, and no language built in this process or by an earlier background worker."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("DISH_ATLAS_PATTERN_CACHE", raising=False)
    monkeypatch.setattr(gazetteer_module, "_PREBUILDS", [])
    gazetteer_module._lang_entries.cache_clear()
    yield tmp_path / "cache" / "dish-atlas" / "cache" / "gazetteer"
    for job in gazetteer_module._PREBUILDS:
        job.worker.kill()
    gazetteer_module._lang_entries.cache_clear()


def test_prebuild_builds_uncached_languages_in_a_worker_and_this_process_takes_what_it_has_not_reached(empty_cache):
    started = gazetteer_module.prebuild(["is", "ga", "is", "xx-not-a-language", "cy"])
    assert started == ["is", "ga", "cy"]  # once each; a language CLDR does not know is left to its extraction
    job = gazetteer_module._PREBUILDS[0]
    here = gazetteer_module.entries_for("cy")  # the worker is still starting: this process claims "cy" and builds it
    job.worker.join(timeout=240)
    assert list(job.done) == [1, 1, 0]  # the worker built the two others and left "cy" alone
    assert sorted(p.name.split("@")[0] for p in empty_cache.glob("*.pickle")) == ["cy", "ga", "is"]
    built_there = gazetteer_module.entries_for("is")  # read from the worker's file
    assert set(built_there) == set(gazetteer_module._build_lang("is"))  # the order follows each process's hash seed
    assert set(here) == set(gazetteer_module._load_cached(gazetteer_module._cache_file("cy"))[0])
    assert gazetteer_module.prebuild(["is", "ga", "cy"]) == []  # all cached now: nothing to start


def test_a_killed_worker_costs_only_time(empty_cache):
    gazetteer_module.prebuild(["is", "ga"])
    job = gazetteer_module._PREBUILDS[0]
    job.claimed[1] = 1  # the worker "started" on ga, then died without a cache file
    job.worker.kill()
    job.worker.join()
    assert gazetteer_module.entries_for("ga")  # built here instead of waiting forever
