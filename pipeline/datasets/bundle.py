"""The embedded bundle: a compact subset of the public data, shipped in assets/bundle/, so that a fresh
clone with no network and no data folder shows real answers of real models (`make demo`).

What it holds (`python -m pipeline data bundle --source DIR` writes it from the public files):
- BORSch whole (MIT): the three spreadsheets, byte for byte;
- the CultureMix sample whole (CC BY-SA 4.0): its 120 images and images.csv, byte for byte (no model answers to
  CultureMix are public: its page offers them as a template to answer);
- WorldCuisines (Apache-2.0): the whole knowledge base and multilingual names, and a seeded selection
  of the origin questions (task 2) and of the dish-name dishes (task 1) with the real answers of all
  12 published models in all 30 prompt languages to them: every file in the public layout, every kept
  line byte for byte, so `demo` reads the bundle with the same code as the full data.

The selection favours coverage, not luck: first every question whose dish comes from a post-Soviet
country (the BORSch side of the dashboard), then one question per gold country in turn, each
country's questions in a seeded order, until `TASK2_ITEMS`; task-1 dishes are the selected questions'
dishes first, then seeded others. Everything is sorted and the archive written with fixed metadata,
so the same public files give the same bytes (tests/pipeline/datasets/test_bundle.py).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import lzma
import os
import shutil
import tarfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from babel import Locale

from pipeline.core.errors import DataError
from pipeline.reference.countries import POST_SOVIET

ROOT = Path(__file__).resolve().parent.parent.parent
BUNDLE_DIR = ROOT / "assets" / "bundle"
ARCHIVE = "data.tar.xz"
MANIFEST = "MANIFEST.json"
# Where the unpacked bundle says what it is: the ingest step reads it to label the datasets as subsets.
MARKER = "BUNDLE.json"
SEED = 0
TASK2_ITEMS = 70  # of 500 origin questions: ~15% of the answers, so the embedded demo builds in under a minute, cold
TASK1_DISHES = 20  # of 100 dish-name dishes (three questions each)
# WorldCuisines names countries in English, as CLDR does: the 15 post-Soviet countries by those names.
POST_SOVIET_NAMES = frozenset(Locale("en").territories[code] for code in POST_SOVIET)
BORSCH_FILES = ("RU_DATA.xlsx", "UK_DATA.xlsx", "PARALLEL_RU_UK.xlsx", "LICENSE")
WC = "worldcuisines"
CULTUREMIX = "culturemix-sample"


@dataclass(frozen=True)
class Selection:
    """Which WorldCuisines questions and dishes the bundle keeps."""

    task2_qa_ids: tuple[str, ...]
    task2_total: int
    task1_food_ids: tuple[str, ...]
    task1_total: int

    def note(self) -> str:
        """How the dashboard labels the bundled WorldCuisines (core.datasets.subset)."""
        return (
            f"bundled subset: {len(self.task2_qa_ids)} of {self.task2_total} origin questions and "
            f"{len(self.task1_food_ids)} of {self.task1_total} dish-name dishes, with the real answers of all 12 "
            "published models in 30 prompt languages"
        )


# --- reading the public files ---------------------------------------------------------------------


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _json_line(text: str, path: Path, number: int) -> dict:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not a JSON line: {exc.msg}", line=number) from None
    if not isinstance(record, dict):
        raise DataError(path, "not a JSON object", line=number)
    return record


def _lines(path: Path):
    """(line number, raw line with its newline, parsed record) of a JSON-lines file, blank lines skipped."""
    with open(path, encoding="utf-8", newline="") as handle:
        for number, text in enumerate(handle, start=1):
            if text.strip():
                yield number, text if text.endswith("\n") else text + "\n", _json_line(text, path, number)


def _rank(key: str) -> str:
    """A seeded, stable order that does not follow the file's own order."""
    return hashlib.sha256(f"{SEED}:{key}".encode()).hexdigest()


