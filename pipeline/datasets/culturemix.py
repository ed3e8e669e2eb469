"""CultureMix: does a model still recognise a food when another culture is in the picture?

Images show a target food alone (SF), beside another food (MF, the target on the left), on a
foreign background (SFB), or both (MFB). Two layouts are read:

- the project-page sample (`images.csv`: subset, subtask, image, target_food_id, target_food_name,
  target_country, distractor_food_name, distractor_country, background, gallery prompt/title/
  food_cue, source_path), as in ../shared/data/culturemix-sample;
- the full dataset on the Hugging Face hub (`EunsuKim/CultureMix`): metadata tables `sf`, `mf`,
  `sfb_street`, `sfb_landmark`, `mfb_street` (CSV) with `image_path, food1_id, food1_name,
  food1_country, food2_id, food2_name, food2_country, background_country`.

Labels are normalised, never guessed: English country names ("England" -> GB, "Usa" -> US; a UK
nation is also kept as such, "England" -> GB-ENG beside GB, and a target's nation is its item's
nation gold, as WorldCuisines does),
background labels ("Mexico1", "Unitedstates2": a country written without spaces and a variant
number), the gallery's combined cells ("647+1362", "2145 × sudan", "Primary: Krumiri (Poland);
secondary: Casoncelli"). Target foods are linked to WorldCuisines by food_id when the names agree,
else by name; everything that cannot be resolved is reported as a quirk.

The dataset module owns: its public files, ingest (the only writer of its dishes, items, gold,
images and quirks), and how its items become prompts (one item per image, the task's prompt
variants base / direct / cot).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import duckdb
import polars as pl

from pipeline.core import limits
from pipeline.core.errors import DataError, OfflineError
from pipeline.core.text import display_name, norm_name
from pipeline.datasets import DATASETS
from pipeline.datasets.base import Dataset, ItemInput, ItemsRequest, TaskItems
from pipeline.datasets.common import (
    DatasetInfo,
    IngestResult,
    Quirk,
    already_loaded,
    clean,
    dish_key,
    name_row,
    record_dataset,
    record_quirks,
    record_source,
    sha256_files,
)
from pipeline.extract.english import UnknownCountry, _english_index, resolve_english
from pipeline.reference.countries import resolve_uk_nation
from pipeline.reference.cultural_distance import cultural_distance, great_circle_km, nearest
from warehouse.io import insert, scalar, transaction

DATASET = DatasetInfo(
    dataset="culturemix",
    title="CultureMix: food recognition with culturally mixed scenes",
    home=(
        "sample: github.com/culturemix/culturemix.github.io@7bdb9775a2ef47becd7730acc07abb9ce38e595b; "
        "full: huggingface.co/datasets/EunsuKim/CultureMix"
    ),
    license="CC BY-SA 4.0",
)
HF_REPO = "EunsuKim/CultureMix"
SUBTASKS = ("SF", "MF", "SFB", "MFB", "REAL")
TASK_OF = {subtask: f"culturemix.{subtask.lower()}" for subtask in SUBTASKS}
# composed MF pairs flipped, the target on the right (pipeline/compose/variants.py)
EXTRA_TASKS = ("culturemix.mf_right",)
SAMPLE_FILE = "images.csv"
SAMPLE_COLUMNS = [
    "subset",
    "subtask",
    "image",
    "target_food_id",
    "target_food_name",
    "target_country",
    "distractor_food_name",
    "distractor_country",
    "background",
]
FULL_TABLES = {  # table -> (subtask, scene)
    "sf": ("SF", None),
    "mf": ("MF", None),
    "sfb_street": ("SFB", "street"),
    "sfb_landmark": ("SFB", "landmark"),
    "mfb_street": ("MFB", "street"),
}
FULL_COLUMNS = ["image_path", "food1_id", "food1_name", "food1_country", "background_country"]
FOOD2_COLUMNS = ["food2_id", "food2_name", "food2_country"]
FUZZY_LINK = 92  # rapidfuzz WRatio (0-100) above which a name is the same WorldCuisines dish
# The ingester's version, kept with the files' hash and WorldCuisines' size: a warehouse loaded by an
# older one is read again (2: UK nations kept beside GB).
INGESTER = "culturemix@2"
NO_SCENE = re.compile(r"^[—–-]?\s*\(?\s*white\s*/\s*no scene\s*\)?$", re.IGNORECASE)


@dataclass(frozen=True)
class CultureMixImage:
    """One image, normalised (a row of core.culturemix_images)."""

    image: str
    subset: str
    subtask: str
    target_food_id: str
    target_food_name: str
    target_country: str | None
    target_nation: str | None = None  # GB-ENG... where the label names a UK nation (target_country GB)
    scene: str | None = None
    distractor_kind: str = "none"
    distractor_food_name: str | None = None
    distractor_food_id: str | None = None
    distractor_country: str | None = None
    distractor_nation: str | None = None
    background_label: str | None = None
    background_country: str | None = None
    background_variant: int | None = None
    source_file: str = ""
    source_line: int = 0

    @property
    def distractor_countries(self) -> tuple[str, ...]:
        return tuple(c for c in (self.distractor_country, self.background_country) if c)


@dataclass
class Parsed:
    raw: list[dict] = field(default_factory=list)
    images: list[CultureMixImage] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    root: Path = Path(".")
    seen: dict[str, tuple[str, int]] = field(default_factory=dict)  # image -> where it was first read

    def add(self, image: CultureMixImage, file: str, line: int) -> None:
        """Keep `image`, unless an earlier row named the same image: that row is kept, this one is a rejected quirk
        (an image is one item)."""
        if image.image in self.seen:
            first = self.seen[image.image]
            why = f"image {image.image} already read at {first[0]}:{first[1]}: row left out"
            self.quirks.append(Quirk("culturemix", file, line, "duplicate_image", why, "rejected"))
            return
        self.seen[image.image] = (file, line)
        self.images.append(image)


# --- labels ----------------------------------------------------------------------------------


@functools.cache
def _squashed_index() -> dict[str, str]:
    """Country names with spaces and punctuation removed ("unitedstates" -> US), for the
    background labels, which are written that way."""
    return {re.sub(r"[^a-z]", "", name): code for name, code in _english_index().items()}


def resolve_country(name: str | None) -> str | None:
    """Alpha-2 code of an English country name or a squashed label ("Southkorea"); None when the
    cell is empty; UnknownCountry when it names no country we know."""
    text = clean(name)
    if not text:
        return None
    outer = re.fullmatch(r"(.+?)\s*\((.+)\)", text)  # 'United States Of America (Usa)'
    candidates = [text, *(outer.groups() if outer else ())]
    code = None
    for candidate in candidates:
        try:
            code = resolve_english(candidate)
            break
        except UnknownCountry:
            code = _squashed_index().get(re.sub(r"[^a-z]", "", candidate.casefold()))
            if code is not None:
                break
    else:
        raise UnknownCountry(f"unknown country name {text!r}")
    if code is None:
        raise UnknownCountry(f"{text!r} is not a country")
    return code


def parse_background(label: str | None) -> tuple[str | None, int | None]:
    """'Mexico1' -> ('MX', 1); 'Unitedstates2' -> ('US', 2); 'Spain' -> ('ES', None); '' -> (None, None).

    Raises UnknownCountry for a label naming no known country."""
    text = clean(label)
    if not text or NO_SCENE.match(text):
        return None, None
    match = re.fullmatch(r"(.*?)(\d+)?", text)
    name, number = match.group(1), match.group(2)  # type: ignore[union-attr]
    return resolve_country(name), int(number) if number else None


# --- reading ---------------------------------------------------------------------------------


def locate(source: Path) -> tuple[str, Path]:
    """('sample', images.csv folder) or ('full', folder of the metadata tables)."""
    for root in (source, source / "culturemix-sample", source / "culturemix"):
        if (root / SAMPLE_FILE).is_file():
            return "sample", root
        for folder in (root, root / "metadata", root / "data"):
            if any((folder / f"{table}.csv").is_file() for table in FULL_TABLES):
                return "full", folder
    raise DataError(
        source,
        f"no CultureMix tables: expected {SAMPLE_FILE} (the sample) or any of "
        f"{', '.join(t + '.csv' for t in FULL_TABLES)} (the full dataset; `data fetch culturemix` gets them)",
    )


def read(source: Path) -> Parsed:
    layout, root = locate(source)
    return read_sample(root) if layout == "sample" else read_full(root)


def _rows(path: Path, expected: list[str]) -> list[dict]:
    if not path.is_file():
        raise DataError(path, "file not found")
    limits.check_csv(path)
    try:
        frame = pl.read_csv(path, infer_schema_length=0)
    except Exception as exc:
        raise DataError(path, f"cannot read as CSV: {exc}") from exc
    missing = [c for c in expected if c not in frame.columns]
    if missing:
        raise DataError(path, f"wrong column set: missing {missing}; found {frame.columns}", line=1)
    return frame.to_dicts()


def read_sample(root: Path) -> Parsed:
    path = root / SAMPLE_FILE
    parsed = Parsed(files=[path], root=root)
    for line, record in enumerate(_rows(path, SAMPLE_COLUMNS), start=2):
        parsed.raw.append({"file": path.name, "row_number": line, "record": json.dumps(record, ensure_ascii=False)})
        image = _sample_image(record, path.name, line, parsed.quirks)
        if image is not None:
            parsed.add(image, path.name, line)
    return parsed


def read_full(root: Path) -> Parsed:
    parsed = Parsed(root=root)
    for table, (subtask, scene) in FULL_TABLES.items():
        path = root / f"{table}.csv"
        if not path.is_file():
            parsed.quirks.append(Quirk("culturemix", path.name, None, "missing_table", f"{path} not found", "warning"))
            continue
        parsed.files.append(path)
        expected = FULL_COLUMNS + (FOOD2_COLUMNS if subtask in ("MF", "MFB") else [])
        for line, record in enumerate(_rows(path, expected), start=2):
            parsed.raw.append({"file": path.name, "row_number": line, "record": json.dumps(record, ensure_ascii=False)})
            quirks = parsed.quirks
            where = (path.name, line)
            food_id = clean(record["food1_id"])
            image_path = clean(record["image_path"])
            if not food_id or not image_path:
                quirks.append(_quirk(where, "missing_field", "no image_path or food1_id: row left out", "rejected"))
                continue
            background_label = clean(record.get("background_country")) if subtask in ("SFB", "MFB") else ""
            image = CultureMixImage(
                image=image_path,
                subset="full",
                subtask=subtask,
                scene=scene,
                target_food_id=food_id,
                target_food_name=clean(record["food1_name"]),
                target_country=_country(record["food1_country"], where, "target_country", quirks),
                target_nation=_uk_nation(record["food1_country"]),
                distractor_kind="cultural" if subtask != "SF" else "none",
                distractor_food_id=clean(record.get("food2_id")) or None,
                distractor_food_name=clean(record.get("food2_name")) or None,
                distractor_country=_country(record.get("food2_country"), where, "distractor_country", quirks),
                distractor_nation=_uk_nation(record.get("food2_country")),
                source_file=path.name,
                source_line=line,
            )
            parsed.add(_with_background(image, background_label, where, quirks), path.name, line)
    if not parsed.files:
        raise DataError(root, "none of the CultureMix metadata tables is there")
    return parsed


def _quirk(where: tuple[str, int], kind: str, message: str, severity: str = "warning", raw: str = "") -> Quirk:
    return Quirk("culturemix", where[0], where[1], kind, message, severity, raw or None)


def _country(name: str | None, where: tuple[str, int], column: str, quirks: list[Quirk]) -> str | None:
    text = clean(name)
    try:
        code = resolve_country(text)
    except UnknownCountry:
        quirks.append(_quirk(where, "unresolved_country", f"{column} {text!r} names no known country", raw=text))
        return None
    if code is not None and text.casefold() not in (resolve_english_name(code), code.casefold()):
        quirks.append(_quirk(where, "country_spelling", f"{column} {text!r} read as {code}", "info", text))
    return code


def _uk_nation(name: str | None) -> str | None:
    """The UK nation a country cell names ("England" -> GB-ENG), else None; the cell's country
    (GB) is read by `_country` as for any other name."""
    return resolve_uk_nation(clean(name))


def resolve_english_name(code: str) -> str:
    """The CLDR English name, lower case (to tell a spelling variant from the plain name)."""
    from babel import Locale

    return str(Locale("en").territories.get(code, "")).casefold()


def _with_background(
    image: CultureMixImage, label: str, where: tuple[str, int], quirks: list[Quirk]
) -> CultureMixImage:
    if not label:
        return image
    try:
        country, variant = parse_background(label)
    except UnknownCountry:
        quirks.append(_quirk(where, "unresolved_background", f"background {label!r} names no known country", raw=label))
        return replace(image, background_label=label)
    if country is None:
        return image
    if variant is not None or label.casefold() != resolve_english_name(country):
        quirks.append(
            _quirk(where, "background_label", f"background {label!r} read as {country} variant {variant}", "info")
        )
    return replace(image, background_label=label, background_country=country, background_variant=variant)


GALLERY_PAIR = re.compile(r"^\s*(\d+)\s*\+\s*(\d+)\s*(?:×\s*(.+))?$")
GALLERY_SINGLE = re.compile(r"^\s*(\d+)\s*(?:×\s*(.+))?$")
GALLERY_NAMES = re.compile(r"^Primary:\s*(.+?)\s*\(([^)]*(?:\([^)]*\))?[^)]*)\);\s*secondary:\s*(.+)$")


def _sample_image(record: dict, file: str, line: int, quirks: list[Quirk]) -> CultureMixImage | None:
    where = (file, line)
    raw_subtask = clean(record["subtask"])
    subtask, _, scene = raw_subtask.partition("_")
    subtask = subtask.upper()
    if subtask not in SUBTASKS:
        quirks.append(_quirk(where, "unknown_subtask", f"subtask {raw_subtask!r} is none of {SUBTASKS}", "rejected"))
        return None
    image = clean(record["image"])
    food_cell = clean(record["target_food_id"])
    name_cell = clean(record["target_food_name"])
    background = clean(record["background"])
    distractor_name = clean(record["distractor_food_name"]) or None
    target_country_cell = clean(record["target_country"])
    distractor_country_cell = clean(record["distractor_country"])
    distractor_id = None
    pair = GALLERY_PAIR.match(food_cell)
    single = GALLERY_SINGLE.match(food_cell)
    if pair:
        # Gallery MF/MFB: "647+1362 [× background]" and "Primary: NAME (COUNTRY); secondary: NAME";
        # the page's target_country column holds the *secondary* food's country (see food_cue).
        food_id, distractor_id, background_from_id = pair.group(1), pair.group(2), pair.group(3)
        names = GALLERY_NAMES.match(name_cell)
        if not names:
            quirks.append(_quirk(where, "unparsed_names", f"cannot split {name_cell!r} into two foods", "rejected"))
            return None
        name_cell, target_country_cell, distractor_name = names.group(1), names.group(2), names.group(3)
        distractor_country_cell = clean(record["target_country"])
        quirks.append(
            _quirk(
                where,
                "gallery_pair",
                f"{food_cell!r}: target {food_id} ({target_country_cell}), distractor {distractor_id} "
                f"({distractor_country_cell}; the page's target_country column holds the second food's country)",
                "info",
            )
        )
    elif single:
        food_id, background_from_id = single.group(1), single.group(2)
    else:
        quirks.append(_quirk(where, "bad_food_id", f"target_food_id {food_cell!r} is not an id", "rejected"))
        return None
    if background_from_id and not background:
        background = background_from_id
    if name_cell.count("(") > name_cell.count(")"):  # 'Pepper jelly (United States Of America'
        cut = name_cell[: name_cell.index("(")].strip()
        quirks.append(_quirk(where, "truncated_name", f"name {name_cell!r} read as {cut!r}", "warning", name_cell))
        name_cell = cut
    target_country = _country(target_country_cell, where, "target_country", quirks)
    distractor_country = _country(distractor_country_cell, where, "distractor_country", quirks)
    has_food = subtask in ("MF", "MFB")
    if has_food and not distractor_name:
        quirks.append(_quirk(where, "missing_distractor", f"{subtask} image without a distractor food", "warning"))
    result = CultureMixImage(
        image=image,
        subset=clean(record["subset"]) or "sample",
        subtask=subtask,
        scene=scene.lower() or None,
        target_food_id=food_id,
        target_food_name=name_cell,
        target_country=target_country,
        target_nation=_uk_nation(target_country_cell),
        distractor_kind="cultural" if subtask != "SF" else "none",
        distractor_food_name=distractor_name if has_food else None,
        distractor_food_id=distractor_id,
        distractor_country=distractor_country if has_food else None,
        distractor_nation=_uk_nation(distractor_country_cell) if has_food else None,
        source_file=file,
        source_line=line,
    )
    if subtask in ("SFB", "MFB"):
        return _with_background(result, background, where, quirks)
    if background and not NO_SCENE.match(background):
        quirks.append(_quirk(where, "unexpected_background", f"{subtask} image with background {background!r}"))
    return result


# --- linking to WorldCuisines ----------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    dish_key: str | None
    how: str  # id | name | fuzzy | none


def worldcuisines_names(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str]]]:
    """norm name -> [(dish_key, name)] of every English WorldCuisines name in the warehouse."""
    rows = con.execute(
        "SELECT n.norm_name, n.dish_key, n.name FROM core.dish_names n JOIN core.dishes d USING (dish_key) "
        "WHERE d.dataset = 'worldcuisines' AND n.lang = 'en' ORDER BY n.dish_key"
    ).fetchall()
    index: dict[str, list[tuple[str, str]]] = {}
    for norm, key, name in rows:
        index.setdefault(norm, []).append((key, name))
    return index


def link_food(food_id: str | None, name: str, index: dict[str, list[tuple[str, str]]]) -> Link:
    """WorldCuisines dish of a CultureMix food: by food_id when that dish has this name, else by
    the name (exactly, then by close spelling), else none."""
    from rapidfuzz import fuzz, process

    norm = norm_name(name)
    if food_id:
        key = dish_key("worldcuisines", "en", food_id)
        if any(k == key for k, _ in index.get(norm, [])):
            return Link(key, "id")
    if norm in index:
        return Link(index[norm][0][0], "name")
    if norm and index:
        best = process.extractOne(norm, list(index), scorer=fuzz.WRatio, score_cutoff=FUZZY_LINK)
        if best is not None and fuzz.ratio(norm, best[0]) >= FUZZY_LINK:
            return Link(index[best[0]][0][0], "fuzzy")
    return Link(None, "none")


# --- ingest ----------------------------------------------------------------------------------


def image_rows(images: list[CultureMixImage]) -> list[dict]:
    """core.culturemix_images rows, with the cultural distance of each distractor."""
    rows = []
    for image in images:
        d_food = cultural_distance(image.target_country, image.distractor_country)
        d_background = cultural_distance(image.target_country, image.background_country)
        row = asdict(image)
        row.pop("distractor_food_id")
        row.update(
            origin="dataset",
            distance_food=d_food,
            distance_background=d_background,
            distance=nearest(d_food, d_background) if image.subtask != "SF" else None,
            km_food=great_circle_km(image.target_country, image.distractor_country),
            km_background=great_circle_km(image.target_country, image.background_country),
        )
        rows.append(row)
    return rows


def ingest(con: duckdb.DuckDBPyConnection, source: Path, run_id: str, force: bool = False) -> IngestResult:
    """Load a CultureMix folder (sample or full layout); all or nothing."""
    from pipeline.datasets import culturemix_real

    parsed = read(source)
    sha = sha256_files(parsed.files + culturemix_real.files(parsed.root))  # real/real.csv: CultureMix-Real
    linked_before = scalar(con, "SELECT count(*) FROM core.dishes WHERE dataset = 'worldcuisines'") or 0
    scope = f"{INGESTER};worldcuisines:{linked_before}"  # reload when WorldCuisines arrived since (links change)
    if not force and already_loaded(con, sha, "culturemix", scope):
        return IngestResult("culturemix", skipped=True)
    quirks = list(parsed.quirks)
    index = worldcuisines_names(con)
    if not index:
        quirks.append(
            Quirk(
                "culturemix",
                parsed.files[0].name,
                None,
                "worldcuisines_missing",
                "WorldCuisines is not in the warehouse: foods are not linked to its food_id "
                "(ingest worldcuisines first, then this dataset again)",
                "warning",
            )
        )
    links: dict[tuple[str, str], Link] = {}
    for image in parsed.images:
        where = (image.source_file, image.source_line)
        for food_id, name, role in (
            (image.target_food_id, image.target_food_name, "target"),
            (image.distractor_food_id, image.distractor_food_name, "distractor"),
        ):
            if not name or (food_id or "", name) in links:
                continue
            link = link_food(food_id, name, index) if index else Link(None, "none")
            links[(food_id or "", name)] = link
            if not index:
                continue
            if link.how == "none":
                message = f"{role} food {name!r} (id {food_id}) is not in WorldCuisines"
                quirks.append(_quirk(where, "unlinked_food", message))
            elif link.how != "id" and food_id:
                quirks.append(
                    _quirk(
                        where,
                        "food_id_mismatch",
                        f"{role} food {name!r}: WorldCuisines food_id {food_id} is another dish; "
                        f"linked by {link.how} to {link.dish_key}",
                        "info",
                    )
                )
    images = _existing_images(parsed)
    missing = [i for i in parsed.images if i.image not in images]
    for image in missing:
        quirks.append(
            _quirk(
                (image.source_file, image.source_line),
                "missing_image",
                f"{image.image} is not in {parsed.root}",
                "info",
            )
        )
    rows = image_rows(parsed.images)
    for row, image in zip(rows, parsed.images, strict=True):
        row["target_dish_key"] = links.get((image.target_food_id, image.target_food_name), Link(None, "")).dish_key
        row["distractor_dish_key"] = (
            links.get((image.distractor_food_id or "", image.distractor_food_name or ""), Link(None, "")).dish_key
            if image.distractor_food_name
            else None
        )
        row["image_id"] = images[image.image][0] if image.image in images else None
    counts: dict[str, int] = {}
    with transaction(con):
        record_dataset(con, DATASET)
        remove(con)
        insert(con, "raw.culturemix_images", parsed.raw)
        counts["images"] = insert(con, "core.culturemix_images", pl.DataFrame(rows, infer_schema_length=None))
        counts["foods"] = _insert_dishes(con, parsed.images)
        _insert_image_files(con, parsed.images, images)
        counts["items"] = _insert_items(con, parsed.images, images)
        if culturemix_real.files(parsed.root):
            counts["real photo foods"] = load_real(con, parsed.root)
        counts["quirks"] = len(quirks)
        record_quirks(con, quirks, run_id, replace_files=sorted({p.name for p in parsed.files}))
        record_source(
            con, sha256=sha, kind="culturemix", scope=scope, path=parsed.root, rows_loaded=len(rows), run_id=run_id
        )
    return IngestResult("culturemix", counts=counts, quirks=quirks)


def remove(con: duckdb.DuckDBPyConnection) -> None:
    """Everything the dataset's ingest wrote (a reload replaces it); composed images stay, and
    answers keep their item ids (an image path names the same item after a reload)."""
    items = (
        "(SELECT item_id FROM core.items WHERE task_id LIKE 'culturemix.%' AND source_ref IN "
        "(SELECT image FROM core.culturemix_images WHERE origin = 'dataset'))"
    )
    for table in ("core.item_images", "core.item_gold_countries", "core.item_gold_nations", "core.ingested_items"):
        con.execute(f"DELETE FROM {table} WHERE item_id IN {items}")
    con.execute("DELETE FROM raw.culturemix_images")
    con.execute("DELETE FROM core.culturemix_images WHERE origin = 'dataset'")
    keys = "(SELECT dish_key FROM core.dishes WHERE dataset = 'culturemix')"
    for table in ("core.dish_origins", "core.dish_origin_nations", "core.dish_names"):
        con.execute(f"DELETE FROM {table} WHERE dish_key IN {keys}")
    con.execute(f"DELETE FROM core.ingested_images WHERE kind = 'real' AND dish_key IN {keys}")
    con.execute("DELETE FROM core.dishes WHERE dataset = 'culturemix'")


def _existing_images(parsed: Parsed) -> dict[str, tuple[str, Path]]:
    """image path as written -> (image_id, absolute path) for the files that are there."""
    import hashlib

    found = {}
    for image in parsed.images:
        path = (parsed.root / image.image).resolve()
        if image.image in found or not path.is_file() or not path.is_relative_to(parsed.root.resolve()):
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        found[image.image] = (digest[:32], path)
    return found


def _insert_dishes(con, images: list[CultureMixImage]) -> int:
    dishes, names, origins, nations = {}, [], [], []
    for image in images:
        key = dish_key("culturemix", "en", image.target_food_id)
        if key in dishes:
            continue
        dishes[key] = {
            "dish_key": key,
            "dataset": "culturemix",
            "lang": "en",
            "dish_id": image.target_food_id,
            "name": image.target_food_name,
            "display_name": display_name(image.target_food_name),
            "category": "target food",
        }
        names.append(name_row(key, "en", image.target_food_name, is_primary=True))
        if image.target_country:
            origins.append({"dish_key": key, "country": image.target_country, "position": 0})
        if image.target_nation:
            nations.append({"dish_key": key, "nation": image.target_nation})
    insert(con, "core.dishes", list(dishes.values()))
    insert(con, "core.dish_names", names)
    insert(con, "core.dish_origins", origins)
    insert(con, "core.dish_origin_nations", nations)
    return len(dishes)


def _insert_image_files(con, images: list[CultureMixImage], files: dict[str, tuple[str, Path]]) -> None:
    from PIL import Image

    seen = set()
    rows = []
    for image in images:
        if image.image not in files or files[image.image][0] in seen:
            continue
        image_id, path = files[image.image]
        seen.add(image_id)  # one row per content: two paths with the same bytes are one image
        with Image.open(path) as picture:
            width, height = picture.size
        rows.append(
            {
                "image_id": image_id,
                "kind": "composite" if image.subtask != "SF" else "real",
                "dish_key": dish_key("culturemix", "en", image.target_food_id),
                "position": 0,
                "local_path": str(path),
                "sha256": None,
                "license": DATASET.license,
                "width": width,
                "height": height,
            }
        )
    con.execute(
        "DELETE FROM core.ingested_images WHERE image_id IN (SELECT unnest(?))", [[r["image_id"] for r in rows]]
    )
    insert(con, "core.ingested_images", rows)


def item_id(subtask: str, image: str) -> str:
    return f"{TASK_OF[subtask]}:{image}"


def insert_tasks(con) -> None:
    """The five subtasks' declarations (core.tasks mirrors pipeline/tasks/culturemix.toml)."""
    from pipeline.tasks import get_task

    tasks = [get_task(TASK_OF[s]).row() for s in SUBTASKS] + [get_task(t).row() for t in EXTRA_TASKS]
    con.execute("DELETE FROM core.tasks WHERE task_id IN (SELECT unnest(?))", [[t["task_id"] for t in tasks]])
    insert(con, "core.tasks", tasks)


