"""Working database, migrations and atomic publishing.

DuckDB allows one writing process or many readers, never both. So the pipeline writes a
*working* database (guarded by a lock file so a second writer gets a clear message) and, when
a command finishes, *publishes* a copy: marts are built into a temporary file which is then
renamed over the published snapshot. Readers (the app, exports) only ever open the snapshot,
read-only; a run that fails or is killed never touches it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from warehouse.io import scalar

__all__ = ["Warehouse", "WarehouseError", "scalar"]

SQL_DIR = Path(__file__).parent
MIGRATIONS_DIR = SQL_DIR / "migrations"
MARTS_DIR = SQL_DIR / "marts"
CHECKS_DIR = SQL_DIR / "checks"


class WarehouseError(RuntimeError):
    """A warehouse that cannot be opened, is locked, or fails its integrity checks."""


class WarehouseLocked(WarehouseError):
    pass


class NotPublished(WarehouseError):
    pass


def migrations() -> list[tuple[int, str, Path]]:
    """Migration files as (version, name, path), ordered; names are `NNN_name.sql`."""
    found = []
    for path in sorted(MIGRATIONS_DIR.glob("*.sql")):
        version, _, name = path.stem.partition("_")
        found.append((int(version), name, path))
    versions = [v for v, _, _ in found]
    if len(set(versions)) != len(versions):
        raise WarehouseError(f"duplicate migration versions in {MIGRATIONS_DIR}")
    return found


def applied_versions(con: duckdb.DuckDBPyConnection) -> set[int]:
    exists = scalar(
        con,
        "SELECT count(*) FROM information_schema.tables "
        "WHERE table_schema = 'meta' AND table_name = 'schema_migrations'",
    )
    if not exists:
        return set()
    return {row[0] for row in con.execute("SELECT version FROM meta.schema_migrations").fetchall()}


def migrate(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Apply pending migrations, each in its own transaction. Returns the versions applied."""
    done = applied_versions(con)
    applied = []
    for version, name, path in migrations():
        if version in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(path.read_text(encoding="utf-8"))
            con.execute("INSERT INTO meta.schema_migrations (version, name) VALUES (?, ?)", [version, name])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied


def build_marts(con: duckdb.DuckDBPyConnection) -> None:
    """The marts of `warehouse.marts.MARTS`, in its order; a mart whose columns break its contract
    stops the publish (the exports and the app rely on those columns)."""
    from warehouse.marts import MARTS

    for mart in MARTS:
        try:
            mart.run(con)
        except duckdb.Error as exc:
            raise WarehouseError(f"marts/{mart.file}: {exc}") from exc
        broken = mart.broken_contracts(con)
        if broken:
            raise WarehouseError(f"marts/{mart.file}: column contract broken: " + "; ".join(broken))


def failed_checks(con: duckdb.DuckDBPyConnection) -> list[str]:
    """dbt-style data tests: each checks/*.sql query returns the offending rows (none = pass)."""
    failures = []
    for path in sorted(CHECKS_DIR.glob("*.sql")):
        for statement in _statements(path.read_text(encoding="utf-8")):
            rows = con.execute(statement).fetchall()
            if rows:
                first_line = statement.strip().splitlines()[0]
                failures.append(f"{path.name}: {first_line} -> {len(rows)} rows, e.g. {rows[:3]}")
    return failures


def _statements(sql: str) -> list[str]:
    """Split a checks file into queries; comment lines (which may contain ';') are dropped first."""
    code = "\n".join(line for line in sql.splitlines() if not line.strip().startswith("--"))
    return [part.strip() for part in code.split(";") if part.strip()]


