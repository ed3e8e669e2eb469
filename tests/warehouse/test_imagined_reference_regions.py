"""BORSch §5's real-photo reference (marts/112_imagined_reference.sql) and Fig. 8 by origin region
(marts/113_imagined_regions.sql), built from small hand-written tables: pair means, the regions a dish of several
origins counts in, and origins outside the Post-Soviet states by continent."""

from __future__ import annotations

import duckdb
import pytest

from warehouse.marts import MARTS


def run_mart(con: duckdb.DuckDBPyConnection, file: str) -> None:
    con.execute(MARTS[file.removesuffix(".sql")].source)


@pytest.fixture
def con():
    connection = duckdb.connect()
    connection.execute("CREATE SCHEMA core; CREATE SCHEMA marts")
    connection.execute(
        "CREATE TABLE core.dishes AS SELECT * FROM (VALUES ('borsch:ru:1', 'borsch', 'ru', '1', 'Борщ'), "
        "('borsch:ru:2', 'borsch', 'ru', '2', 'Плов'), ('borsch:ru:3', 'borsch', 'ru', '3', 'Кыстыбый')) "
        "AS t(dish_key, dataset, lang, dish_id, display_name)"
    )
    yield connection
    connection.close()


def test_the_reference_is_the_mean_over_photo_pairs_beside_the_papers_values(con: duckdb.DuckDBPyConnection) -> None:
    # dish 1: three photos (3 intra pairs), dish 2: one photo; 4 photos, so 3 inter pairs (each photo of 1 with 2)
    con.execute(
        "CREATE TABLE core.real_image_similarities AS SELECT * FROM (VALUES "
        "('p1', 'borsch:ru:1', 'dino', 'h', 0.5, 0.1, 2, 1, 2), ('p2', 'borsch:ru:1', 'dino', 'h', 0.6, 0.2, 2, 1, 2), "
        "('p3', 'borsch:ru:1', 'dino', 'h', 0.7, 0.0, 2, 1, 2), ('p4', 'borsch:ru:2', 'dino', 'h', NULL, 0.1, 0, 3, 2)"
        ") AS t(image_id, dish_key, encoder, encoder_hash, intra_cosine, inter_cosine, n_intra, n_inter, scope_dishes)"
    )
    run_mart(con, "112_imagined_reference.sql")
    row = con.execute(
        "SELECT n_dishes, n_photos, n_dishes_with_pairs, n_intra_pairs, n_inter_pairs, intra_mean, inter_mean, "
        "paper_intra_mean, paper_inter_mean FROM marts.imagined_reference"
    ).fetchall()
    assert row == [(2, 4, 1, 3, 3, pytest.approx(0.6), pytest.approx((0.1 + 0.2 + 0.0 + 0.3) / 6), 0.52, 0.07)]
    photos = con.execute("SELECT image_id, lang, display_name FROM marts.imagined_reference_photos").fetchall()
    assert photos[0] == ("p1", "ru", "Борщ") and len(photos) == 4


def test_fig8_groups_dishes_by_the_papers_post_soviet_regions_and_other_origins_by_continent(
    con: duckdb.DuckDBPyConnection,
) -> None:
    con.execute(
        "CREATE TABLE core.dish_origins AS SELECT * FROM (VALUES ('borsch:ru:1', 'UA'), ('borsch:ru:1', 'RU'), "
        "('borsch:ru:2', 'UZ'), ('borsch:ru:2', 'TR'), ('borsch:ru:3', 'LT')) AS t(dish_key, country)"
    )
    con.execute(
        "CREATE TABLE core.country_continents AS SELECT * FROM (VALUES ('TR', 'Asia'), ('UA', 'Europe')) "
        "AS t(country, continent)"
    )
    con.execute(
        "CREATE TABLE marts.imagined AS SELECT * FROM (VALUES "
        "('m', 'borsch', 'ru', 'dino', 'borsch:ru:1', '1', 'Борщ', 0.4, 0.1), "
        "('m', 'borsch', 'ru', 'dino', 'borsch:ru:1', '1', 'Борщ', 0.2, 0.1), "
        "('m', 'borsch', 'ru', 'dino', 'borsch:ru:2', '2', 'Плов', 0.9, 0.3), "
        "('m', 'borsch', 'ru', 'dino', 'borsch:ru:3', '3', 'Кыстыбый', NULL, NULL)"
        ") AS t(model, dataset, lang, encoder, dish_key, dish_id, display_name, intra_cosine, inter_cosine)"
    )
    run_mart(con, "113_imagined_regions.sql")
    cells = con.execute(
        "SELECT region, n_dishes, n_images, intra_mean FROM marts.imagined_regions ORDER BY region_order, region"
    ).fetchall()
    assert cells == [
        ("Eastern Europe (Russia, Ukraine, Belarus, Moldova)", 1, 2, pytest.approx(0.3)),  # RU and UA: one dish once
        ("Central Asia", 1, 1, pytest.approx(0.9)),
        ("Outside the Post-Soviet states: Asia", 1, 1, pytest.approx(0.9)),  # plov's second origin, Turkey
    ]  # the Lithuanian dish has no compared image: no Baltic cell rather than an invented one
    dishes = con.execute("SELECT dish_key, countries FROM marts.imagined_region_dishes WHERE region LIKE 'East%'")
    assert dishes.fetchall() == [("borsch:ru:1", "RU,UA")]