@dataclass
class _ItemRows:
    """The core.items rows of CultureMix images with their image and their country and nation gold: one builder for
    the dataset's own images (ingest) and for composites (`register_compositions`)."""

    items: list[dict] = field(default_factory=list)
    item_images: list[dict] = field(default_factory=list)
    gold: list[dict] = field(default_factory=list)
    nations: list[dict] = field(default_factory=list)

    def add(
        self,
        subtask: str,
        image: str,
        dish: str,
        subset: str,
        image_id: str | None,
        country: str | None,
        nations: list[str],
        task_id: str | None = None,
    ) -> None:
        """One image's item; `nations`: the UK nations of its target dish, the gold `uk_nation_match` scores (GB
        stays the country gold); `task_id`: a task other than its subtask's (the flipped MF pairs)."""
        identifier = f"{task_id}:{image}" if task_id else item_id(subtask, image)
        self.items.append(
            {
                "item_id": identifier,
                "task_id": task_id or TASK_OF[subtask],
                "dish_key": dish,
                "source_ref": image,
                "subset": subset,
            }
        )
        if image_id:
            self.item_images.append({"item_id": identifier, "position": 0, "image_id": image_id})
        if country:
            self.gold.append({"item_id": identifier, "country": country})
        self.nations += [{"item_id": identifier, "nation": nation} for nation in nations]

    def write(self, con: duckdb.DuckDBPyConnection, *, replace: bool) -> None:
        """Insert the rows; `replace`: delete earlier rows of the same items first (composites registered again;
        an ingest has already removed all of the dataset's own items)."""
        ids = [item["item_id"] for item in self.items]
        for table, rows in (
            ("core.ingested_items", self.items),
            ("core.item_images", self.item_images),
            ("core.item_gold_countries", self.gold),
            ("core.item_gold_nations", self.nations),
        ):
            if replace:
                con.execute(f"DELETE FROM {table} WHERE item_id IN (SELECT unnest(?))", [ids])
            insert(con, table, rows)


