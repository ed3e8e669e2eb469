"""Every real answer about one dish, beyond the questions asked about it, for the Dish page.

A dish is one entity across datasets: the record itself and every record linked to it (a link of
score >= 0.5 in marts.dish_links, followed through BORSch's RU<->UK pairs too: борщ ru 679 -> uk 422
-> WorldCuisines' Borscht). Answers about it are, in order of how directly they are about it:

1. answers to questions about any record of the group (`asked`: marts.origin_scores, name_scores);
2. dish-name answers that *named* a record of the group while shown another dish
   (marts.name_scores.named_dish_key: "Borscht" for a photo of Ukha);
3. origin answers that mention the dish by one of the group's names while answering about another
   dish ("This is borscht, a Ukrainian soup" for a photo of Vinegret), found by a whole-word,
   case-insensitive search for those names (Cyrillic names also with up to three letters of case
   ending: борща, борщом).

When no question was ever asked about the group (WorldCuisines' Borscht is in none of the answered
items), `nearest` lists the dishes closest to it that do have answers: those whose name contains
one of its names as a word (Зелений борщ, Холодний борщ), then WorldCuisines dishes of the same
category sharing an origin country (Ukha, Shchi, Solyanka for a Russian/Ukrainian soup).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from warehouse.queries import Source, _frame

MIN_NAME = 4  # shorter names ("Pho" aside) are words of other dishes' names too often
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_NO_SPACE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3\u0e00-\u0e7f]")


def group(source: Source, dish_key: str) -> list[str]:
    """The dish and every record linked to it, transitively (score >= 0.5), sorted."""
    frame = _frame(
        source,
        """
        WITH RECURSIVE reach(dish_key) AS (
            SELECT $dish_key
            UNION
            SELECT l.linked_dish_key FROM marts.dish_links l JOIN reach r ON l.dish_key = r.dish_key
            WHERE l.score >= 0.5
        )
        SELECT dish_key FROM reach ORDER BY dish_key
        """,
        {"dish_key": dish_key},
    )
    return frame["dish_key"].tolist()


def asked(source: Source, keys: Sequence[str]) -> pd.DataFrame:
    """How many answers were asked about each record of the group: dish_key, dataset, kind, n."""
    return _frame(
        source,
        """
        SELECT dish_key, dataset, 'origin' AS kind, count(*) AS n FROM marts.origin_scores
        WHERE list_contains($keys, dish_key) GROUP BY ALL
        UNION ALL
        SELECT dish_key, dataset, 'name', count(*) FROM marts.name_scores
        WHERE list_contains($keys, dish_key) GROUP BY ALL
        ORDER BY n DESC, dish_key
        """,
        {"keys": list(keys)},
    )


def named_it(source: Source, keys: Sequence[str]) -> pd.DataFrame:
    """Dish-name answers that named a record of the group while shown another dish."""
    return _frame(
        source,
        """
        SELECT dataset, task, model, lang, dish_key AS asked_dish_key, dish_name AS asked_about, prediction,
               named_name, named_dish_key, named_dish_name, item_id, generation_id
        FROM marts.name_scores
        WHERE list_contains($keys, named_dish_key) AND NOT list_contains($keys, dish_key)
        ORDER BY asked_about, model, lang, item_id
        """,
        {"keys": list(keys)},
    )


def names(source: Source, keys: Sequence[str]) -> list[str]:
    """The group's distinct names (any language, as written), longest first."""
    frame = _frame(
        source,
        "SELECT DISTINCT name FROM marts.dish_names WHERE list_contains($keys, dish_key)",
        {"keys": list(keys)},
    )
    unique = {name.strip(): None for name in frame["name"] if isinstance(name, str) and name.strip()}
    return sorted(unique, key=lambda name: (-len(name), name))


