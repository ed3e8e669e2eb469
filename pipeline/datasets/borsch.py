"""BORSch: Russian- and Ukrainian-named dishes with their countries of origin (three xlsx files).

Real-data quirks are handled explicitly and reported in meta.ingest_reports:
- a trailing comma in a country list (RU ID 900: "ES, MX, ") -> the empty code is dropped;
- the same dish name under two IDs (12 in RU) -> both kept, they are separate entries
  (sometimes with different origins, e.g. БАБКА);
- parallel rows with one side missing ("212," = only in the Russian set) -> kept one-sided;
- names in capitals and Ukrainian apostrophes -> kept as given, plus a display form.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pipeline.core.errors import DataError
from pipeline.core.text import display_name, norm_name
from pipeline.datasets import DATASETS
from pipeline.datasets.base import (
    MAX_IMAGES,
    Dataset,
    ItemInput,
    ItemsRequest,
    RemoteFile,
    TaskItems,
    add_items,
    ensure_task,
    with_local_images,
)
from pipeline.datasets.common import (
    DatasetInfo,
    IngestResult,
    Quirk,
    already_loaded,
    clean,
    delete_dataset_dishes,
    dish_key,
    name_row,
    read_xlsx,
    record_dataset,
    record_quirks,
    record_source,
    sha256_files,
)
from pipeline.reference.countries import is_iso_alpha2
from pipeline.tasks import Task
from warehouse.io import insert, transaction

REPO = "alavrouk/BORSch"
COMMIT = "e697041065f09dcf120ffb7ba622b112f3611816"
RAW = f"https://raw.githubusercontent.com/{REPO}/{COMMIT}"
GITHUB_TREE = f"https://api.github.com/repos/{REPO}/git/trees/{COMMIT}?recursive=1"
# The BORSch photos are stored with Git LFS: their bytes are served from the media host.
GITHUB_MEDIA = f"https://media.githubusercontent.com/media/{REPO}/{COMMIT}"

DATASET = DatasetInfo(
    dataset="borsch",
    title="BORSch: Russian- and Ukrainian-named dishes and their countries of origin",
    home=f"github.com/{REPO}@{COMMIT}",
    license="MIT",
)
# The public files at the pinned commit, with the SHA-256 `data fetch` checks them against.
PUBLIC_FILES = (
    RemoteFile(
        f"{RAW}/data/RU/RU_DATA.xlsx",
        "borsch/RU_DATA.xlsx",
        "6f88a16a3520e86a2bae46c7baf06663c84c36e26b626f6930913b2f46741da5",
    ),
    RemoteFile(
        f"{RAW}/data/UK/UK_DATA.xlsx",
        "borsch/UK_DATA.xlsx",
        "b74a787e9a616058079156da7d7400749ab19754202af2e15b79399c66bef8f2",
    ),
    RemoteFile(
        f"{RAW}/data/PARALLEL/PARALLEL_RU_UK.xlsx",
        "borsch/PARALLEL_RU_UK.xlsx",
        "b4a974090a059907014d117a75f8651382aec917887a8192b226114545d19419",
    ),
    RemoteFile(f"{RAW}/LICENSE", "borsch/LICENSE", "c5d20b38177d1fdaef999919c7e1ee4db72c15d12d127b227181d2c140b9bb5d"),
)
IMAGE_DIRS = {"ru": "RU", "uk": "UK"}

FILES = {
    "ru": ("RU_DATA.xlsx", ["ID", "Dish", "Countries of Origin", "Source"]),
    "uk": ("UK_DATA.xlsx", ["ID", "Dish Name", "Countries of Origin", "Source"]),
    "parallel": ("PARALLEL_RU_UK.xlsx", ["RU_NAME", "UK_NAME", "ID RU,UK", "Countries of Origin"]),
}
# Where the files sit in the public repository (data/RU/RU_DATA.xlsx ...), also accepted flat.
REPO_SUBDIRS = {"ru": "RU", "uk": "UK", "parallel": "PARALLEL"}
KNOWN_SOURCES = re.compile(r"^(wikidata|bootstrap-\d+)$")
HEADER_ROWS = 1
OTHER_SET = {"ru": "Ukrainian", "uk": "Russian"}


@dataclass
class BorschData:
    """Rows for raw.* and core.* tables, ready to insert, and the quirks found on the way."""

    raw_dishes: list[dict] = field(default_factory=list)
    raw_parallel: list[dict] = field(default_factory=list)
    dishes: list[dict] = field(default_factory=list)
    names: list[dict] = field(default_factory=list)
    origins: list[dict] = field(default_factory=list)
    parallel: list[dict] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)


def locate_files(source: Path) -> dict[str, Path]:
    """The three files in `source`, flat or in the repository's RU/ UK/ PARALLEL/ (or data/...) layout."""
    found = {}
    for part, (filename, _) in FILES.items():
        candidates = [
            source / filename,
            source / REPO_SUBDIRS[part] / filename,
            source / "data" / REPO_SUBDIRS[part] / filename,
            source / "borsch" / filename,
        ]
        path = next((c for c in candidates if c.is_file()), None)
        if path is None:
            raise DataError(source, f"{filename} not found (looked in {', '.join(str(c) for c in candidates)})")
        found[part] = path
    return found


