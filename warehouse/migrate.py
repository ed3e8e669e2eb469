"""Migrations: the schema version this code writes and reads (its newest `migrations/NNN_name.sql`), applying the
pending ones in one transaction, and stopping a reader of another version with one line that says what to do."""

from __future__ import annotations

from pathlib import Path

import duckdb

from warehouse.connect import working_path
from warehouse.errors import SchemaMismatch, WarehouseError
from warehouse.io import scalar

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


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


def code_schema_version() -> int:
    """The schema version this code writes and reads: its newest migration's number (what marts.published shows).

    A snapshot of another schema version is not read (`check_schema`): a change to what readers read (a table, a
    mart's columns) therefore comes with a migration, an empty one when only the marts change, and CHANGELOG.md says
    per release whether warehouses must be republished."""
    return max(version for version, _, _ in migrations())


def schema_version(con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> int | None:
    """The schema version of the database `con` (or its attached `catalog`): its newest applied migration; None when
    it has no migration table (not a warehouse, or a database no migration ran on)."""
    database = catalog or scalar(con, "SELECT current_database()")
    exists = scalar(
        con,
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'meta' "
        "AND table_name = 'schema_migrations'",
        [database],
    )
    if not exists:
        return None
    return scalar(con, f'SELECT max(version) FROM "{database}".meta.schema_migrations')


def upgrade_command(path: Path) -> str:
    """The command that upgrades the warehouse whose snapshot is `path`: `publish` migrates a copy of the working
    database and rebuilds the snapshot from it; without a working database, `recover` first makes one from the
    snapshot."""
    publish = f"`python -m pipeline --warehouse {path} publish`"
    working = working_path(path)
    if working.exists():
        return publish
    return f"`python -m pipeline --warehouse {path} recover`, then {publish}"


def newer_schema(path: Path, found: int) -> SchemaMismatch:
    from warehouse.version import release

    return SchemaMismatch(
        f"{path}: schema version {found} is newer than this code's {code_schema_version()} (dish-atlas "
        f"{release()}) — upgrade dish-atlas to open it; nothing was changed"
    )


def check_readable(con: duckdb.DuckDBPyConnection, path: Path, catalog: str | None = None) -> None:
    """Stop a reader of the snapshot `path` (open in `con`, or attached as `catalog`) with one line when its schema
    version is not this code's: older, with the command that upgrades it; newer, refused. A database without a
    migration table is left to the queries (not a warehouse of any version)."""
    found = schema_version(con, catalog)
    current = code_schema_version()
    if found is None or found == current:
        return
    if found > current:
        raise newer_schema(path, found)
    from warehouse.version import release

    raise SchemaMismatch(
        f"{path}: built with schema version {found}, this code (dish-atlas {release()}) reads schema version "
        f"{current} — upgrade it with {upgrade_command(path)}"
    )


def migrate(con: duckdb.DuckDBPyConnection, path: Path | None = None) -> list[int]:
    """Apply pending migrations, all in one transaction: a failure leaves the database at its old version, never
    between two. A database with a migration newer than this code's is refused (`path` names it). Returns the
    versions applied."""
    done = applied_versions(con)
    known = migrations()
    newest = max(version for version, _, _ in known)
    if done and max(done) > newest:
        raise newer_schema(path or Path(scalar(con, "SELECT current_database()")), max(done))
    pending = [(version, name, path) for version, name, path in known if version not in done]
    if not pending:
        return []
    con.execute("BEGIN TRANSACTION")
    try:
        for version, name, sql in pending:
            con.execute(sql.read_text(encoding="utf-8"))
            con.execute("INSERT INTO meta.schema_migrations (version, name) VALUES (?, ?)", [version, name])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return [version for version, _, _ in pending]