def _insert_items(con, images: list[CultureMixImage], files: dict[str, tuple[str, Path]]) -> int:
    insert_tasks(con)
    rows = _ItemRows()
    for image in images:
        rows.add(
            image.subtask,
            image.image,
            dish_key("culturemix", "en", image.target_food_id),
            image.subset,
            files[image.image][0] if image.image in files else None,
            image.target_country,
            [image.target_nation] if image.target_nation else [],
        )
    rows.write(con, replace=False)  # `remove` has just deleted the dataset's items
    return len(rows.items)


# --- items -> prompts ------------------------------------------------------------------------


def register_compositions(con: duckdb.DuckDBPyConnection) -> int:
    """Composites built by `compose culturemix` become images and items of their subtask's task
    (the dataset module stays the only writer of its items). Returns how many were new."""
    rows = con.execute(
        """
        SELECT c.recipe_sha256, c.image, c.path, c.content_sha256, c.subtask, c.target_dish_key, c.labels,
               c.width, c.height
        FROM core.culturemix_compositions c
        WHERE NOT EXISTS (SELECT 1 FROM core.culturemix_images m WHERE m.image = c.image)
        ORDER BY c.image
        """
    ).fetchall()
    if not rows:
        return 0
    # the UK nation of an English, Scottish... target dish (its country gold stays GB), as the dataset's own items
    nations_of: dict[str, list[str]] = {}
    for key, nation in con.execute(
        "SELECT dish_key, nation FROM core.dish_origin_nations WHERE dish_key IN (SELECT unnest(?)) ORDER BY ALL",
        [sorted({row[5] for row in rows})],
    ).fetchall():
        nations_of.setdefault(key, []).append(nation)
    images, files, item_rows = [], [], _ItemRows()
    for _key, image, path, content, subtask, target_key, labels_json, width, height in rows:
        image_id = content[:32]
        labels = json.loads(labels_json)
        target_nations = nations_of.get(target_key, [])
        images.append(
            {**labels, "target_nation": target_nations[0] if target_nations else None, "image": image,
             "image_id": image_id, "origin": "composed"}
        )  # fmt: skip
        files.append(
            {"image_id": image_id, "kind": "composite", "dish_key": target_key, "position": 0, "local_path": path,
             "sha256": content, "width": width, "height": height}
        )  # fmt: skip
        right = EXTRA_TASKS[0] if labels.get("target_position") == "right" else None
        item_rows.add(subtask, image, target_key, "composed", image_id, labels.get("target_country"), target_nations,
                      right)  # fmt: skip
    with transaction(con):
        insert_tasks(con)
        ids = [f["image_id"] for f in files]
        con.execute("DELETE FROM core.ingested_images WHERE image_id IN (SELECT unnest(?))", [ids])
        insert(con, "core.ingested_images", pl.DataFrame(files, infer_schema_length=None).unique("image_id"))
        insert(con, "core.culturemix_images", pl.DataFrame(images, infer_schema_length=None))
        item_rows.write(con, replace=True)
    return len(rows)