@dataclass(frozen=True)
class Warehouse:
    """The published snapshot at `path` and its working database beside it."""

    path: Path

    @property
    def working_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".work" + self.path.suffix)

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".lock")

    @property
    def is_published(self) -> bool:
        return self.path.exists()

    @contextlib.contextmanager
    def writer(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The one writable connection, to the working database, migrated to the latest schema."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise WarehouseLocked(
                    f"another pipeline command is writing {self.working_path} "
                    f"(lock {self.lock_path}); wait for it to finish"
                ) from None
            con = duckdb.connect(str(self.working_path))
            try:
                migrate(con)
                yield con
                con.execute("CHECKPOINT")
            finally:
                con.close()

    def publish(self, force: bool = False) -> bool:
        """Copy the working database, build marts and checks into the copy, rename it into place.

        Returns False (and does nothing) when the published snapshot already holds exactly this
        content and this code's marts, unless `force`."""
        if not self.working_path.exists():
            raise WarehouseError(f"nothing to publish: {self.working_path} does not exist")
        tmp = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}")
        with open(self.lock_path, "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise WarehouseLocked(f"cannot publish while another command writes {self.working_path}") from None
            fingerprint = self._working_fingerprint()
            if not force and fingerprint == self._published_fingerprint():
                return False
            try:
                shutil.copyfile(self.working_path, tmp)
                con = duckdb.connect(str(tmp))
                try:
                    migrate(con)
                    build_marts(con)
                    failures = failed_checks(con)
                    if failures:
                        raise WarehouseError("integrity checks failed, not published:\n" + "\n".join(failures))
                    con.execute("CREATE OR REPLACE TABLE marts.fingerprint AS SELECT ? AS fingerprint", [fingerprint])
                    con.execute("CHECKPOINT")
                finally:
                    con.close()
                with open(tmp, "rb") as handle:
                    os.fsync(handle.fileno())
                os.replace(tmp, self.path)
                _fsync_dir(self.path.parent)
            finally:
                tmp.unlink(missing_ok=True)
                tmp.with_name(tmp.name + ".wal").unlink(missing_ok=True)
        return True

    def _working_fingerprint(self) -> str:
        """What the snapshot would be built from: every table's row count, loaded files, the newest
        generation and extraction, and the SQL/Python that builds the marts."""
        digest = hashlib.sha256()
        for path in sorted([*SQL_DIR.glob("*/*.sql"), *MARTS_DIR.glob("*.py")]):
            digest.update(path.read_bytes())
        con = duckdb.connect(":memory:")
        try:
            con.execute("ATTACH ? AS work (READ_ONLY)", [str(self.working_path)]).fetchall()
            tables = con.execute(
                "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'work' "
                "AND schema_name IN ('raw', 'core', 'meta') ORDER BY ALL"
            ).fetchall()
            for schema, table in tables:
                digest.update(
                    repr((schema, table, scalar(con, f"SELECT count(*) FROM work.{schema}.{table}"))).encode()
                )
            for sql in _FINGERPRINT_QUERIES:
                digest.update(repr(con.execute(sql).fetchall()).encode())
        finally:
            con.close()
        return digest.hexdigest()

    def _published_fingerprint(self) -> str | None:
        if not self.path.exists():
            return None
        con = duckdb.connect(":memory:")
        try:
            con.execute("ATTACH ? AS pub (READ_ONLY)", [str(self.path)]).fetchall()
            return scalar(con, "SELECT fingerprint FROM pub.marts.fingerprint")
        except duckdb.Error:
            return None
        finally:
            con.close()

    def reader(self) -> duckdb.DuckDBPyConnection:
        """A read-only connection to the published snapshot."""
        if not self.path.exists():
            raise NotPublished(
                f"no published warehouse at {self.path}: run `make demo` or `python -m pipeline demo` first"
            )
        return duckdb.connect(str(self.path), read_only=True)


_FINGERPRINT_QUERIES = (
    "SELECT sha256, kind, scope FROM work.meta.source_files ORDER BY ALL",
    "SELECT max(created_at) FROM work.core.generations",
    "SELECT max(extracted_at) FROM work.core.extractions",
    "SELECT max(version) FROM work.meta.schema_migrations",
)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
