"""`data fetch`: download the public files for users with internet, into the layout `ingest` reads.

The sources are pinned to the commits named in the project's data notes, so a fetch today and a
fetch next year give the same bytes. Offline, it fails fast and says how to proceed instead.
"""

from __future__ import annotations

import json
import shutil
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from pipeline.errors import DataError, OfflineError

BORSCH = "https://raw.githubusercontent.com/alavrouk/BORSch/e697041065f09dcf120ffb7ba622b112f3611816"
WORLDCUISINES = "https://raw.githubusercontent.com/worldcuisines/worldcuisines/d4d1c4446f468877c06bbf4e516bbe44993246d0"
WORLDCUISINES_MODELS = (
    "Phi-3.5-vision-instruct",
    "aria-25B-moe-4B",
    "gpt-4o-2024-08-06",
    "gpt-4o-mini-2024-07-18",
    "llama-3.2-11b",
    "llava-1.6-13b",
    "llava-1.6-7b",
    "molmo-7b-d",
    "molmo-7b-o",
    "molmoe-1b",
    "qwen-vl-2b",
    "qwen2-vl-7b-instruct",
)


@dataclass(frozen=True)
class RemoteFile:
    url: str
    dest: str  # relative to the data directory


def manifest() -> list[RemoteFile]:
    files = [
        RemoteFile(f"{BORSCH}/data/RU/RU_DATA.xlsx", "borsch/RU_DATA.xlsx"),
        RemoteFile(f"{BORSCH}/data/UK/UK_DATA.xlsx", "borsch/UK_DATA.xlsx"),
        RemoteFile(f"{BORSCH}/data/PARALLEL/PARALLEL_RU_UK.xlsx", "borsch/PARALLEL_RU_UK.xlsx"),
        RemoteFile(f"{BORSCH}/LICENSE", "borsch/LICENSE"),
        RemoteFile(f"{WORLDCUISINES}/kb/final_data.csv", "worldcuisines/kb/final_data.csv"),
        RemoteFile(f"{WORLDCUISINES}/kb/food_name_multiling.csv", "worldcuisines/kb/food_name_multiling.csv"),
        RemoteFile(f"{WORLDCUISINES}/eval/large_eval_task2.csv", "worldcuisines/eval/large_eval_task2.csv"),
        RemoteFile(f"{WORLDCUISINES}/LICENSE", "worldcuisines/LICENSE"),
    ]
    files += [
        RemoteFile(
            f"{WORLDCUISINES}/evaluation/result/task2_oe_{model}_pred.jsonl",
            f"worldcuisines/predictions/task2_oe_{model}.jsonl",
        )
        for model in WORLDCUISINES_MODELS
    ]
    return files


BORSCH_REPO = "alavrouk/BORSch"
BORSCH_COMMIT = "e697041065f09dcf120ffb7ba622b112f3611816"
GITHUB_TREE = f"https://api.github.com/repos/{BORSCH_REPO}/git/trees/{BORSCH_COMMIT}?recursive=1"
# The BORSch photos are stored with Git LFS: their bytes are served from the media host.
GITHUB_MEDIA = f"https://media.githubusercontent.com/media/{BORSCH_REPO}/{BORSCH_COMMIT}"


def borsch_image_manifest(timeout: float = 60.0) -> list[RemoteFile]:
    """Every dish photo of the BORSch repository (data/RU|UK/images/ID/*), laid out as `generate
    --images DIR/borsch` expects (DIR/borsch/RU/images/ID/file)."""
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


def worldcuisines_image_manifest(data_dir: Path) -> list[RemoteFile]:
    """The photo of each task-2 item (eval/large_eval_task2.csv image_url) as DIR/worldcuisines/images/
    FOOD_ID/QA_ID.ext, the layout `generate --images DIR/worldcuisines/images` reads."""
    import csv

    path = data_dir / "worldcuisines" / "eval" / "large_eval_task2.csv"
    if not path.is_file():
        return []
    files = []
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            url = (row.get("image_url") or "").strip()
            if url:
                suffix = Path(urlparse(url).path).suffix.lower() or ".jpg"
                food_id, qa_id = safe_id(row["food_id"], path), safe_id(row["qa_id"], path)
                files.append(RemoteFile(url, f"worldcuisines/images/{food_id}/{qa_id}{suffix}"))
    return files


def check_online(url: str, timeout: float = 3.0) -> None:
    """Fail in seconds, not minutes, when the host cannot be reached."""
    host = urlparse(url).hostname or ""
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError as exc:
        raise OfflineError(
            f"cannot reach {host} ({exc}). This machine looks offline: pass a local copy of the data "
            "instead, e.g. `python -m pipeline demo --data DIR`, `python -m pipeline ingest borsch --source DIR`, "
            "or `make demo DATA=DIR`."
        ) from exc


def safe_id(value: str | None, source: Path | str) -> str:
    """An id used as one path component (a folder or file name): no separators, no `.`/`..`."""
    text = (value or "").strip()
    if not text or text in (".", "..") or any(c in text for c in "/\\\0") or ":" in text:
        raise DataError(
            source, f"id {text!r} cannot name a file — the manifest is damaged or hostile; nothing was downloaded"
        )
    return text


def inside(dest: Path, relative: str) -> Path:
    """`dest/relative`, refused unless it stays inside `dest`: no absolute path, no `..`, no
    backslash or NUL, and no symlink inside `dest` leading out of it."""
    parts = relative.split("/")
    if (
        not relative
        or relative.startswith("/")
        or any(part in ("", ".", "..") for part in parts)
        or any(c in relative for c in "\\\0")
        or ":" in parts[0]
    ):
        raise DataError(
            relative,
            f"download destination is not inside {dest} — the manifest is damaged or hostile; nothing was downloaded",
        )
    root = dest.resolve()
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        raise DataError(relative, f"download destination leads out of {dest} through a link — remove the link")
    return target


def fetch(dest: Path, files: list[RemoteFile] | None = None, timeout: float = 60.0) -> list[Path]:
    """Download what is missing into dest (atomic per file); returns the paths written. Every
    destination is checked to lie inside `dest` before anything is downloaded."""
    files = files if files is not None else manifest()
    targets = [inside(dest, remote.dest) for remote in files]
    written = []
    checked_hosts: set[str] = set()
    for remote, target in zip(files, targets, strict=True):
        if target.exists() and target.stat().st_size > 0:
            continue
        host = urlparse(remote.url).hostname or ""
        if host not in checked_hosts:
            check_online(remote.url)
            checked_hosts.add(host)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        try:
            with urllib.request.urlopen(remote.url, timeout=timeout) as response, open(partial, "wb") as out:
                shutil.copyfileobj(response, out)
        except (urllib.error.URLError, OSError) as exc:
            partial.unlink(missing_ok=True)
            raise OfflineError(f"download of {remote.url} failed: {exc}") from exc
        partial.replace(target)
        written.append(target)
    return written
