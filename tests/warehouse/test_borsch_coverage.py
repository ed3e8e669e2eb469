"""BORSch §2's statistic, "WorldCuisines' dishes from Russia and Ukraine cover only 20.8% of BORSch's"
(marts/116_borsch_worldcuisines_coverage.sql), from hand-written dish links: per BORSch file and over both with a
parallel pair counted once, the paper's rule (linked to a WorldCuisines dish of Russian or Ukrainian origin) beside
ours (linked to any WorldCuisines dish)."""

from __future__ import annotations

import duckdb
import pytest

from warehouse.marts import MARTS

DISHES = [  # dish_key, dataset, lang, origins
    ("borsch:ru:1", "borsch", "ru", "RU,UA"),  # pair 7 with uk:1; linked to a Russian WorldCuisines dish
    ("borsch:uk:1", "borsch", "uk", "UA"),
    ("borsch:ru:2", "borsch", "ru", "RU"),  # linked to a WorldCuisines dish of another origin only
    ("borsch:uk:3", "borsch", "uk", "UA"),  # not linked
    ("borsch:ru:4", "borsch", "ru", "GE"),  # not Russian or Ukrainian: not counted
    ("worldcuisines:en:10", "worldcuisines", "en", "RU"),
    ("worldcuisines:en:11", "worldcuisines", "en", "PL"),
]
LINKS = [("worldcuisines:en:10", "borsch:ru:1"), ("borsch:ru:2", "worldcuisines:en:11"), ("borsch:ru:1", "borsch:uk:1")]


@pytest.fixture
def con():
    connection = duckdb.connect()
    connection.execute("CREATE SCHEMA core; CREATE SCHEMA marts")
    connection.execute("CREATE TABLE core.dishes (dish_key TEXT, dataset TEXT, lang TEXT)")
    connection.execute("CREATE TABLE core.dish_origins (dish_key TEXT, country TEXT)")
    connection.execute("CREATE TABLE core.dish_links (dish_key TEXT, linked_dish_key TEXT)")
    connection.execute("CREATE TABLE core.parallel_dishes (pair_id INTEGER, ru_dish_key TEXT, uk_dish_key TEXT)")
    connection.execute("INSERT INTO core.parallel_dishes VALUES (7, 'borsch:ru:1', 'borsch:uk:1')")
    for key, dataset, lang, origins in DISHES:
        connection.execute("INSERT INTO core.dishes VALUES (?, ?, ?)", [key, dataset, lang])
        for country in origins.split(","):
            connection.execute("INSERT INTO core.dish_origins VALUES (?, ?)", [key, country])
    connection.executemany("INSERT INTO core.dish_links VALUES (?, ?)", LINKS)
    yield connection
    connection.close()


def test_the_share_counts_borsch_dishes_linked_to_a_russian_or_ukrainian_worldcuisines_dish(
    con: duckdb.DuckDBPyConnection,
) -> None:
    con.execute(MARTS["116_borsch_worldcuisines_coverage"].source)
    rows = con.execute(
        "SELECT scope, n_dishes, n_covered, share, n_linked_any, share_linked_any, published, n_worldcuisines_dishes "
        "FROM marts.borsch_worldcuisines_coverage"
    ).fetchall()
    assert rows == [
        # the pair counts once and is covered through its Russian record; ru:2's link is to a Polish dish
        ("all", 3, 1, pytest.approx(1 / 3), 2, pytest.approx(2 / 3), 0.208, 2),
        ("ru", 2, 1, 0.5, 2, 1.0, 0.208, 2),
        ("uk", 2, 0, 0.0, 0, 0.0, 0.208, 2),  # uk:1 is linked only to its Russian record, not to WorldCuisines
    ]
