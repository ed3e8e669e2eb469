"""The warehouse's errors, and the one line a storage failure is worded as: which file, why (damaged, disk full,
read-only, a file where a folder should be) and what to do. Every module that opens or writes a database file words
its failures here, so a full disk reads the same from every command."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb


class WarehouseError(RuntimeError):
    """A warehouse that cannot be opened, is locked, or fails its integrity checks."""


class WarehouseLocked(WarehouseError):
    pass


class NotPublished(WarehouseError):
    pass


class SchemaMismatch(WarehouseError):
    """A warehouse of another schema version: an older one is upgraded by a writing command (readers stop with the
    command that does it), a newer one is refused by everything."""


RECOVER_HINT = "run `python -m pipeline recover` to rebuild it from the published snapshot"

# What DuckDB says when a file's bytes are not what it wrote (block checksums, a foreign file).
_DAMAGE_MARKERS = ("corrupt database file", "not a valid duckdb database", "does not match stored checksum")
_QUOTED_PATH = re.compile(r'file "([^"]+)"')


class UndoesSession(Exception):
    """An error raised out of a writer session that undoes the session's commits (`_Session.discard`): the working
    database is left byte for byte as the command found it, as after a full disk, rather than as the steps left it
    (a refused corpus shard: the shards before it and the corpus's own record are not kept)."""


class WarehouseDamaged(WarehouseError):
    """A database file whose bytes DuckDB cannot read back: checksum mismatch, not a database."""


class WarehouseStorageError(WarehouseError):
    """The disk or folder holding the warehouse refuses a write (full, read-only, not a folder)."""


def storage_failure(
    exc: BaseException, path: Path, needed: int | None = None, name_quoted_file: bool = True
) -> WarehouseError | None:
    """One line for a failure of the file or folder at `path`, or None when `exc` is something else.

    DuckDB reports I/O failures as text; its message names the file (`file "X"`), which is used
    when `name_quoted_file` so the line names the real culprit."""
    text = str(exc)
    lowered = text.lower()
    code = getattr(exc, "errno", None)
    if isinstance(exc, duckdb.Error):
        if any(marker in lowered for marker in _DAMAGE_MARKERS):
            damaged = _quoted_file(text) if name_quoted_file else None
            return WarehouseDamaged(f"{damaged or path}: damaged database ({_first_line(text)}) — {RECOVER_HINT}")
        code = next((c for marker, c in _ERRNO_TEXTS if marker in lowered), None)
        if code is None:
            return None
        if name_quoted_file:
            path = Path(_quoted_file(text) or path)
    elif not isinstance(exc, OSError):
        return None
    elif name_quoted_file and getattr(exc, "filename", None):
        path = Path(exc.filename)
    if code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        folder = _existing_folder(path)
        free = shutil.disk_usage(folder).free
        need = f"needs about {_size(needed)}, " if needed else ""
        why = "no space left on device" if code != errno.EFBIG else "file size limit reached"
        return WarehouseStorageError(
            f"{path}: {why} ({need}{_size(free)} free in {folder}) — free some space or pass --warehouse "
            "on a larger disk, then rerun; nothing was published"
        )
    if code in (errno.EROFS, errno.EACCES, errno.EPERM):
        folder = _existing_folder(path)
        return WarehouseStorageError(
            f"{path}: cannot write there ({os.strerror(code).lower()} in {folder}) — make the folder writable "
            "or pass --warehouse with a writable folder"
        )
    if code in (errno.ENOTDIR, errno.EEXIST):
        blocking = next((p for p in [path, *path.parents] if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            return WarehouseStorageError(
                f"{path}: {blocking} is a file, not a folder — pass --warehouse with a path inside a folder"
            )
    return None


@contextlib.contextmanager
def scratch_file(tmp: Path, path: Path, needed: int | None, name_quoted_file: bool = True) -> Iterator[Path]:
    """A temporary database file `tmp` built to replace `path`: removed with its WAL whatever happens (once renamed
    into place, there is nothing left to remove); a storage failure meanwhile is raised as its one line."""
    try:
        yield tmp
    except (OSError, duckdb.Error) as exc:
        failure = storage_failure(exc, path, needed, name_quoted_file=name_quoted_file)
        if failure is not None:
            raise failure from exc
        raise
    finally:
        tmp.unlink(missing_ok=True)
        tmp.with_name(tmp.name + ".wal").unlink(missing_ok=True)


_ERRNO_TEXTS = (
    ("no space left on device", errno.ENOSPC),
    ("disk quota exceeded", errno.EDQUOT),
    ("file too large", errno.EFBIG),
    ("read-only file system", errno.EROFS),
    ("permission denied", errno.EACCES),
    ("not a directory", errno.ENOTDIR),
)


def _quoted_file(text: str) -> str | None:
    match = _QUOTED_PATH.search(text)
    return match.group(1) if match else None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _existing_folder(path: Path) -> Path:
    return next((p for p in path.parents if p.is_dir()), Path("/"))


def _size(n: int) -> str:
    return f"{n / 2**20:,.1f} MB" if n >= 2**20 else f"{n:,} bytes"
