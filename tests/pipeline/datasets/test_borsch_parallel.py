"""BORSch's parallel subset as published (§3, §4.1): every pair of PARALLEL_RU_UK.xlsx asked in both
languages (a one-sided pair by its name in the other language), and a VQA prompt shows every available
photo of the pair, both languages' folders, up to 10."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from PIL import Image

from pipeline.datasets.base import MAX_IMAGES, ItemsRequest
from pipeline.datasets.borsch import items
from pipeline.tasks import get_task


@pytest.fixture
def con(borsch_warehouse: Path):
    connection = duckdb.connect(str(borsch_warehouse))
    yield connection
    connection.close()


def test_every_pair_is_asked_in_both_languages(con: duckdb.DuckDBPyConnection) -> None:
    task = get_task("borsch.origin_qa")
    pairs = con.execute("SELECT count(*) FROM core.parallel_dishes").fetchone()[0]
    asked = {lang: items(con, ItemsRequest(task, lang, subset="parallel")).ready for lang in ("ru", "uk")}
    for lang, ready in asked.items():
        side = f"{lang}_dish_key"
        # one question per distinct dish of this side, plus one per pair without a dish in this language
        distinct, missing = con.execute(
            f"SELECT count(DISTINCT {side}), count(*) FILTER ({side} IS NULL) FROM core.parallel_dishes"
        ).fetchone()
        assert len(ready) == distinct + missing
        assert len({item.item_id for item in ready}) == len(ready)
    assert len(asked["ru"]) == pairs  # no Russian dish is in two pairs
    # a pair with only a Russian ID (ПОДЖАРКА) is asked in Ukrainian by its Ukrainian name
    ru_key, uk_name = con.execute(
        "SELECT ru_dish_key, uk_name FROM core.parallel_dishes WHERE ru_name = 'ПОДЖАРКА'"
    ).fetchone()
    (other_side,) = [item for item in asked["uk"] if item.dish_key == ru_key]
    assert other_side.dish_name == uk_name and ":pair" in other_side.item_id
    gold = con.execute(
        "SELECT list(country ORDER BY country) FROM core.item_gold_countries WHERE item_id = ?", [other_side.item_id]
    ).fetchone()[0]
    assert (
        gold
        and gold
        == con.execute(
            "SELECT list(country ORDER BY country) FROM core.dish_origins WHERE dish_key = ?", [ru_key]
        ).fetchone()[0]
    )


def test_vqa_shows_the_photos_of_both_sides_of_the_pair_up_to_ten(con: duckdb.DuckDBPyConnection, tmp_path: Path):
    ru_key, uk_key = con.execute(
        "SELECT ru_dish_key, uk_dish_key FROM core.parallel_dishes WHERE ru_dish_key IS NOT NULL "
        "AND uk_dish_key IS NOT NULL ORDER BY pair_id LIMIT 1"
    ).fetchone()
    for key, count, colour in ((ru_key, 7, "red"), (uk_key, 6, "blue")):
        lang, dish_id = key.split(":")[1:]
        folder = tmp_path / lang.upper() / "images" / dish_id
        folder.mkdir(parents=True)
        for n in range(count):
            Image.new("RGB", (4, 4), (n * 20, 0, 0) if colour == "red" else (0, 0, n * 20)).save(folder / f"{n}.jpg")
    task = get_task("borsch.origin_vqa")
    for lang, key, own in (("uk", uk_key, 6), ("ru", ru_key, 7)):
        ready = items(con, ItemsRequest(task, lang, subset="parallel", images_dir=tmp_path)).ready
        (item,) = [i for i in ready if i.dish_key == key]
        assert len(item.images) == MAX_IMAGES
        # the prompt language's own photos first, then the other side's
        assert all(p.parts[-4] == lang.upper() for p in item.images[:own])
        assert all(p.parts[-4] != lang.upper() for p in item.images[own:])
