"""What the corpus scan looks for, compiled into one multi-pattern engine.

For a corpus language ``lang`` the targets are:

* **dishes**: every name of ``core.dish_names`` in ``lang`` of the dishes that belong to that language: a dataset
  that has dishes of its own in ``lang`` (BORSch ``uk``) contributes only those; a dataset without (WorldCuisines,
  whose dishes are ``en``) contributes every dish by its translated names in ``lang``;
* **countries**: every surface of the extractor's gazetteer for ``lang`` that names a country (names, aliases,
  cuisine adjectives, subnational regions mapped to their country), never broad regions;
* **parallel names** (ru/uk corpora): for each pair of ``core.parallel_dishes``, the Ukrainian name and the Russian
  name as two separate targets, so code mixing can be counted.

Russian and Ukrainian names are expanded over their inflected forms with pymorphy3
(:func:`pipeline.extract.gazetteer.inflect`; the Russian name of a pair in Russian, the Ukrainian one in Ukrainian).
All surfaces are folded (lower case, ё→е, one apostrophe, one dash) and deduplicated; a surface shared by several
targets (two dishes called "плов", a dish name that is also the Russian name of a pair) lists them all.

Matching is whole-word and case-insensitive, in one Hyperscan pass over text folded to one byte per character
(:mod:`pipeline.corpus.fold`: lower case, ``ё``→``е``, every boundary character a space). Each surface is folded the
same way and searched as the literal ``" " + surface + " "``, so a name inside a longer word ("борщівка") never
matches, and apostrophes and dashes match in any of their typographic forms. Country homographs the gazetteer marks
case-sensitive ("Того", "Чад") only match capitalised, acronyms ("США") only in upper case.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np

from pipeline.core import derived
from pipeline.corpus.fold import Alphabet

DISH, COUNTRY, UK_NAME, RU_NAME = 0, 1, 2, 3
KIND_NAMES = ("dish", "country", "uk_name", "ru_name")
LANGS = ("uk", "ru", "en")
_MIN_SURFACE = 2
# Part of the fingerprint: shards scanned by an earlier matcher are scanned again.
MATCHER = "folded whole-word literals, v2; mention counts"  # issue 35: shards are counted again, with mentions


@dataclass
class Target:
    kind: int  # DISH | COUNTRY | UK_NAME | RU_NAME
    key: str  # dish_key, alpha-2 country, or str(pair_id)


@dataclass
class PatternSet:
    """The folded surfaces of a corpus language and the targets each names; see the module docstring."""

    lang: str
    targets: list[Target]
    surfaces: list[str]
    pattern_targets: list[tuple[int, ...]]
    case_sensitive: list[bool]
    acronym: list[bool]
    origins: dict[int, tuple[int, ...]]  # dish target -> country targets of its true origins
    fingerprint: str = ""

    @functools.cached_property
    def kinds(self) -> np.ndarray:
        return np.array([t.kind for t in self.targets], dtype=np.int8)

    @functools.cached_property
    def origin_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Dish target -> true-origin country targets as (starts, flat): those of t are flat[starts[t]:starts[t+1]]."""
        lengths = np.array([len(self.origins.get(t, ())) for t in range(len(self.targets))], dtype=np.int64)
        starts = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        flat = np.fromiter(
            (c for t in range(len(self.targets)) for c in self.origins.get(t, ())),
            dtype=np.int64,
            count=int(starts[-1]),
        )
        return starts, flat

    @functools.cached_property
    def literals(self) -> Literals:
        return compile_literals(self)


def fold_surface(text: str) -> str:
    """The comparison form of a surface: the gazetteer's normalisation (lower case, ё→е, apostrophes, dashes)."""
    from pipeline.extract.gazetteer import normalise  # building only: a scan from cached patterns needs none of it

    return normalise(text)


def forms(name: str, lang: str) -> set[str]:
    """A name and, for ru/uk, all its inflected forms (folded)."""
    from pipeline.extract.gazetteer import MORPH_LANGS, inflect

    base = fold_surface(name)
    if not base:
        return set()
    found = inflect(base, lang) if lang in MORPH_LANGS else {base}
    return {fold_surface(f) for f in found if len(f) >= _MIN_SURFACE}


