"""Which distractor foods a CultureMix target is paired with, as CultureMix §2.3 ("Food Combinations") builds
them: stratified by cultural distance at three levels — the same country, another country of the same
continent, another continent — and by difficulty, read from the single-food (SF) answers of any baseline
models stored in the warehouse: *easy* when every baseline model named the food's country, *hard* when none
did, *mixed* in between; *unknown* when no baseline answered (the compose command says so).

The project's earlier rule (a seeded uniform draw) is kept beside it as `random`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from pipeline.reference.cultural_distance import DISTANCES, cultural_distance

PAIRINGS = ("stratified", "random")
DIFFICULTIES = ("easy", "hard", "mixed", "unknown")


@dataclass(frozen=True)
class Candidate:
    """A food that can be paired: its key, its country and its difficulty."""

    dish_key: str
    country: str | None
    difficulty: str = "unknown"


def difficulties(con: duckdb.DuckDBPyConnection, dish_keys: Sequence[str]) -> dict[str, str]:
    """easy / hard / mixed per dish from the scored answers to its SF items (culturemix.sf), one vote per model:
    a model counts as correct on a food when its mean country accuracy there is at least one half. Dishes no
    model answered are left out (their difficulty is unknown)."""
    rows = con.execute(
        """
        WITH per_model AS (
            SELECT i.dish_key, g.model_id, avg(s.value) >= 0.5 AS correct
            FROM core.generations g
            JOIN core.items i USING (item_id)
            JOIN core.scores s ON s.generation_id = g.generation_id AND s.metric = 'accuracy'
            WHERE i.task_id = 'culturemix.sf' AND s.value IS NOT NULL AND i.dish_key IN (SELECT unnest(?))
            GROUP BY ALL
        )
        SELECT dish_key, bool_and(correct), bool_or(correct) FROM per_model GROUP BY dish_key
        """,
        [list(dish_keys)],
    ).fetchall()
    return {key: "easy" if every else "hard" if not some else "mixed" for key, every, some in rows}


def choose(target: Candidate, others: Sequence[Candidate], count: int, pairing: str, seed: int) -> list[Candidate]:
    """`count` distractors for `target`. `stratified`: round robin over the three distance levels (nearest first),
    and within a level over the difficulties, each bucket in a seeded order, so every level and difficulty the
    candidates offer is represented before any repeats; candidates of unknown distance come last. `random`: a
    seeded uniform draw (the project's earlier rule)."""
    if pairing not in PAIRINGS:
        raise ValueError(f"unknown pairing {pairing!r}; known: {', '.join(PAIRINGS)}")
    rng = random.Random(f"{seed}:{target.dish_key}")
    pool = sorted(others, key=lambda c: c.dish_key)
    if pairing == "random":
        return rng.sample(pool, min(count, len(pool)))
    buckets: dict[str, dict[str, list[Candidate]]] = {}
    for candidate in pool:
        level = cultural_distance(target.country, candidate.country) or "unknown"
        buckets.setdefault(level, {}).setdefault(candidate.difficulty, []).append(candidate)
    for by_difficulty in buckets.values():
        for members in by_difficulty.values():
            rng.shuffle(members)
    levels = [level for level in (*DISTANCES, "unknown") if level in buckets]
    turn = {level: 0 for level in levels}
    chosen: list[Candidate] = []
    while len(chosen) < count and any(any(b.values()) for b in buckets.values()):
        for level in levels:
            if len(chosen) >= count:
                break
            offered = [d for d in DIFFICULTIES if buckets[level].get(d)]
            if not offered:
                continue
            difficulty = offered[turn[level] % len(offered)]
            turn[level] += 1
            chosen.append(buckets[level][difficulty].pop())
    return chosen