def _escaped_names(group_names: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(spaced, unspaced, bare): the usable names as RE2 text, case-folded, any whitespace between
    words; `spaced` with the Cyrillic case endings, `bare` every usable name without them."""
    spaced, unspaced, bare = [], [], []
    for name in group_names:
        if len(name) < MIN_NAME and not _NO_SPACE.search(name):
            continue
        escaped = re.escape(name.casefold()).replace(r"\ ", r"\s+")
        bare.append(escaped)
        if _NO_SPACE.search(name):
            unspaced.append(escaped)
        elif _CYRILLIC.search(name):
            spaced.append(escaped + r"\pL{0,3}")
        else:
            spaced.append(escaped)
    return spaced, unspaced, bare


def mention_pattern(group_names: list[str]) -> str | None:
    """One case-insensitive RE2 pattern for the names, whole words (no boundary in CJK, kana, Hangul
    or Thai), Cyrillic ones with up to three letters of case ending; None without a usable name."""
    spaced, unspaced, _ = _escaped_names(group_names)
    parts = []
    if spaced:
        parts.append(r"(?:^|[^\pL\pN])(?:" + "|".join(spaced) + r")(?:$|[^\pL\pN])")
    if unspaced:
        parts.append("(?:" + "|".join(unspaced) + ")")
    return "(?i)" + "|".join(parts) if parts else None


def mention_prefilter(group_names: list[str]) -> str | None:
    """A pattern every match of `mention_pattern` also matches (the names alone, no word boundaries
    or endings): RE2 runs it ~50x faster (its literal search applies), so the whole-word pattern
    only reads the few answers it lets through."""
    _, _, bare = _escaped_names(group_names)
    return "(?i)(?:" + "|".join(bare) + ")" if bare else None


def mentioned_it(source: Source, keys: Sequence[str], limit: int = 2000) -> pd.DataFrame:
    """Origin answers about other dishes that mention the group by name, with the countries they name
    and the gold of the dish they were asked about (n_total: all such answers, before `limit`)."""
    group_names = names(source, keys)
    pattern = mention_pattern(group_names)
    if pattern is None:
        return pd.DataFrame()
    return _frame(
        source,
        """
        WITH candidates AS MATERIALIZED (
            SELECT * FROM marts.origin_scores
            WHERE NOT list_contains($keys, dish_key) AND regexp_matches(response, $prefilter)
        )
        SELECT s.dataset, s.task, s.model, s.lang, s.dish_key AS asked_dish_key, d.display_name AS asked_about,
               s.gold AS asked_gold, s.predicted, s.status, s.response, s.item_id, s.generation_id,
               count(*) OVER () AS n_total
        FROM candidates s LEFT JOIN marts.dishes d USING (dish_key)
        WHERE regexp_matches(s.response, $pattern)
        ORDER BY s.dataset, asked_about, s.model, s.lang, s.item_id
        LIMIT $limit
        """,
        {"keys": list(keys), "pattern": pattern, "prefilter": mention_prefilter(group_names), "limit": limit},
    )


def nearest(source: Source, keys: Sequence[str], limit: int = 12) -> pd.DataFrame:
    """Dishes near the group that have answers (asked about them, or borrowed through a link):
    first those whose name holds one of the group's names as a word, then same-category dishes
    sharing an origin country; most answers first within each."""
    words = [re.escape(name.casefold()).replace(r"\ ", r"\s+") for name in names(source, keys)]
    words = [word for word in words if len(word) >= MIN_NAME]
    # one pattern for every name: a name of the group as a word (with a case ending) inside another name
    pattern = r"(?i)(?:^|[^\pL\pN])(" + "|".join(words or ["(?!)"]) + r")\pL{0,3}(?:$|[^\pL\pN])"
    return _frame(
        source,
        r"""
        WITH answered AS (
            SELECT dish_key, count(*) AS n FROM marts.origin_scores GROUP BY dish_key
            UNION ALL SELECT dish_key, count(*) FROM marts.name_scores GROUP BY dish_key
            UNION ALL SELECT dish_key, count(DISTINCT generation_id) FROM marts.linked_origin_answers GROUP BY dish_key
        ), answers AS (
            SELECT dish_key, sum(n)::BIGINT AS n_answers FROM answered GROUP BY dish_key
        ), by_name AS (
            SELECT dish_key, 1 AS rank, 'its name holds "' || min(regexp_extract(name, $pattern, 1)) || '"' AS relation
            FROM marts.dish_names
            WHERE regexp_matches(name, $pattern) AND NOT list_contains($keys, dish_key)
            GROUP BY dish_key
        ), group_facts AS (
            SELECT list(DISTINCT o.country) AS countries,
                   list(DISTINCT d.category) FILTER (d.category IS NOT NULL) AS categories
            FROM marts.dishes d LEFT JOIN core.dish_origins o USING (dish_key)
            WHERE list_contains($keys, d.dish_key)
        ), by_kind AS (
            SELECT d.dish_key, 2 AS rank,
                   'same category (' || d.category || '), shared origin '
                   || array_to_string(list_intersect(string_split(d.origins, ','), f.countries), ',') AS relation
            FROM marts.dishes d, group_facts f
            WHERE list_contains(f.categories, d.category)
              AND len(list_intersect(string_split(d.origins, ','), f.countries)) > 0
              AND NOT list_contains($keys, d.dish_key)
        ), candidates AS (
            SELECT * FROM by_name UNION ALL SELECT * FROM by_kind
        )
        SELECT c.dish_key, d.dataset, d.display_name, d.origins, a.n_answers, min_by(c.relation, c.rank) AS relation,
               min(c.rank) AS rank
        FROM candidates c
        JOIN answers a USING (dish_key)
        JOIN marts.dishes d USING (dish_key)
        GROUP BY c.dish_key, d.dataset, d.display_name, d.origins, a.n_answers
        ORDER BY rank, a.n_answers DESC, d.display_name
        LIMIT $limit
        """,
        {"keys": list(keys), "pattern": pattern, "limit": limit},
    )