def dish_names(con: duckdb.DuckDBPyConnection, lang: str) -> list[tuple[str, str]]:
    """(dish_key, name) of the dishes that belong to corpus language ``lang`` (see the module docstring)."""
    return con.execute(
        """
        SELECT n.dish_key, n.norm_name
        FROM core.dish_names n JOIN core.dishes d USING (dish_key)
        WHERE n.lang = $lang
          AND (d.lang = $lang OR NOT EXISTS (
                SELECT 1 FROM core.dishes o WHERE o.dataset = d.dataset AND o.lang = $lang))
        ORDER BY n.dish_key, n.norm_name
        """,
        {"lang": lang},
    ).fetchall()


def build_patterns(con: duckdb.DuckDBPyConnection, lang: str, cache_dir: Path | None = None) -> PatternSet:
    """Every target of a ``lang`` corpus and its surfaces, read from the warehouse, with its compiled literals.

    Expanding every name over its inflected forms and compiling the Hyperscan database take seconds, paid by every
    invocation of `corpus scan`; both are a pure function of the warehouse rows read here, the gazetteer and the
    library versions, so they are cached on disk under a digest of exactly those inputs (`cache_dir`, default the
    user cache; `DISH_ATLAS_PATTERN_CACHE=off` disables it). A damaged or foreign cache file is ignored and rebuilt."""
    if lang not in LANGS:
        raise ValueError(f"corpus language must be one of {', '.join(LANGS)}, not {lang!r}")
    return patterns_from_inputs(lang, pattern_inputs(con, lang), cache_dir)


def patterns_from_inputs(lang: str, inputs: tuple[str, list, list, list], cache_dir: Path | None = None) -> PatternSet:
    """The pattern set of `pattern_inputs` rows: loaded from the cache when built before, else built and cached.
    Workers that cannot open the warehouse (a Ray scanner actor) get the rows from the driver and call this."""
    cache = derived.cache_path("patterns", lang, inputs[0], cache_dir)
    cached = _load_cached(cache)
    if cached is not None:
        return cached
    patterns = _build_patterns(lang, *inputs[1:])
    _store_cached(cache, patterns)
    return patterns


def pattern_inputs(con: duckdb.DuckDBPyConnection, lang: str) -> tuple[str, list, list, list]:
    """(digest, dish names, parallel pairs, origins): everything `build_patterns` reads, and a digest of it."""
    dishes = dish_names(con, lang)
    pairs = (
        con.execute("SELECT pair_id, uk_name, ru_name FROM core.parallel_dishes ORDER BY pair_id").fetchall()
        if lang in ("uk", "ru")
        else []
    )
    origins = con.execute("SELECT dish_key, country FROM core.dish_origins ORDER BY dish_key, position").fetchall()
    digest = derived.inputs_digest(MATCHER, lang, *(repr(rows) for rows in (dishes, pairs, origins)))
    return digest, dishes, pairs, origins


_CACHE_KEEP = 4  # compiled pattern sets kept per language (a few warehouses side by side)


def _load_cached(path: Path | None) -> PatternSet | None:
    import hyperscan

    found = derived.load(path)
    try:
        patterns, literals, database = found
        literals.database = hyperscan.loadb(database, hyperscan.HS_MODE_BLOCK)
    except (ValueError, TypeError, AttributeError, hyperscan.error):
        return None
    if not isinstance(patterns, PatternSet):
        return None
    patterns.__dict__["literals"] = literals  # the cached_property, filled
    return patterns


def _store_cached(path: Path | None, patterns: PatternSet) -> None:
    """The pattern set and its literals, with the Hyperscan database as `dumpb` bytes (it pickles only so)."""
    import hyperscan

    if path is None:
        return
    literals = patterns.literals
    database = hyperscan.dumpb(literals.database)
    bare = dataclasses.replace(patterns)  # without the cached properties: the literals go separately
    shallow = dataclasses.replace(literals, database=None)
    derived.store(path, (bare, shallow, database), keep=_CACHE_KEEP)