def items(con: duckdb.DuckDBPyConnection, request: ItemsRequest) -> TaskItems:
    """The task's items with their one image each (dataset images, and composites once composed).
    `request.images_dir`, when given, replaces the folder the dataset was ingested from (paths as
    written in the table); an image that is not there is left out with the reason."""
    register_compositions(con)
    task_id = request.task.task_id
    rows = con.execute(
        """
        SELECT i.item_id, i.dish_key, c.target_food_name, c.image, c.origin, im.local_path
        FROM core.items i JOIN core.culturemix_images c ON c.image = i.source_ref
        LEFT JOIN core.item_images ii ON ii.item_id = i.item_id AND ii.position = 0
        LEFT JOIN core.images im ON im.image_id = ii.image_id
        WHERE i.task_id = ? ORDER BY c.origin DESC, c.image
        """,
        [task_id],
    ).fetchall()
    if not rows:
        raise ValueError(
            f"no {task_id} items in the warehouse: run `python -m pipeline ingest culturemix --source DIR` first"
        )
    rows = rows[: request.limit] if request.limit else rows
    result = TaskItems([])
    for identifier, key, name, image, origin, local_path in rows:
        if request.images_dir is not None and origin == "dataset":
            path: Path | None = request.images_dir / image
        else:
            path = Path(local_path) if local_path else None
        if path is None or not path.is_file():
            where = f" in {request.images_dir}" if request.images_dir is not None and origin == "dataset" else ""
            result.skipped.append((identifier, f"image {image} not found{where}"))
            continue
        result.ready.append(ItemInput(identifier, key, name, (path,), (_file_hash(path),)))
    return result