def parse_countries(value: str | None, file: Path, row: int, quirks: list[Quirk]) -> list[str]:
    """'GH, NG, SN' -> ['GH', 'NG', 'SN'], validated against ISO 3166-1."""
    text = clean(value)
    if not text:
        raise DataError(file, "empty 'Countries of Origin'", line=row)
    parts = [part.strip() for part in text.split(",")]
    if any(not part for part in parts):
        quirks.append(
            Quirk("borsch", file.name, row, "trailing_comma", f"empty entry in country list {text!r} dropped", "info")
        )
    codes: list[str] = []
    for part in filter(None, parts):
        code = part.upper()
        if not is_iso_alpha2(code):
            raise DataError(file, f"unknown ISO 3166-1 alpha-2 country code {part!r} in {text!r}", line=row)
        if code in codes:
            quirks.append(Quirk("borsch", file.name, row, "repeated_country", f"{code} listed twice", "info"))
            continue
        codes.append(code)
    return codes


def parse_dish_file(lang: str, path: Path, data: BorschData) -> dict[str, dict]:
    """One language's dishes; returns them by ID for the parallel mapping."""
    _, columns = FILES[lang]
    id_col, name_col, countries_col, source_col = columns
    by_id: dict[str, dict] = {}
    by_name: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for index, record in enumerate(read_xlsx(path, columns)):
        row = index + 1 + HEADER_ROWS
        data.raw_dishes.append(
            {
                "lang": lang,
                "file": path.name,
                "row_number": row,
                "id": record[id_col],
                "dish": record[name_col],
                "countries": record[countries_col],
                "source": record[source_col],
            }
        )
        dish_id = _parse_id(record[id_col], path, row)
        name = clean(record[name_col])
        if not name:
            raise DataError(path, f"empty dish name for ID {dish_id}", line=row)
        if dish_id in by_id:
            raise DataError(path, f"ID {dish_id} used twice (rows {by_id[dish_id]['row']} and {row})", line=row)
        source = clean(record[source_col]) or None
        if source and not KNOWN_SOURCES.match(source):
            data.quirks.append(Quirk("borsch", path.name, row, "unknown_source", f"Source {source!r}", "warning"))
        codes = parse_countries(record[countries_col], path, row, data.quirks)
        key = dish_key("borsch", lang, dish_id)
        by_id[dish_id] = {"key": key, "name": name, "origins": codes, "row": row}
        by_name[norm_name(name)].append((dish_id, row))
        data.dishes.append(
            {
                "dish_key": key,
                "dataset": "borsch",
                "lang": lang,
                "dish_id": dish_id,
                "name": name,
                "display_name": display_name(name),
                "source": source,
            }
        )
        data.names.append(name_row(key, lang, name, is_primary=True))
        data.origins.extend({"dish_key": key, "country": c, "position": i} for i, c in enumerate(codes))
    for same in by_name.values():
        if len(same) > 1:
            ids = ", ".join(dish_id for dish_id, _ in same)
            for dish_id, row in same:
                data.quirks.append(
                    Quirk(
                        "borsch",
                        path.name,
                        row,
                        "duplicate_name",
                        f"name {by_id[dish_id]['name']!r} is used by IDs {ids}; kept as separate dishes",
                        "warning",
                    )
                )
    return by_id


