"""Dish identity: which records of different datasets name the same dish.

BORSch names a dish in Russian or Ukrainian, WorldCuisines in English with aliases in many
languages (kb/food_name_multiling.csv, Wikipedia interlanguage titles). The `link` step compares
every name of every BORSch dish with every name of every WorldCuisines dish and keeps, per pair of
dishes, the strongest evidence:

- `parallel`: BORSch's own RU<->UK pair (PARALLEL_RU_UK.xlsx), score 1;
- `exact`: the same normalised name in the same language (BORSch "борщ" = WorldCuisines' Russian
  alias "Борщ");
- `alias`: the same normalised name, found among the aliases of another language (a Kazakh or
  Bashkir alias spelled like the Russian name);
- `translit`: the BORSch name transliterated to Latin letters equals a Latin-script name
  ("пельмени" -> "pelmeni" = "Pelmeni");
- `fuzzy`: rapidfuzz `ratio` of at least `FUZZY_THRESHOLD` between a BORSch name and a name in the
  same script, or between the transliteration and a Latin name (score = ratio / 100).

An exact, alias, transliterated or fuzzy-matched name that several WorldCuisines dishes share
(Wikipedia's "Суши" article is the alias of six sushi dishes) links to each of them with score
1/k, so a review can sort those out and a unique name or a matching transliteration wins. Gold
origins are not compared here: each dataset keeps its own (marts.dish_origin_disagreements shows
where they differ).

No transliteration library is installed with the project, so `TRANSLIT` is a small table of the
common English-language romanisations (BGN/PCGN-like, Ukrainian per its 2010 national system);
it only has to make a Cyrillic name comparable with the spellings WorldCuisines uses.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass

import duckdb
import polars as pl
from rapidfuzz import fuzz, process

from pipeline.datasets.common import already_loaded, record_source
from warehouse.io import new_run_id, transaction

LINKER = "dish_links@1"
FUZZY_THRESHOLD = 90.0
MIN_FUZZY_LENGTH = 5  # shorter names are too easily one edit apart ("плов"/"пилав")
METHOD_RANK = {"parallel": 0, "exact": 1, "alias": 2, "translit": 3, "fuzzy": 4}

_COMMON = {
    "а": "a", "б": "b", "в": "v", "д": "d", "е": "e", "ж": "zh", "з": "z", "й": "y", "к": "k",
    "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u",
    "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ь": "", "ю": "yu",
    "я": "ya", "'": "",
}  # fmt: skip
TRANSLIT: dict[str, dict[str, str]] = {
    "ru": {**_COMMON, "г": "g", "и": "i", "ы": "y", "э": "e", "ъ": "", "ё": "yo"},
    "uk": {**_COMMON, "г": "h", "ґ": "g", "и": "y", "і": "i", "ї": "yi", "є": "ye"},
}


def transliterate(name: str, lang: str) -> str:
    """A normalised Cyrillic name in Latin letters by `TRANSLIT[lang]` (Russian for other languages);
    characters outside the table are kept."""
    table = TRANSLIT.get(lang, TRANSLIT["ru"])
    return "".join(table.get(ch, ch) for ch in name)


def is_cyrillic(text: str) -> bool:
    return any("\u0400" <= ch <= "\u04ff" for ch in text)


def is_latin(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and all(ch.isascii() or "\u00c0" <= ch <= "\u024f" for ch in letters)


@dataclass(frozen=True)
class Name:
    dish_key: str
    lang: str
    name: str  # as given
    norm: str  # comparison form (pipeline.core.text.norm_name)
    primary: bool = False  # the dataset's own name of the dish (WorldCuisines: its English Name)


@dataclass(frozen=True)
class Link:
    dish_key: str
    linked_dish_key: str
    method: str
    score: float
    name: str
    linked_name: str
    name_lang: str
    linked_name_lang: str


def find_links(sources: list[Name], targets: list[Name], parallel: list[tuple[str, str]] = ()) -> list[Link]:
    """Every link between a `sources` dish and a `targets` dish (one direction, best evidence per pair
    first in the list of candidates), plus the given parallel pairs; see the module doc."""
    found: list[Link] = [Link(a, b, "parallel", 1.0, "", "", "", "") for a, b in parallel]
    by_norm: dict[str, list[Name]] = defaultdict(list)
    for target in targets:
        by_norm[target.norm].append(target)
    sharing = {norm: len({t.dish_key for t in names}) for norm, names in by_norm.items()}
    for source in sources:
        for target in by_norm.get(source.norm, ()):
            method = "exact" if target.lang == source.lang else "alias"
            found.append(_link(source, target, method, 1.0 / sharing[source.norm]))
    # transliteration: Cyrillic BORSch names against every Latin-script name
    latin = [t for t in targets if is_latin(t.norm)]
    latin_by_norm: dict[str, list[Name]] = defaultdict(list)
    for target in latin:
        latin_by_norm[target.norm].append(target)
    translits = [(s, transliterate(s.norm, s.lang)) for s in sources if is_cyrillic(s.norm)]
    for source, roman in translits:
        matches = latin_by_norm.get(roman, ())
        # "plov" is the English name of Plov and an alias of Pilaf and Chelow: the dish whose own
        # name it is wins outright; aliases alone share the score.
        primary = {t.dish_key for t in matches if t.primary}
        keys = {t.dish_key for t in matches}
        for target in matches:
            if primary:
                score = 1.0 / len(primary) if target.dish_key in primary else 1.0 / len(keys)
            else:
                score = 1.0 / len(keys)
            found.append(_link(source, target, "translit", score))
    # fuzzy: same script (Cyrillic with Cyrillic), and transliteration with Latin names
    cyrillic = [t for t in targets if is_cyrillic(t.norm)]
    found += _fuzzy([(s, s.norm) for s in sources if is_cyrillic(s.norm)], cyrillic)
    found += _fuzzy(translits, latin)
    return found


def _fuzzy(queries: list[tuple[Name, str]], choices: list[Name]) -> list[Link]:
    queries = [(s, q) for s, q in queries if len(q) >= MIN_FUZZY_LENGTH]
    choices = [c for c in choices if len(c.norm) >= MIN_FUZZY_LENGTH]
    if not queries or not choices:
        return []
    sharing: dict[str, set[str]] = defaultdict(set)
    for choice in choices:
        sharing[choice.norm].add(choice.dish_key)
    matrix = process.cdist(
        [q for _, q in queries], [c.norm for c in choices], scorer=fuzz.ratio, score_cutoff=FUZZY_THRESHOLD, workers=1
    )
    links = []
    rows, cols = matrix.nonzero()
    for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
        (source, query), target = queries[row], choices[col]
        if query != target.norm:  # equal names are exact, alias or translit links already
            score = float(matrix[row, col]) / 100.0 / len(sharing[target.norm])
            links.append(_link(source, target, "fuzzy", score))
    return links


def _link(source: Name, target: Name, method: str, score: float) -> Link:
    return Link(source.dish_key, target.dish_key, method, score, source.name, target.name, source.lang, target.lang)


def best_links(links: list[Link]) -> list[dict]:
    """One row per pair and direction: the best-scoring evidence (ties: the stricter method), with
    every method's best score as `evidence`."""
    by_pair: dict[tuple[str, str], list[Link]] = defaultdict(list)
    for link in links:
        by_pair[(link.dish_key, link.linked_dish_key)].append(link)
        by_pair[(link.linked_dish_key, link.dish_key)].append(
            Link(
                link.linked_dish_key,
                link.dish_key,
                link.method,
                link.score,
                link.linked_name,
                link.name,
                link.linked_name_lang,
                link.name_lang,
            )
        )
    rows = []
    for (a, b), candidates in by_pair.items():
        best = min(candidates, key=lambda c: (-c.score, METHOD_RANK[c.method]))
        evidence: dict[str, float] = {}
        for c in candidates:
            evidence[c.method] = max(evidence.get(c.method, 0.0), round(c.score, 4))
        rows.append(
            {
                "dish_key": a,
                "linked_dish_key": b,
                "method": best.method,
                "score": round(best.score, 4),
                "name": best.name or None,
                "linked_name": best.linked_name or None,
                "name_lang": best.name_lang or None,
                "linked_name_lang": best.linked_name_lang or None,
                "evidence": json.dumps(dict(sorted(evidence.items(), key=lambda kv: METHOD_RANK[kv[0]]))),
                "linker": LINKER,
            }
        )
    return sorted(rows, key=lambda r: (r["dish_key"], r["linked_dish_key"]))


