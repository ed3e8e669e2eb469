"""CultureMix-Real (CultureMix §5.1): real photos holding several foods, same-culture or cross-culture, each
food marked by a crop box. Loaded with the CultureMix dataset when its folder has `real/real.csv`:

    photo,culture,food_name,food_country,box
    table01.jpg,cross,Kimchi,South Korea,10 20 200 180
    table01.jpg,cross,Pizza,Italy,220 15 400 190

one row per food (`box`: left top right bottom, in pixels of the photo under `real/`). Each row becomes two
items, as §5.2 evaluates them: the photo with a red box around that food (task culturemix.real, "the food in
the red bounding box") and the food cropped out alone (task culturemix.sf, subset `real`). The other foods of
the same photo are its distractors. The boxed photos and crops are drawn once into `images/culturemix-real/`
beside the warehouse, named by content hash. Bad rows stop the load with the file and line.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipeline.core.errors import DataError
from pipeline.reference.cultural_distance import cultural_distance, great_circle_km

REAL_FILE = Path("real") / "real.csv"
COLUMNS = ["photo", "culture", "food_name", "food_country", "box"]
CULTURES = ("same", "cross")


@dataclass(frozen=True)
class RealFood:
    """One food of one real photo."""

    photo: str
    index: int  # its position among the photo's foods
    culture: str
    food_name: str
    country: str | None
    box: tuple[int, int, int, int]
    line: int

    @property
    def food_id(self) -> str:
        return "real-" + re.sub(r"[^a-z0-9]+", "-", self.food_name.lower()).strip("-")


def files(root: Path) -> list[Path]:
    """The real-photo table when the folder has one (part of the dataset's change check)."""
    return [root / REAL_FILE] if (root / REAL_FILE).is_file() else []


def read(root: Path, resolve_country) -> list[RealFood]:
    """The rows of real/real.csv; a DataError naming the file and line of the first bad one."""
    import polars as pl
    from PIL import Image

    path = root / REAL_FILE
    try:
        rows = pl.read_csv(path, infer_schema_length=0).to_dicts()
    except Exception as exc:
        raise DataError(path, f"cannot read as CSV: {exc}") from exc
    if rows and (missing := [c for c in COLUMNS if c not in rows[0]]):
        raise DataError(path, f"wrong column set: missing {missing}", line=1)
    foods, counts, sizes = [], {}, {}
    for line, row in enumerate(rows, start=2):
        photo, culture = (row["photo"] or "").strip(), (row["culture"] or "").strip().lower()
        if culture not in CULTURES:
            raise DataError(path, f"culture must be same or cross, not {row['culture']!r}", line=line)
        file = root / "real" / photo
        if not photo or not file.is_file():
            raise DataError(path, f"photo {photo!r} is not in {root / 'real'}", line=line)
        if photo not in sizes:
            with Image.open(file) as image:
                sizes[photo] = image.size
        try:
            box = tuple(int(v) for v in (row["box"] or "").replace(",", " ").split())
        except ValueError:
            box = ()
        width, height = sizes[photo]
        if len(box) != 4 or not (0 <= box[0] < box[2] <= width and 0 <= box[1] < box[3] <= height):
            raise DataError(path, f"box {row['box']!r} is not left top right bottom inside {width}x{height}", line=line)
        name = (row["food_name"] or "").strip()
        if not name:
            raise DataError(path, "no food_name", line=line)
        foods.append(RealFood(photo, counts.get(photo, 0), culture, name, resolve_country(row["food_country"]), box,
                              line))  # fmt: skip
        counts[photo] = counts.get(photo, 0) + 1
    return foods


def _store(con: duckdb.DuckDBPyConnection) -> Path:
    database = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
    return Path(database[0]).parent / "images" / "culturemix-real"


def _save(picture, store: Path) -> tuple[str, Path]:
    """The PNG under its content hash (written once, atomically); (sha256, path)."""
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=1)
    data = buffer.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    path = store / f"{digest[:32]}.png"
    if not path.is_file():
        store.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".part-{os.getpid()}")
        partial.write_bytes(data)
        os.replace(partial, path)
    return digest, path


def image_rows(con: duckdb.DuckDBPyConnection, root: Path, foods: list[RealFood]) -> list[dict]:
    """For each food, its boxed photo (REAL) and its crop (SF): core.culturemix_images rows plus the file
    (`_path`, `_sha256`, `_size`) each one shows."""
    from PIL import Image

    store = _store(con)
    by_photo: dict[str, list[RealFood]] = {}
    for food in foods:
        by_photo.setdefault(food.photo, []).append(food)
    rows = []
    for photo, members in sorted(by_photo.items()):
        with Image.open(root / "real" / photo) as opened:
            picture = opened.convert("RGB")
        for food in members:
            others = [o for o in members if o is not food]
            other = others[0] if others else None
            shared = {
                "origin": "dataset", "subset": "real", "target_food_id": food.food_id,
                "target_food_name": food.food_name, "target_country": food.country, "source_line": food.line,
                "source_file": REAL_FILE.as_posix(), "real_culture": food.culture, "photo": photo,
                "crop_box": list(food.box),
            }  # fmt: skip
            boxed_sha, boxed_path = _save(red_box(picture, food.box), store)
            distance = cultural_distance(food.country, other.country) if other else None
            rows.append({
                **shared, "image": f"real/{photo}#box{food.index}", "subtask": "REAL", "distractor_kind": "cultural",
                "distractor_food_name": other.food_name if other else None,
                "distractor_country": other.country if other else None, "distance_food": distance,
                "distance": distance, "km_food": great_circle_km(food.country, other.country) if other else None,
                "_sha256": boxed_sha, "_path": boxed_path, "_size": picture.size,
            })  # fmt: skip
            crop = picture.crop(food.box)
            crop_sha, crop_path = _save(crop, store)
            rows.append({
                **shared, "image": f"real/{photo}#crop{food.index}", "subtask": "SF", "distractor_kind": "none",
                "_sha256": crop_sha, "_path": crop_path, "_size": crop.size,
            })  # fmt: skip
    return rows


def red_box(image, box: tuple[int, int, int, int], width: int = 5):
    """The image with a red rectangle around `box` (left, top, right, bottom): how CultureMix marks the target
    in a real photo (and `compose` in its REAL composites)."""
    from PIL import ImageDraw

    out = image.copy()
    ImageDraw.Draw(out).rectangle(box, outline=(230, 0, 0), width=width)
    return out