def parse_parallel(path: Path, ru: dict[str, dict], uk: dict[str, dict], data: BorschData) -> None:
    _, columns = FILES["parallel"]
    for index, record in enumerate(read_xlsx(path, columns)):
        row = index + 1 + HEADER_ROWS
        data.raw_parallel.append(
            {
                "file": path.name,
                "row_number": row,
                "ru_name": record["RU_NAME"],
                "uk_name": record["UK_NAME"],
                "ids": record["ID RU,UK"],
                "countries": record["Countries of Origin"],
            }
        )
        ids = clean(record["ID RU,UK"])
        if ids.count(",") != 1:
            raise DataError(path, f"'ID RU,UK' must be 'ru_id,uk_id' (one side may be empty), got {ids!r}", line=row)
        ru_raw, uk_raw = (part.strip() for part in ids.split(","))
        if not ru_raw and not uk_raw:
            raise DataError(path, "'ID RU,UK' names neither a Russian nor a Ukrainian ID", line=row)
        ru_name, uk_name = clean(record["RU_NAME"]), clean(record["UK_NAME"])
        if not ru_name or not uk_name:
            raise DataError(path, "a parallel row needs both RU_NAME and UK_NAME", line=row)
        origins = parse_countries(record["Countries of Origin"], path, row, data.quirks)
        sides = {}
        for lang, raw_id, dishes, name in (("ru", ru_raw, ru, ru_name), ("uk", uk_raw, uk, uk_name)):
            if not raw_id:
                data.quirks.append(
                    Quirk(
                        "borsch",
                        path.name,
                        row,
                        "one_sided_parallel",
                        f"no {lang.upper()} ID: {name!r} is only in the {OTHER_SET[lang]} set",
                        "info",
                    )
                )
                sides[lang] = None
                continue
            dish_id = _parse_id(raw_id, path, row)
            if dish_id not in dishes:
                raise DataError(path, f"{lang.upper()} ID {dish_id} does not exist in {FILES[lang][0]}", line=row)
            dish = dishes[dish_id]
            sides[lang] = dish["key"]
            if norm_name(dish["name"]) != norm_name(name):
                data.quirks.append(
                    Quirk(
                        "borsch",
                        path.name,
                        row,
                        "parallel_name_mismatch",
                        f"{lang.upper()} ID {dish_id} is {dish['name']!r} in {FILES[lang][0]} but {name!r} here",
                        "warning",
                    )
                )
            if set(dish["origins"]) != set(origins):
                data.quirks.append(
                    Quirk(
                        "borsch",
                        path.name,
                        row,
                        "parallel_origin_mismatch",
                        f"{lang.upper()} ID {dish_id} has origins {','.join(dish['origins'])} "
                        f"in {FILES[lang][0]} but {','.join(origins)} here",
                        "warning",
                    )
                )
        data.parallel.append(
            {
                "pair_id": row,
                "dataset": "borsch",
                "ru_dish_key": sides["ru"],
                "uk_dish_key": sides["uk"],
                "ru_name": ru_name,
                "uk_name": uk_name,
                "origins": origins,
            }
        )
        # The other language's name becomes an alias of each side's dish.
        if sides["ru"]:
            data.names.append(name_row(sides["ru"], "uk", uk_name, is_primary=False))
        if sides["uk"]:
            data.names.append(name_row(sides["uk"], "ru", ru_name, is_primary=False))


