"""`data fetch`: download the public files for users with internet, into the layout `ingest` reads.

Each dataset module (pipeline/datasets/) declares its public files at a pinned commit with their
SHA-256, so a fetch today and a fetch next year give the same bytes (a file that differs is refused).
Offline, it fails fast and says how to proceed instead.
"""

from __future__ import annotations

import hashlib
import shutil
import socket
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

from pipeline.datasets import all_datasets
from pipeline.datasets.base import RemoteFile
from pipeline.errors import OfflineError
from pipeline.safepaths import inside

__all__ = ["RemoteFile", "check_online", "fetch", "image_manifest", "manifest"]


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
    """Download what is missing into dest (atomic per file); returns the paths written. Every
    destination is checked to lie inside `dest` before anything is downloaded."""
    files = files if files is not None else manifest()
    targets = [inside(dest, remote.dest) for remote in files]
    written = []
    checked_hosts: set[str] = set()
    for remote, target in zip(files, targets, strict=True):
        if target.exists() and target.stat().st_size > 0 and (not remote.sha256 or _sha256(target) == remote.sha256):
            continue  # already here, with the pinned bytes (a damaged copy is downloaded again)
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
        if remote.sha256 and _sha256(partial) != remote.sha256:
            partial.unlink(missing_ok=True)
            raise OfflineError(
                f"download of {remote.url} does not match its pinned SHA-256 {remote.sha256[:12]}…: "
                "the host served different bytes; nothing was kept"
            )
        partial.replace(target)
        written.append(target)
    return written


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
