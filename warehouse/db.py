"""The warehouse as the pipeline, the app and the tests use it: `Warehouse(path)`, a published snapshot and its
working database, and the names callers import. A thin facade; each job has its own module:

- warehouse/connect.py: opening DuckDB (threads), where the working database lives;
- warehouse/migrate.py: schema versions and migrations;
- warehouse/session.py: the lock, the writer session (undone on a storage failure) and the reader;
- warehouse/build.py: building the marts, checking their contracts, running their data tests and checks;
- warehouse/publish.py: the atomic publish (a copy built, then renamed over the snapshot);
- warehouse/recover.py: rebuilding a damaged working database from the snapshot;
- warehouse/errors.py: the errors, and the one line a storage failure is worded as.

DuckDB allows one writing process or many readers, never both. So the pipeline writes a *working* database (guarded
by a lock file so a second writer waits, then gets a clear message) and, when a command finishes, *publishes* a copy:
marts are built into a temporary file which is then renamed over the published snapshot. Readers (the app, exports)
only ever open the snapshot, read-only; a run that fails or is killed never touches it.
"""

from __future__ import annotations

from dataclasses import dataclass

from warehouse.build import build_marts, failed_checks
from warehouse.connect import THREADS_ENV, connect, duckdb_threads
from warehouse.errors import (
    NotPublished,
    SchemaMismatch,
    UndoesSession,
    WarehouseDamaged,
    WarehouseError,
    WarehouseLocked,
    WarehouseStorageError,
    storage_failure,
)
from warehouse.io import scalar
from warehouse.migrate import check_readable, code_schema_version, migrate, migrations, schema_version
from warehouse.publish import publish
from warehouse.recover import Recovery, recover
from warehouse.session import LOCK_WAIT_ENV, WarehouseFiles, table_fingerprints

__all__ = [
    "LOCK_WAIT_ENV",
    "THREADS_ENV",
    "NotPublished",
    "Recovery",
    "SchemaMismatch",
    "UndoesSession",
    "Warehouse",
    "WarehouseDamaged",
    "WarehouseError",
    "WarehouseLocked",
    "WarehouseStorageError",
    "build_marts",
    "check_readable",
    "code_schema_version",
    "connect",
    "duckdb_threads",
    "failed_checks",
    "migrate",
    "migrations",
    "scalar",
    "schema_version",
    "storage_failure",
    "table_fingerprints",
]


@dataclass(frozen=True)
class Warehouse(WarehouseFiles):
    """The published snapshot at `path` and its working database beside it: `writer()`, `reader()`, `publish()`,
    `recover()`."""

    def publish(self, force: bool = False) -> bool:
        """Build and publish a new snapshot (warehouse/publish.py); False when it already holds this content."""
        return publish(self, force)

    def recover(self, force: bool = False) -> Recovery:
        """Rebuild the working database from the snapshot (warehouse/recover.py)."""
        return recover(self, force)