def select(wc: Path) -> Selection:
    """The questions and dishes to keep (see the module's docstring)."""
    with open(wc / "eval" / "large_eval_task2.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_country: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_country[row["answer"].strip()].append(row)
    for group in by_country.values():
        group.sort(key=lambda row: _rank(row["qa_id"]))
    chosen: list[dict] = [row for row in rows if _countries(row) & POST_SOVIET_NAMES]
    queues = {country: [row for row in group if row not in chosen] for country, group in sorted(by_country.items())}
    while len(chosen) < TASK2_ITEMS and any(queues.values()):
        for country in sorted(queues, key=_rank):
            if queues[country] and len(chosen) < TASK2_ITEMS:
                chosen.append(queues[country].pop(0))
    task2 = tuple(sorted((row["qa_id"] for row in chosen), key=int))

    task1_foods = _task1_foods(wc)
    unique = _unique_gold_foods(wc)
    preferred = sorted({row["food_id"] for row in chosen} & set(task1_foods) & unique, key=_rank)
    others = sorted((set(task1_foods) & unique) - set(preferred), key=_rank)
    task1 = tuple(sorted((preferred + others)[:TASK1_DISHES], key=int))
    return Selection(task2, len(rows), task1, len(task1_foods))


def _countries(row: dict) -> set[str]:
    try:
        return {str(name).strip() for name in json.loads(row.get("Countries") or "[]")}
    except json.JSONDecodeError:
        return {row["answer"].strip()}


def _task1_files(wc: Path) -> list[Path]:
    return sorted((wc / "eval" / "small_eval_task1").glob("*_small_eval_task1.jsonl"))


def _task1_foods(wc: Path) -> list[str]:
    return sorted({str(record["food_id"]) for path in _task1_files(wc) for _, _, record in _lines(path)}, key=int)


def _unique_gold_foods(wc: Path) -> set[str]:
    """Dishes whose gold name in every language belongs to them alone: the published task-1 answers are tied to
    their dish by that name (pipeline/datasets/worldcuisines.py, task 1), so only these can be cut out cleanly."""
    foods_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in _task1_files(wc):
        for _, _, record in _lines(path):
            foods_of[(str(record["lang"]), str(record["answer"]).strip())].add(str(record["food_id"]))
    shared = {food for foods in foods_of.values() if len(foods) > 1 for food in foods}
    return {food for foods in foods_of.values() for food in foods} - shared


# --- writing the bundle ---------------------------------------------------------------------------


def _filtered(path: Path, keep) -> bytes:
    return "".join(raw for _, raw, record in _lines(path) if keep(record)).encode("utf-8")


def _task2_csv(path: Path, qa_ids: set[str]) -> bytes:
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        at = header.index("qa_id")
        kept = [row for row in reader if row[at] in qa_ids]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(kept)
    return out.getvalue().encode("utf-8")


def bundle_files(source: Path, selection: Selection) -> dict[str, bytes]:
    """Every file of the bundle by its path in the public layout, in bytes."""
    wc = source / WC
    files: dict[str, bytes] = {}
    for name in BORSCH_FILES:
        files[f"borsch/{name}"] = (source / "borsch" / name).read_bytes()
    culturemix = source / CULTUREMIX
    for path in sorted(p for p in culturemix.rglob("*") if p.is_file()):
        files[f"{CULTUREMIX}/{path.relative_to(culturemix).as_posix()}"] = path.read_bytes()
    for rel in ("LICENSE", "kb/final_data.csv", "kb/food_name_multiling.csv"):
        files[f"{WC}/{rel}"] = (wc / rel).read_bytes()
    qa_ids = set(selection.task2_qa_ids)
    foods = set(selection.task1_food_ids)
    files[f"{WC}/eval/large_eval_task2.csv"] = _task2_csv(wc / "eval" / "large_eval_task2.csv", qa_ids)
    for path in sorted((wc / "eval" / "large_eval_task2").glob("*.jsonl")):
        files[f"{WC}/eval/large_eval_task2/{path.name}"] = _filtered(path, lambda r: str(r["qa_id"]) in qa_ids)
    gold_names: set[tuple[str, str]] = set()
    for path in _task1_files(wc):
        files[f"{WC}/eval/small_eval_task1/{path.name}"] = _filtered(path, lambda r: str(r["food_id"]) in foods)
        gold_names |= {
            (str(r["lang"]), str(r["answer"]).strip()) for _, _, r in _lines(path) if str(r["food_id"]) in foods
        }
    predictions = wc / "predictions"
    for pattern in ("task2_oe_*.jsonl", "mc/task2_mc_*.jsonl"):
        for path in sorted(predictions.glob(pattern)):
            rel = path.relative_to(predictions).as_posix()
            files[f"{WC}/predictions/{rel}"] = _filtered(path, lambda r: str(r["qa_id"]) in qa_ids)
    for path in sorted(predictions.glob("small/task1_oe_*.jsonl")):
        keep = lambda r: (str(r.get("lang")), str(r.get("answer") or "").strip()) in gold_names  # noqa: E731
        files[f"{WC}/predictions/small/{path.name}"] = _filtered(path, keep)
    return files


def archived(files: dict[str, bytes]) -> dict[str, bytes]:
    """The files that go into the archive: all but the CultureMix images, which are JPEGs already (xz gains nothing)
    and stay loose files under the bundle folder, so that no file of the repository is a large binary."""
    return {name: data for name, data in files.items() if not name.startswith(f"{CULTUREMIX}/")}


def _archive(files: dict[str, bytes]) -> bytes:
    """A tar.xz of `files` that depends on their bytes alone: sorted, no times, owners or modes of this machine."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(files[name]), 0, 0o644
            tar.addfile(info, io.BytesIO(files[name]))
    return lzma.compress(raw.getvalue(), preset=9 | lzma.PRESET_EXTREME)


def _pinned_hashes() -> dict[str, str]:
    """SHA-256 of the public files as the dataset modules pin them (`data fetch` checks the same)."""
    from pipeline.datasets import borsch, worldcuisines

    return {f.dest: f.sha256 for f in (*borsch.PUBLIC_FILES, *worldcuisines.PUBLIC_FILES) if f.sha256}


def build(source: Path, out: Path = BUNDLE_DIR) -> dict:
    """Write the bundle from a local copy of the public data (`source` holds borsch/ and worldcuisines/);
    returns the manifest. A source file that differs from its pinned hash stops the build: the bundle must be
    reproducible from the pinned sources."""
    source = source.expanduser().resolve()
    for folder in ("borsch", WC, CULTUREMIX):
        if not (source / folder).is_dir():
            raise DataError(source, f"no {folder}/ folder: point --source at the public data (borsch/, {WC}/, ...)")
    pinned = _pinned_hashes()
    for dest, digest in sorted(pinned.items()):
        path = source / dest
        if path.is_file() and _sha256(path) != digest:
            raise DataError(path, f"differs from the pinned public file (SHA-256 {digest[:12]}…)")
    selection = select(source / WC)
    files = bundle_files(source, selection)
    in_archive = archived(files)
    archive = _archive(in_archive)
    from pipeline.datasets import borsch, culturemix, worldcuisines

    described = {
        "built_by": "python -m pipeline data bundle --source DIR",
        "seed": SEED,
        "sources": {
            "borsch": {
                "home": borsch.DATASET.home,
                "license": borsch.DATASET.license,
                "subset": None,
            },
            "culturemix": {"home": culturemix.DATASET.home, "license": culturemix.DATASET.license, "subset": None},
            WC: {
                "home": worldcuisines.DATASET.home,
                "license": worldcuisines.DATASET.license,
                "subset": selection.note(),
            },
        },
        "selection": {
            "worldcuisines.origin_vqa": {"qa_ids": list(selection.task2_qa_ids), "of": selection.task2_total},
            "worldcuisines.dish_name_vqa": {"food_ids": list(selection.task1_food_ids), "of": selection.task1_total},
        },
        "files": {
            name: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in sorted(files.items())
        },
        "archive": {"file": ARCHIVE, "bytes": len(archive), "sha256": hashlib.sha256(archive).hexdigest()},
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / ARCHIVE).write_bytes(archive)
    shutil.rmtree(out / CULTUREMIX, ignore_errors=True)
    for name, data in files.items():
        if name not in in_archive:
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (out / name).write_bytes(data)
    (out / MANIFEST).write_text(json.dumps(described, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "README.md").write_text(_readme(selection), encoding="utf-8")
    licenses = out / "licenses"
    licenses.mkdir(exist_ok=True)
    (licenses / "borsch-LICENSE").write_bytes(files["borsch/LICENSE"])
    (licenses / "worldcuisines-LICENSE").write_bytes(files[f"{WC}/LICENSE"])
    (licenses / "culturemix-sample-LICENSE").write_bytes(files[f"{CULTUREMIX}/LICENSE"])
    return described


def _readme(selection: Selection) -> str:
    return f"""# The embedded bundle of real results

`make demo` (or `python -m pipeline demo`) with no data folder builds the dashboard's warehouse from this folder,
so a fresh clone with no network shows real answers of real models. Made by `python -m pipeline data bundle
--source DIR` from the public files (pipeline/datasets/bundle.py); the same files give the same bytes.

- **BORSch** (github.com/alavrouk/BORSch, MIT, `licenses/borsch-LICENSE`): the whole dataset, RU_DATA.xlsx,
  UK_DATA.xlsx and PARALLEL_RU_UK.xlsx.
- **CultureMix sample** (the project page github.com/culturemix/culturemix.github.io, CC BY-SA 4.0,
  `licenses/culturemix-sample-LICENSE`): its 120 images and images.csv, unchanged. No model answers to CultureMix
  are public: the dashboard's CultureMix page offers these images as a template answer file.
- **WorldCuisines** (github.com/worldcuisines/worldcuisines, Apache-2.0, `licenses/worldcuisines-LICENSE`):
  {selection.note()}; the whole knowledge base and its multilingual names.

`data.tar.xz` holds the files in the public layout (borsch/, worldcuisines/), each kept line byte for byte, and
`culturemix-sample/` the CultureMix files as they are; `MANIFEST.json` lists the questions and dishes kept, each
file's SHA-256 and the archive's. The selection: every origin question about a post-Soviet dish, then one question
per gold country in turn (seeded order), then the dish-name dishes of those questions and seeded others whose gold
names are their own.

The whole data: `make demo DATA=DIR` with a local copy of the public files, or `python -m pipeline data fetch`
(needs internet) and then `make demo`.

Changes to the files: none but the selection (whole lines kept or left out); `large_eval_task2.csv` is re-written
by Python's csv module with its rows unchanged.
"""


# --- reading the bundle ---------------------------------------------------------------------------


def available(bundle: Path = BUNDLE_DIR) -> bool:
    return (bundle / ARCHIVE).is_file() and (bundle / MANIFEST).is_file()


def manifest(bundle: Path = BUNDLE_DIR) -> dict:
    return json.loads((bundle / MANIFEST).read_text(encoding="utf-8"))


def unpack(dest: Path, bundle: Path = BUNDLE_DIR) -> Path:
    """The bundle as a data folder (borsch/, worldcuisines/, BUNDLE.json) under `dest`, unpacked once per archive
    (checked against the manifest's hash) into a new folder renamed into place, so a killed unpack leaves nothing
    half-written that a later run would read."""
    if not available(bundle):
        raise DataError(
            bundle, f"no embedded bundle ({ARCHIVE}, {MANIFEST}): rebuild it with `python -m pipeline data bundle`"
        )
    info = manifest(bundle)
    archive = (bundle / ARCHIVE).read_bytes()
    digest = hashlib.sha256(archive).hexdigest()
    if digest != info["archive"]["sha256"]:
        raise DataError(bundle / ARCHIVE, "does not match its manifest's SHA-256: the bundle is damaged")
    target = dest / f"bundle-{digest[:16]}"
    if (target / MARKER).is_file():
        return target
    dest.mkdir(parents=True, exist_ok=True)
    staging = dest / f".{target.name}.{os.getpid()}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        with tarfile.open(fileobj=io.BytesIO(lzma.decompress(archive)), mode="r") as tar:
            _extract_inside(tar, staging)
    except (tarfile.TarError, lzma.LZMAError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise DataError(
            bundle / ARCHIVE, f"cannot be unpacked (a path outside its folder, or a broken file): {exc}"
        ) from None
    for name, entry in info["files"].items():  # the loose files (the CultureMix images), checked like the archive
        if not (staging / name).is_file():
            data = (bundle / name).read_bytes() if (bundle / name).is_file() else b""
            if hashlib.sha256(data).hexdigest() != entry["sha256"]:
                shutil.rmtree(staging, ignore_errors=True)
                raise DataError(
                    bundle / name, "is missing or does not match its manifest's SHA-256: the bundle is damaged"
                )
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_bytes(data)
    (staging / MARKER).write_text(json.dumps(info["sources"], ensure_ascii=False), encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


def _extract_inside(tar: tarfile.TarFile, folder: Path) -> None:
    """Extract with tarfile's `data` filter (paths stay inside the folder, no links or devices). Pythons before 3.11.4
    (Debian 12's 3.11.2) lack the filter: every member is checked the same way first, and any other is refused."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(folder, filter="data")
        return
    root = folder.resolve()
    for member in tar.getmembers():
        inside = (root / member.name).resolve().is_relative_to(root)
        if not (member.isfile() or member.isdir()) or not inside or Path(member.name).is_absolute():
            raise tarfile.TarError(f"{member.name!r} is outside the folder or not a plain file or folder")
    tar.extractall(folder)


def subset_notes(data: Path | None) -> dict[str, str]:
    """dataset -> how the bundle cut it, when `data` is an unpacked bundle (else empty)."""
    marker = data / MARKER if data is not None else None
    if marker is None or not marker.is_file():
        return {}
    sources = json.loads(marker.read_text(encoding="utf-8"))
    return {name: source["subset"] for name, source in sources.items() if source.get("subset")}