def _names(con: duckdb.DuckDBPyConnection, dataset: str) -> list[Name]:
    rows = con.execute(
        """
        SELECT n.dish_key, n.lang, n.name, n.norm_name, n.is_primary
        FROM core.dish_names n JOIN core.dishes d USING (dish_key)
        WHERE d.dataset = ? AND n.norm_name <> ''
        ORDER BY n.dish_key, n.lang, n.norm_name
        """,
        [dataset],
    ).fetchall()
    return [Name(*row) for row in rows]


INPUTS_KIND = "dish_link_inputs"  # meta.source_files: the digest of what the links were last computed from


def link_dishes(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """The `link` step: recompute core.dish_links (its only writer) from the dishes now in the
    warehouse, in one transaction. Returns the number of directed links per method; nothing (an empty
    dict) when the names and pairs it reads are the ones the stored links were computed from: every
    `score` and `run` passes through here, and matching thousands of names takes seconds."""
    parallel = [
        tuple(p)
        for p in con.execute(
            "SELECT ru_dish_key, uk_dish_key FROM core.parallel_dishes "
            "WHERE ru_dish_key IS NOT NULL AND uk_dish_key IS NOT NULL ORDER BY pair_id"
        ).fetchall()
    ]
    borsch, worldcuisines = _names(con, "borsch"), _names(con, "worldcuisines")
    digest = hashlib.sha256(repr((LINKER, borsch, worldcuisines, parallel)).encode()).hexdigest()
    if already_loaded(con, digest, INPUTS_KIND):
        return {}
    rows = best_links(find_links(borsch, worldcuisines, parallel))
    with transaction(con):
        con.execute("DELETE FROM core.dish_links")
        if rows:
            frame = pl.DataFrame(rows, schema=_SCHEMA)
            con.register("_links", frame)
            con.execute("INSERT INTO core.dish_links BY NAME SELECT * FROM _links")
            con.unregister("_links")
        record_source(
            con,
            sha256=digest,
            kind=INPUTS_KIND,
            path="core.dish_names, core.parallel_dishes",
            rows_loaded=len(rows),
            run_id=new_run_id(),
        )
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        counts[row["method"]] += 1
    return dict(counts)


_SCHEMA = {
    "dish_key": pl.String,
    "linked_dish_key": pl.String,
    "method": pl.String,
    "score": pl.Float64,
    "name": pl.String,
    "linked_name": pl.String,
    "name_lang": pl.String,
    "linked_name_lang": pl.String,
    "evidence": pl.String,
    "linker": pl.String,
}