def parse(source: Path) -> tuple[BorschData, dict[str, Path]]:
    """Pure: read and validate the three files, no warehouse involved."""
    paths = locate_files(source)
    data = BorschData()
    ru = parse_dish_file("ru", paths["ru"], data)
    uk = parse_dish_file("uk", paths["uk"], data)
    parse_parallel(paths["parallel"], ru, uk, data)
    data.names = list({(n["dish_key"], n["lang"], n["norm_name"]): n for n in data.names}.values())
    return data, paths


def ingest(con: duckdb.DuckDBPyConnection, source: Path, run_id: str, force: bool = False) -> IngestResult:
    """Load BORSch from `source`; the same files twice is a no-op, changed files replace the old."""
    paths = locate_files(source)
    sha = sha256_files(paths.values())
    if not force and already_loaded(con, sha, "borsch"):
        return IngestResult("borsch", skipped=True)
    data, paths = parse(source)
    with transaction(con):
        record_dataset(con, DATASET)
        delete_dataset_dishes(con, "borsch")
        con.execute("DELETE FROM raw.borsch_dishes")
        con.execute("DELETE FROM raw.borsch_parallel")
        insert(con, "raw.borsch_dishes", data.raw_dishes)
        insert(con, "raw.borsch_parallel", data.raw_parallel)
        insert(con, "core.dishes", data.dishes)
        insert(con, "core.dish_names", data.names)
        insert(con, "core.dish_origins", data.origins)
        insert(con, "core.parallel_dishes", data.parallel)
        record_quirks(con, data.quirks, run_id, replace_files=[p.name for p in paths.values()])
        record_source(con, sha256=sha, kind="borsch", path=source, rows_loaded=len(data.dishes), run_id=run_id)
    counts = {
        "ru dishes": sum(d["lang"] == "ru" for d in data.dishes),
        "uk dishes": sum(d["lang"] == "uk" for d in data.dishes),
        "parallel rows": len(data.parallel),
    }
    return IngestResult("borsch", counts=counts, quirks=data.quirks)


def _parse_id(value: str | None, file: Path, row: int) -> str:
    text = clean(value)
    if text.endswith(".0"):  # a spreadsheet that stored the ID as a float
        text = text[:-2]
    if not text.isdigit():
        raise DataError(file, f"ID must be a whole number, got {value!r}", line=row)
    return str(int(text))


# --- items: how BORSch dishes become the inputs of its tasks' prompts --------------------------


def items(con: duckdb.DuckDBPyConnection, request: ItemsRequest) -> TaskItems:
    """One item per dish named in `lang` (or only the parallel ones), created on first use with the
    dish's origins as gold; image tasks read DIR/RU|UK/images/ID/* (the repository's layout)."""
    task, lang = request.task, request.lang
    if lang not in IMAGE_DIRS:
        raise ValueError(f"BORSch tasks are asked in ru or uk, not {lang!r}")
    side = "ru_dish_key" if lang == "ru" else "uk_dish_key"
    # The parallel subset as published (§3, §4.1): all 433 pairs of PARALLEL_RU_UK.xlsx, each asked in both
    # languages, a one-sided pair by its name in the other language too.
    rows = con.execute(
        f"""
        SELECT d.dish_key, d.dish_id, d.name,
               EXISTS (SELECT 1 FROM core.parallel_dishes p WHERE p.{side} = d.dish_key) AS parallel
        FROM core.dishes d WHERE d.dataset = 'borsch' AND d.lang = ?
        ORDER BY try_cast(d.dish_id AS BIGINT)
        """,
        [lang],
    ).fetchall()
    if not rows:
        raise ValueError("no BORSch dishes in the warehouse: run `python -m pipeline ingest borsch --source DIR` first")
    if request.subset == "parallel":
        rows = [row for row in rows if row[3]] + _other_side_pairs(con, lang)
    rows = rows[: request.limit] if request.limit else rows
    with transaction(con):
        create_items(con, task, lang, [(key, dish_id, parallel) for key, dish_id, _name, parallel in rows])
    found = [ItemInput(f"{task.task_id}:{lang}:{dish_id}", key, name) for key, dish_id, name, _ in rows]
    folders = _pair_folders(con)
    return with_local_images(con, request, found, lambda item: _image_folders(request, item, folders))