def _file_hash(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- public files ----------------------------------------------------------------------------


def fetch(dest: Path) -> list[Path]:
    """The full dataset's metadata tables from the Hugging Face hub, through DuckDB's hf://
    paths, as CSV files in `dest` (images are fetched by the hub's own tools; they are large)."""
    dest.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    written = []
    try:
        for table in FULL_TABLES:
            remote = f"hf://datasets/{HF_REPO}/**/{table}.csv"
            target = dest / f"{table}.csv"
            partial = target.with_suffix(".csv.part")
            try:
                con.execute(f"COPY (SELECT * FROM read_csv('{remote}', all_varchar = true)) TO '{partial}' (HEADER)")
            except duckdb.Error as exc:
                partial.unlink(missing_ok=True)
                raise OfflineError(
                    f"cannot read {remote} ({str(exc).splitlines()[0]}). hf:// needs network access to "
                    f"huggingface.co; offline, copy the dataset's metadata CSVs ({', '.join(FULL_TABLES)}) into a "
                    "folder and pass it with `ingest culturemix --source DIR`"
                ) from None
            partial.replace(target)
            written.append(target)
    finally:
        con.close()
    return written


def _ingest(con: duckdb.DuckDBPyConnection, source: Path | None, run_id: str, force: bool = False) -> IngestResult:
    if source is None:
        raise ValueError("CultureMix needs --source DIR (images.csv of the sample, or the full dataset's sf.csv, ...)")
    return ingest(con, source, run_id, force=force)


def load_real(con: duckdb.DuckDBPyConnection, root: Path) -> int:
    """Inside the CultureMix ingest's transaction (after it removed the dataset's rows): the real photos'
    foods, images, image rows and items. Returns how many foods were loaded."""
    from pipeline.datasets.culturemix_real import image_rows, read

    foods = read(root, resolve_country)
    rows = image_rows(con, root, foods)
    known = {k for (k,) in con.execute("SELECT dish_key FROM core.dishes WHERE dataset = 'culturemix'").fetchall()}
    dishes, names, origins = {}, [], []
    for food in foods:
        key = dish_key("culturemix", "en", food.food_id)
        if key in known or key in dishes:
            continue
        dishes[key] = {"dish_key": key, "dataset": "culturemix", "lang": "en", "dish_id": food.food_id,
                       "name": food.food_name, "display_name": food.food_name, "category": "real photo"}  # fmt: skip
        names.append(name_row(key, "en", food.food_name, is_primary=True))
        if food.country:
            origins.append({"dish_key": key, "country": food.country, "position": 0})
    insert(con, "core.dishes", list(dishes.values()))
    insert(con, "core.dish_names", names)
    insert(con, "core.dish_origins", origins)
    files = {}
    for row in rows:
        files[row["_sha256"][:32]] = {
            "image_id": row["_sha256"][:32], "kind": "real", "dish_key": dish_key("culturemix", "en",
            row["target_food_id"]), "position": 0, "local_path": str(row["_path"]), "sha256": row["_sha256"],
            "license": DATASET.license, "width": row["_size"][0], "height": row["_size"][1],
        }  # fmt: skip
    con.execute("DELETE FROM core.ingested_images WHERE image_id IN (SELECT unnest(?))", [list(files)])
    insert(con, "core.ingested_images", list(files.values()))
    images = [{k: v for k, v in row.items() if not k.startswith("_")} | {"image_id": row["_sha256"][:32]}
              for row in rows]  # fmt: skip
    insert(con, "core.culturemix_images", images)
    insert_tasks(con)
    items = _ItemRows()
    for row in images:
        key = dish_key("culturemix", "en", row["target_food_id"])
        items.add(row["subtask"], row["image"], key, "real", row["image_id"], row["target_country"], [])
    items.write(con, replace=True)
    return len(foods)


DATASETS.add("culturemix", Dataset(DATASET, lambda: [], _ingest, items, fetch=fetch))
