"""CultureMix-Real (§5.1) in the CultureMix folder: real photos with a crop box per food, same- or cross-culture;
each food becomes a boxed REAL item and a cropped SF item, its photo's other foods its distractors."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from pipeline.datasets.culturemix import SAMPLE_COLUMNS
from tests.helpers import query, run_cli

RED, BLUE, GREEN = (200, 30, 30), (30, 30, 200), (30, 160, 30)


def make_source(root: Path, box: str = "200 0 400 200") -> Path:
    """A CultureMix folder holding only CultureMix-Real: two photos of two foods each."""
    (root / "real").mkdir(parents=True, exist_ok=True)
    (root / "images.csv").write_text(",".join(SAMPLE_COLUMNS) + "\n", encoding="utf-8")
    for name, (left, right) in {"cross.png": (RED, BLUE), "same.png": (BLUE, GREEN)}.items():
        photo = Image.new("RGB", (400, 200), left)
        photo.paste(right, (200, 0, 400, 200))
        photo.save(root / "real" / name)
    (root / "real" / "real.csv").write_text(
        "photo,culture,food_name,food_country,box\n"
        "cross.png,cross,Kimchi,South Korea,0 0 200 200\n"
        f"cross.png,cross,Pizza,Italy,{box}\n"
        "same.png,same,Pizza,Italy,0 0 200 200\n"
        "same.png,same,Lasagna,Italy,200 0 400 200\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("real")
    warehouse = root / "wh" / "warehouse.duckdb"
    run_cli(warehouse, "ingest", "culturemix", "--source", str(make_source(root / "src")))
    return warehouse


def test_each_food_is_a_boxed_real_item_and_a_cropped_sf_item(loaded: Path) -> None:
    rows = query(
        loaded,
        """SELECT image, subtask, real_culture, target_food_name, target_country, distractor_food_name,
                  distractor_country, distance, crop_box
           FROM core.culturemix_images WHERE subset = 'real' ORDER BY image""",
    )
    assert rows == [
        ("real/cross.png#box0", "REAL", "cross", "Kimchi", "KR", "Pizza", "IT", "other_continent", [0, 0, 200, 200]),
        ("real/cross.png#box1", "REAL", "cross", "Pizza", "IT", "Kimchi", "KR", "other_continent", [200, 0, 400, 200]),
        ("real/cross.png#crop0", "SF", "cross", "Kimchi", "KR", None, None, None, [0, 0, 200, 200]),
        ("real/cross.png#crop1", "SF", "cross", "Pizza", "IT", None, None, None, [200, 0, 400, 200]),
        ("real/same.png#box0", "REAL", "same", "Pizza", "IT", "Lasagna", "IT", "same_country", [0, 0, 200, 200]),
        ("real/same.png#box1", "REAL", "same", "Lasagna", "IT", "Pizza", "IT", "same_country", [200, 0, 400, 200]),
        ("real/same.png#crop0", "SF", "same", "Pizza", "IT", None, None, None, [0, 0, 200, 200]),
        ("real/same.png#crop1", "SF", "same", "Lasagna", "IT", None, None, None, [200, 0, 400, 200]),
    ]  # fmt: skip
    items = query(
        loaded,
        """SELECT i.task_id, i.subset, count(*), count(g.country), count(ii.image_id) FROM core.items i
           LEFT JOIN core.item_gold_countries g USING (item_id) LEFT JOIN core.item_images ii USING (item_id)
           GROUP BY ALL ORDER BY ALL""",
    )
    assert items == [("culturemix.real", "real", 4, 4, 4), ("culturemix.sf", "real", 4, 4, 4)]


def test_the_crop_shows_the_food_and_the_boxed_photo_marks_it(loaded: Path) -> None:
    files = dict(
        query(
            loaded,
            """SELECT c.image, im.local_path FROM core.culturemix_images c JOIN core.images im USING (image_id)
               WHERE c.photo = 'cross.png'""",
        )
    )
    crop = Image.open(files["real/cross.png#crop0"]).convert("RGB")
    assert crop.size == (200, 200) and crop.getcolors() == [(200 * 200, RED)]
    boxed = Image.open(files["real/cross.png#box1"]).convert("RGB")
    assert boxed.size == (400, 200)
    assert boxed.getpixel((201, 100)) == (230, 0, 0) and boxed.getpixel((300, 100)) == BLUE  # the box, the food
    assert boxed.getpixel((100, 100)) == RED  # the other food untouched
    assert Path(files["real/cross.png#crop0"]).parent.name == "culturemix-real"


def test_a_box_outside_the_photo_stops_the_load_with_its_line(tmp_path: Path) -> None:
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    source = make_source(tmp_path / "src")
    run_cli(warehouse, "ingest", "culturemix", "--source", str(source))
    make_source(source, box="200 0 401 200")
    result = run_cli(warehouse, "ingest", "culturemix", "--source", str(source), check=False)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "real.csv" in lines[0] and ":3" in lines[0] and "inside 400x200" in lines[0]
    for database in (warehouse, warehouse.with_name("warehouse.work.duckdb")):  # nothing lost, nothing half-loaded
        assert query(database, "SELECT count(*), count(DISTINCT crop_box) FROM core.culturemix_images") == [(8, 2)]
