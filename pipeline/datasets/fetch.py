"""`data fetch`: download the public files for users with internet, into the layout `ingest` reads.

Each dataset module (pipeline/datasets/) declares its public files at a pinned commit with their
SHA-256, so a fetch today and a fetch next year give the same bytes. `pooch` does the download and
the check (`known_hash`): it writes to a temporary file beside the target and moves it into place
only when the hash matches, and downloads again a copy whose bytes differ. What stays ours: every
destination is kept inside `--dest` (pipeline/core/safepaths.py) before anything is fetched, and offline
it fails fast and says how to proceed instead.
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from urllib.parse import urlparse

import pooch
import requests

from pipeline.core.errors import DataError, OfflineError
from pipeline.core.output import say
from pipeline.core.safepaths import inside
from pipeline.datasets import DATASETS, all_datasets
from pipeline.datasets.base import RemoteFile

__all__ = ["RemoteFile", "check_online", "fetch", "fetch_dataset", "image_manifest", "manifest"]


def manifest() -> list[RemoteFile]:
    """Every registered dataset's public files (each dataset module declares its own)."""
    return [remote for dataset in all_datasets() for remote in dataset.public_files()]


def image_manifest(data_dir: Path) -> list[RemoteFile]:
    """Every registered dataset's photos (`data fetch --images`)."""
    return [remote for dataset in all_datasets() for remote in dataset.image_manifest(data_dir)]


def check_online(url: str, timeout: float = 3.0) -> None:
    """Fail in seconds, not minutes, when the host cannot be reached."""
    parsed = urlparse(url)
    host = parsed.hostname or ""
    try:
        socket.create_connection(
            (host, parsed.port or (80 if parsed.scheme == "http" else 443)), timeout=timeout
        ).close()
    except OSError as exc:
        raise OfflineError(
            f"cannot reach {host} ({exc}). This machine looks offline: pass a local copy of the data "
            "instead, e.g. `python -m pipeline demo --data DIR`, `python -m pipeline ingest borsch --source DIR`, "
            "or `make demo DATA=DIR`."
        ) from exc


def fetch(dest: Path, files: list[RemoteFile] | None = None, timeout: float = 60.0) -> list[Path]:
    """Download what is missing or differs into dest; returns the paths written. Every destination
    is checked to lie inside `dest` before anything is downloaded."""
    files = files if files is not None else manifest()
    targets = [inside(dest, remote.dest) for remote in files]
    written = []
    checked_hosts: set[str] = set()
    downloader = pooch.HTTPDownloader(timeout=timeout)
    logging.getLogger("pooch").setLevel(logging.WARNING)  # the command prints its own summary
    for remote, target in zip(files, targets, strict=True):
        if target.exists() and target.stat().st_size == 0:
            target.unlink()  # an empty leftover is never a download, pinned or not
        if target.exists() and (not remote.sha256 or pooch.file_hash(str(target)) == remote.sha256):
            continue  # already here, with the pinned bytes (a damaged copy is downloaded again)
        host = urlparse(remote.url).hostname or ""
        if host not in checked_hosts:
            check_online(remote.url)
            checked_hosts.add(host)
        try:
            pooch.retrieve(
                remote.url,
                known_hash=f"sha256:{remote.sha256}" if remote.sha256 else None,
                fname=target.name,
                path=target.parent,
                downloader=downloader,
            )
        except ValueError as exc:  # pooch: the downloaded bytes do not match known_hash
            raise OfflineError(
                f"download of {remote.url} does not match its pinned SHA-256 {remote.sha256[:12]}…: "
                "the host served different bytes; nothing was kept"
            ) from exc
        except (requests.RequestException, OSError) as exc:
            raise OfflineError(f"download of {remote.url} failed: {exc}") from exc
        written.append(target)
    return written


def fetch_dataset(name: str | None, dest: Path, images: bool = False) -> None:
    """`data fetch [NAME] [--images]`, the one path every download takes. No name: every dataset's public files
    (BORSch, WorldCuisines; their photos too with `images`) into `dest`. A name: what that dataset's module declares
    for it alone (`named_files`, or its own `fetch`), into `dest/NAME`."""
    if name is None:
        written = fetch(dest)
        if images:
            written += fetch(dest, image_manifest(dest))
        say("{} files downloaded into {}", len(written), dest)
        return
    dataset = DATASETS.get(name) if name in DATASETS else None
    if dataset is not None and dataset.named_files is not None:  # public parquet files of the ZNO-Vision study
        written = fetch(dest / name, dataset.named_files())
        say("{} {} files written to {}", len(written), name, dest / name)
    elif dataset is not None and dataset.fetch is not None:
        written = dataset.fetch(dest / name)
        say("{} {} tables written to {}", len(written), dataset.info.title.partition(":")[0], dest / name)
    else:
        raise DataError("data fetch", f"unknown dataset {name!r} — known: culturemix (or none for the rest)")