def _other_side_pairs(con: duckdb.DuckDBPyConnection, lang: str) -> list[tuple[str, str, str, bool]]:
    """Pairs with no dish in `lang`'s file, asked by their `lang` name about the other side's dish: the item's
    id is `pair<row>` (the row of PARALLEL_RU_UK.xlsx), its gold that dish's origins."""
    side, other = ("ru_dish_key", "uk_dish_key") if lang == "ru" else ("uk_dish_key", "ru_dish_key")
    return [
        (key, f"pair{pair_id}", name, True)
        for pair_id, key, name in con.execute(
            f"SELECT pair_id, {other}, {lang}_name FROM core.parallel_dishes "
            f"WHERE dataset = 'borsch' AND {side} IS NULL ORDER BY pair_id"
        ).fetchall()
    ]


def _pair_folders(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """dish_key -> the dish keys of its parallel pair, both sides (its images are the pair's, §4.1)."""
    out: dict[str, list[str]] = {}
    for ru_key, uk_key in con.execute(
        "SELECT ru_dish_key, uk_dish_key FROM core.parallel_dishes WHERE dataset = 'borsch'"
    ).fetchall():
        keys = [key for key in (ru_key, uk_key) if key]
        for key in keys:
            out.setdefault(key, [])
            out[key] += [k for k in keys if k not in out[key]]
    return out


def known_photos(con: duckdb.DuckDBPyConnection, lang: str, dish_id: str) -> list[tuple[str, str]]:
    """(image_id, local path or URL) of the real photos the warehouse knows for a dish and its parallel pair (a
    VQA prompt shows the pair's photos, §4.1), the dish's own language first, in the dataset's order: what the
    `images` of an imported answer are looked up in."""
    key = f"borsch:{lang}:{dish_id}"
    keys = _pair_folders(con).get(key, [key])
    return [
        (image_id, where)
        for image_id, where in con.execute(
            """SELECT image_id, coalesce(local_path, url) FROM core.images
               WHERE kind = 'real' AND dish_key IN (SELECT unnest(?)) AND coalesce(local_path, url) IS NOT NULL
               ORDER BY split_part(dish_key, ':', 2) <> ?, dish_key, position NULLS LAST, image_id""",
            [keys, lang],
        ).fetchall()
    ]


def match_photo_names(names: tuple[str, ...], photos: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """(the image ids `names` point at, in order and once each; the names that match no photo). A name matches
    a photo whose path ends with it, compared by the last parts the repository's layout has (RU/images/ID/file),
    so `data/RU/images/12/0.jpg`, `RU/images/12/0.jpg`, `12/0.jpg` and `0.jpg` all name the same file; the first
    photo in `photos`' order wins (the dish's own language before its pair's)."""
    found: list[str] = []
    unknown: list[str] = []
    for name in names:
        parts = [p for p in re.split(r"[\\/]+", name.strip()) if p][-4:]
        match = next(
            (image_id for image_id, where in photos if parts and re.split(r"[\\/]+", where)[-len(parts) :] == parts),
            None,
        )
        if match is None:
            unknown.append(name)
        elif match not in found:
            found.append(match)
    return found, unknown


def link_item_images(con: duckdb.DuckDBPyConnection, item_id: str, image_ids: list[str]) -> bool:
    """Record the photos an imported answer was shown as its item's images (core.item_images, as `generate`
    records them), inside the caller's transaction, when the item has none yet. Returns whether the item's
    recorded photos are these (False: it already has others, e.g. from an earlier run or another model)."""
    recorded = [
        row[0]
        for row in con.execute(
            "SELECT image_id FROM core.item_images WHERE item_id = ? ORDER BY position", [item_id]
        ).fetchall()
    ]
    if recorded:
        return recorded == image_ids[:MAX_IMAGES]
    con.executemany(
        "INSERT INTO core.item_images (item_id, position, image_id) VALUES (?, ?, ?)",
        [[item_id, position, image_id] for position, image_id in enumerate(image_ids[:MAX_IMAGES])],
    )
    return True


def _image_folders(request: ItemsRequest, item: ItemInput, pairs: dict[str, list[str]]) -> list[Path]:
    """Every folder of photos of the item's dish, up to 10 photos in all (§4.1: "all (up to 10) available
    images"): its own language's first, then its pair's other side (DIR/RU|UK/images/ID)."""
    keys = pairs.get(item.dish_key, [item.dish_key])
    keys = sorted(keys, key=lambda key: key.split(":")[1] != request.lang)
    return [request.images_dir / IMAGE_DIRS[key.split(":")[1]] / "images" / key.rsplit(":", 1)[1] for key in keys]


def create_items(con: duckdb.DuckDBPyConnection, task: Task, lang: str, rows: list[tuple[str, str, bool]]) -> None:
    """The items (and gold origins) of (dish_key, dish_id, is_parallel) rows, inside the caller's transaction:
    `items()` for generate, `import-responses --format borsch` for the answered dishes only."""
    created = [
        (f"{task.task_id}:{lang}:{dish_id}", key, f"{lang}:{dish_id}", "parallel" if parallel else "full")
        for key, dish_id, parallel in rows
    ]
    ensure_task(con, task)
    add_items(con, task, created)
    if task.answer_kind == "countries" and created:  # the dish's origins, item by item in the dishes' order
        con.execute(
            """INSERT INTO core.item_gold_countries
               SELECT i.item_id, o.country
               FROM (SELECT unnest($ids) AS item_id, unnest($keys) AS dish_key, unnest(range(len($ids))) AS n) i
               JOIN core.dish_origins o USING (dish_key)
               WHERE NOT EXISTS (SELECT 1 FROM core.item_gold_countries g
                                 WHERE g.item_id = i.item_id AND g.country = o.country)
               ORDER BY i.n, o.rowid""",
            {"ids": [item[0] for item in created], "keys": [item[1] for item in created]},
        )


def image_manifest(data_dir: Path, timeout: float = 60.0) -> list[RemoteFile]:
    """Every dish photo of the repository (data/RU|UK/images/ID/*), laid out as `generate --images
    DIR/borsch` expects (DIR/borsch/RU/images/ID/file)."""
    import json
    import urllib.error
    import urllib.request

    from pipeline.core.errors import OfflineError
    from pipeline.datasets.fetch import check_online

    check_online(GITHUB_TREE)
    try:
        with urllib.request.urlopen(GITHUB_TREE, timeout=timeout) as response:
            tree = json.load(response)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise OfflineError(f"cannot list the BORSch images at {GITHUB_TREE}: {exc}") from exc
    return [
        RemoteFile(f"{GITHUB_MEDIA}/{entry['path']}", "borsch/" + entry["path"].removeprefix("data/"))
        for entry in tree.get("tree", [])
        if entry.get("type") == "blob" and entry["path"].startswith(("data/RU/images/", "data/UK/images/"))
    ]


def _ingest(con: duckdb.DuckDBPyConnection, source: Path | None, run_id: str, force: bool = False) -> IngestResult:
    if source is None:
        raise ValueError("BORSch needs --source DIR (the folder with RU_DATA.xlsx, UK_DATA.xlsx, PARALLEL_RU_UK.xlsx)")
    return ingest(con, source, run_id, force=force)


DATASETS.add(
    "borsch",
    Dataset(DATASET, lambda: list(PUBLIC_FILES), _ingest, items, image_manifest=image_manifest),
)
