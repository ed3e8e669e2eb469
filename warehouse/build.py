"""Building the marts into a database: each mart of `warehouse.marts.MARTS` in order, then its tables checked
against their declared contracts (every column and type) and their data tests run, then the integrity checks
(checks/*.sql); and the digest of the code the marts are built by (a snapshot of other code is rebuilt in full)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb

from warehouse.errors import WarehouseError

SQL_DIR = Path(__file__).parent
MARTS_DIR = SQL_DIR / "marts"
CHECKS_DIR = SQL_DIR / "checks"


def build_marts(con: duckdb.DuckDBPyConnection, changed: set[str] | None = None, known: dict | None = None) -> None:
    """The marts of `warehouse.marts.MARTS`, in its order; a mart whose tables break their declared contract (every
    column and type, in order) or fail a data test stops the publish (the exports and the app rely on them). With
    `changed` (the source tables that differ from a snapshot the database was copied from), only the marts that
    depend on them are rebuilt, checked and tested: the others in the copy are what rebuilding them would give.
    `known`: what each statement reads, as earlier builds found it (`Mart.run`), and completed here."""
    from warehouse.marts import MARTS

    if changed is not None or known is not None:  # a full build finds what the views read too, for the next one
        views = _view_reads(con, {} if known is None else known)
        changed = None if changed is None else _with_views(set(changed), views)
    ran = []
    for mart in MARTS.values():
        try:
            if mart.run(con, changed, known):
                ran.append(mart)
        except duckdb.Error as exc:
            _check_contracts(con, ran)  # a mart reading a column an earlier one broke: the break is the cause
            raise WarehouseError(f"marts/{mart.file}: {exc}") from exc
    _check_contracts(con, ran)
    _run_data_tests(con, ran)


def _view_reads(con: duckdb.DuckDBPyConnection, known: dict) -> dict[str, set[str] | None]:
    """What each raw/core view reads (None: cannot tell), kept in `known` as a mart statement's is."""
    from warehouse.marts import known_reads

    views = con.execute(
        "SELECT schema_name || '.' || view_name, sql FROM duckdb_views() WHERE database_name = current_database() "
        "AND NOT internal AND schema_name IN ('raw', 'core')"
    ).fetchall()
    found = {view: known_reads(con, sql, view, known) for view, sql in views}
    return {view: None if tables is None else set(tables) for view, tables in found.items()}


def _with_views(changed: set[str], views: dict[str, set[str] | None]) -> set[str]:
    """`changed` and every view that reads one of them (core.items unites the items of two steps: migration 090): a
    mart reading the view reads the changed table."""
    grown = True
    while grown:  # a view of a view
        found = {view for view, tables in views.items() if tables is None or tables & changed} - changed
        changed |= found
        grown = bool(found)
    return changed


def _check_contracts(con: duckdb.DuckDBPyConnection, marts: list) -> None:
    """Stop at the first of `marts` (in build order) whose tables break their column contract."""
    from warehouse.marts.contract import built_columns

    found = built_columns(con)
    for mart in marts:
        broken = mart.broken_contracts(found)
        if broken:
            raise WarehouseError(f"marts/{mart.file}: column contract broken: " + "; ".join(broken))


def _run_data_tests(con: duckdb.DuckDBPyConnection, marts: list) -> None:
    """Run the data tests the declarations of `marts` name (one query for all of them); stop at the first failure in
    build order with one line naming the mart, the table and column, the test and some offending values."""
    from warehouse.marts.contract import failed_data_tests

    tests = [(mart, test) for mart in marts for spec in mart.tables.values() for test in spec.tests]
    failed = failed_data_tests(con, [test for _, test in tests])
    if failed:
        test, n, sample = failed[0]
        mart = next(mart for mart, declared in tests if declared is test)
        more = f" (and {len(failed) - 1} more failing tests)" if len(failed) > 1 else ""
        raise WarehouseError(
            f"marts/{mart.file}: data test failed: {test.label}: {n:,} offending rows, e.g. {sample}{more} — "
            f"nothing was published"
        )


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


def code_files() -> list[Path]:
    """What the snapshot's fingerprint hashes beside the tables: the SQL, the marts' Python and their declarations.
    geometry.py: how marts.map_outlines draws the countries (kept outside marts/, which the app must not import)."""
    marts = [*MARTS_DIR.glob("*.py"), *MARTS_DIR.glob("*.toml")]
    return sorted([*SQL_DIR.glob("*/*.sql"), *marts, SQL_DIR / "geometry.py"])


def code_digest() -> str:
    """Every SQL and Python file of the warehouse and the marts' declarations, which is all the marts run (they import
    nothing from the pipeline: tests/test_architecture.py): a snapshot built by other code is rebuilt in full, never
    patched, and a change to the pipeline alone (a help text) rebuilds nothing."""
    root = SQL_DIR.parent
    digest = hashlib.sha256()
    for path in sorted([*SQL_DIR.rglob("*.sql"), *SQL_DIR.rglob("*.py"), *MARTS_DIR.glob("*.toml")]):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