def _build_patterns(lang: str, dishes: list, pairs: list, origin_rows: list) -> PatternSet:
    from pipeline.extract.gazetteer import entries_for, is_acronym

    targets: list[Target] = []
    index: dict[tuple[int, str], int] = {}

    def target(kind: int, key: str) -> int:
        if (kind, key) not in index:
            index[kind, key] = len(targets)
            targets.append(Target(kind, key))
        return index[kind, key]

    by_surface: dict[str, set[int]] = {}
    sensitive: dict[str, tuple[bool, bool]] = {}
    for key, name in dishes:
        t = target(DISH, key)
        for surface in forms(name, lang):
            by_surface.setdefault(surface, set()).add(t)
    for entry in entries_for(lang):
        # Cities (issue 38's `place` entries) name where a text is set, not a country's cuisine, and endonyms in
        # other scripts ("Ελλάδα" in the Ukrainian gazetteer) would exceed the scanner's alphabet: left out here.
        if entry.country is None or len(entry.surface) < _MIN_SURFACE or entry.kind in ("place", "endonym"):
            continue
        t = target(COUNTRY, entry.country)
        surface = fold_surface(entry.surface)
        by_surface.setdefault(surface, set()).add(t)
        if entry.case_sensitive:
            sensitive[surface] = (True, is_acronym(entry))
    if lang in ("uk", "ru"):
        for pair_id, uk_name, ru_name in pairs:
            for kind, name, name_lang in ((UK_NAME, uk_name, "uk"), (RU_NAME, ru_name, "ru")):
                t = target(kind, str(pair_id))
                for surface in forms(name, name_lang):
                    by_surface.setdefault(surface, set()).add(t)
    origins: dict[int, list[int]] = {}
    for key, country in origin_rows:
        dish = index.get((DISH, key))
        if dish is not None:
            origins.setdefault(dish, []).append(target(COUNTRY, country))
    surfaces = sorted(by_surface)
    digest = hashlib.sha256(f"{MATCHER}\t{lang}".encode())
    for surface in surfaces:
        names = sorted(f"{KIND_NAMES[targets[t].kind]}:{targets[t].key}" for t in by_surface[surface])
        digest.update(f"{surface}\t{','.join(names)}\t{sensitive.get(surface)}\n".encode())
    for dish in sorted(origins):
        digest.update(f"{targets[dish].key}>{','.join(targets[c].key for c in origins[dish])}\n".encode())
    return PatternSet(
        lang=lang,
        targets=targets,
        surfaces=surfaces,
        pattern_targets=[tuple(sorted(by_surface[s])) for s in surfaces],
        case_sensitive=[sensitive.get(s, (False, False))[0] for s in surfaces],
        acronym=[sensitive.get(s, (False, False))[1] for s in surfaces],
        origins={dish: tuple(dict.fromkeys(countries)) for dish, countries in origins.items()},
        fingerprint=digest.hexdigest(),
    )


@dataclass
class Literals:
    """The surfaces as Hyperscan literals over folded text (expression id = index here). Two surfaces can fold alike
    ("по-турецьки", "по турецьки"): their literal names the targets of both."""

    alphabet: Alphabet
    targets: tuple[np.ndarray, np.ndarray]  # literal -> targets, laid out like PatternSet.origin_csr
    length: np.ndarray  # bytes, the two framing spaces included
    capitalised: np.ndarray  # bool: only counts written with a capital first letter
    acronym: np.ndarray  # bool: only counts written in upper case
    database: object = field(repr=False)


def folded_literals(patterns: PatternSet, alphabet: Alphabet) -> dict[tuple[bytes, bool, bool], set[int]]:
    """(literal, case-sensitive, acronym) -> targets, in literal id order: every surface folded with `alphabet`
    and framed by the spaces that make it whole-word (bench/corpus.py `--matchers` feeds the same literals to other
    matchers)."""
    merged: dict[tuple[bytes, bool, bool], set[int]] = {}
    for surface, targets, sensitive, acronym in zip(
        patterns.surfaces, patterns.pattern_targets, patterns.case_sensitive, patterns.acronym, strict=True
    ):
        folded = alphabet.encode(surface)
        if folded:
            merged.setdefault((b" " + folded + b" ", sensitive, acronym), set()).update(targets)
    return {key: merged[key] for key in sorted(merged)}


def compile_literals(patterns: PatternSet) -> Literals:
    """Fold every surface with the patterns' alphabet and compile one Hyperscan block-mode literal database."""
    import hyperscan

    alphabet = Alphabet.of(patterns.surfaces)
    merged = folded_literals(patterns, alphabet)
    keys = list(merged)
    lengths = np.array([len(targets) for targets in (merged[k] for k in keys)], dtype=np.int64)
    starts = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    flat = np.fromiter((t for k in keys for t in sorted(merged[k])), dtype=np.int64, count=int(starts[-1]))
    expressions = [k[0] for k in keys]
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    if expressions:
        database.compile(
            expressions=expressions,
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=[0] * len(expressions),
            literal=True,
        )
    return Literals(
        alphabet=alphabet,
        targets=(starts, flat),
        length=np.array([len(e) for e in expressions], dtype=np.int64),
        capitalised=np.array([k[1] and not k[2] for k in keys], dtype=bool),
        acronym=np.array([k[2] for k in keys], dtype=bool),
        database=database,
    )
