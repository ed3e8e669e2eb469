"""The dashboard's own small stores: the live probe's probes and the review page's annotations.

The app never writes the published warehouse (it opens it read-only, and publish replaces it
wholesale), so what people do on the pages goes to two DuckDB files of their own, by default beside
the warehouse: `probes.duckdb` ($DISH_ATLAS_PROBES) and `annotations.duckdb`
($DISH_ATLAS_ANNOTATIONS). Both follow the one path rule here (`Store.path`): a store may be any
file except the warehouse's own files (the published snapshot, its working copy
`*.work.duckdb`, the lock, a publish's temp files and their WALs).

Each call opens its own short-lived connection (`Store.connect`) and closes it, so the app never
holds a store open: a second app process, or another session's thread, takes its turn.
"""

# No `from __future__ import annotations` here: it would bind the name `annotations` in this package
# and shadow the `pipeline.stores.annotations` module for `from pipeline.stores import annotations`.
import contextlib
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipeline.core.settings import default_warehouse
from warehouse.db import Warehouse

_RETRIES = 20  # another process holding the file: wait up to ~2 s
_RETRY_SECONDS = 0.1
# Within one process duckdb refuses a second connection to a file with another configuration, and
# the page's sessions are threads: one store file is opened by one of them at a time.
_LOCK = threading.Lock()


class StoreError(RuntimeError):
    """A store path that would touch the warehouse, or a value the store does not accept."""


@dataclass(frozen=True)
class Store:
    """One of the app's stores: what it holds (for messages), its environment variable and its
    default file name beside the warehouse."""

    what: str
    env: str
    filename: str

    def default_path(self) -> Path:
        """$ENV, else FILENAME beside the published warehouse (as configured, not resolved)."""
        if os.environ.get(self.env):
            return Path(os.environ[self.env]).expanduser()
        return default_warehouse().expanduser().parent / self.filename

    def path(self, path: Path | str | None = None) -> Path:
        """The store's file (resolved); StoreError when it is one of the warehouse's own files."""
        target = Path(path).expanduser().resolve() if path is not None else self.default_path().resolve()
        if warehouse_file(target):
            raise StoreError(
                f"the {self.what} store {target} would overwrite the warehouse; set {self.env} to another file"
            )
        return target

    @contextlib.contextmanager
    def connect(self, path: Path, *, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection to the (checked) store file, closed afterwards: read-write, or `read_only` for a reader, which
        then changes nothing (a shared dashboard's pages, a store on a read-only mount)."""
        with _LOCK:
            if not read_only:
                path.parent.mkdir(parents=True, exist_ok=True)
            for attempt in range(_RETRIES):
                try:
                    con = duckdb.connect(str(path), read_only=read_only)
                    break
                except (duckdb.IOException, duckdb.ConnectionException):  # held by another process for a moment
                    if attempt == _RETRIES - 1:
                        raise
                    time.sleep(_RETRY_SECONDS)
            try:
                yield con
            finally:
                con.close()


def warehouse_file(path: Path) -> bool:
    """Whether `path` (resolved) is one of the configured warehouse's files: the published snapshot,
    the working copy, the lock, a kept damaged copy, a publish or recover temp file, or a WAL of one."""
    warehouse = Warehouse(default_warehouse().expanduser().resolve())
    own = {warehouse.path, warehouse.working_path, warehouse.lock_path, warehouse.damaged_path}
    if path in own or path in {p.with_name(p.name + ".wal") for p in own}:
        return True
    names = "|".join(re.escape(p.name) for p in (warehouse.path, warehouse.working_path))
    return path.parent == warehouse.path.parent and re.fullmatch(rf"(?:{names})\.tmp-.*", path.name) is not None


PROBES = Store("probe", "DISH_ATLAS_PROBES", "probes.duckdb")
ANNOTATIONS = Store("annotation", "DISH_ATLAS_ANNOTATIONS", "annotations.duckdb")
