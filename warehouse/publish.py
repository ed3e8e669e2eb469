"""Publishing: the working database copied, migrated, its marts built, checked and tested in the copy, which is
renamed over the published snapshot (readers never see a partial one); or, when only a few tables changed since the
snapshot, the snapshot copied and only what reads them rebuilt; nothing at all when nothing changed."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from typing import TYPE_CHECKING

import duckdb

from warehouse.build import build_marts, code_digest, code_files, failed_checks
from warehouse.connect import connect, fsync_dir
from warehouse.errors import WarehouseError, scratch_file, storage_failure
from warehouse.migrate import migrate, migrations
from warehouse.session import attach, file_state, table_digests

if TYPE_CHECKING:
    from warehouse.session import WarehouseFiles


def publish(wh: WarehouseFiles, force: bool = False) -> bool:
    """Copy the working database, build marts and checks into the copy, rename it into place.

    When the snapshot was built by this same code and only some tables changed since (a corpus scan changes
    its own tables only), the snapshot is copied instead, those tables' rows replaced, and only the mart
    statements that read them (directly or through a rebuilt mart) run again: the same tables a full build
    gives, without rebuilding every mart. `force` rebuilds everything.

    Returns False (and does nothing) when the published snapshot already holds exactly this
    content and this code's marts, unless `force`. Damage, a full disk or a read-only folder
    stop it with one line; the snapshot and the working database stay as they were."""
    with wh.exclusive(
        f"{wh.working_path}: cannot publish while another command writes it (lock {wh.lock_path}) — "
        "wait for it to finish"
    ):
        if not wh.working_path.exists():
            raise WarehouseError(
                f"{wh.working_path}: nothing to publish, the working database does not exist — "
                "run an ingest command or `python -m pipeline demo` first"
            )
        _checkpoint_working(wh)
        probe = connect(":memory:")  # one database attaches both files: each new one costs ~25 ms
        try:
            digests = _working_digests(wh, probe)
            if _migrations_differ(digests):  # written by older code: upgraded in place first (newer: refused)
                _migrate_working(wh)
                digests = _working_digests(wh, probe)
            fingerprint = _working_fingerprint(wh, digests)
            published = _published_sources(wh, probe)
        finally:
            probe.close()
        if not force and published is not None and fingerprint == published[0]:
            return False
        sources = {"code": code_digest(), "tables": digests}
        changed = None if force or published is None else _changed_tables(published[1], sources)
        # What each mart statement reads (a function of the statement alone): as the snapshot's build found it when
        # the same code built it, and found by every build, a full one too, so that the next publish (or a copy's:
        # the tests' shared warehouses) parses none of them again.
        built_here = published is not None and _built_by_this_code(published[1], sources)
        sources["reads"] = dict(published[1].get("reads") or {}) if built_here else {}
        base = wh.working_path if changed is None else wh.path
        needed = max(wh.working_path.stat().st_size, base.stat().st_size)
        free = shutil.disk_usage(wh.path.parent).free
        if free < needed:
            raise storage_failure(OSError(errno.ENOSPC, "no space"), wh.path, needed, name_quoted_file=False)
        tmp = wh.path.with_name(f"{wh.path.name}.tmp-{os.getpid()}")
        with scratch_file(tmp, wh.path, needed, name_quoted_file=False):
            shutil.copyfile(base, tmp)
            con = connect(str(tmp))
            try:
                if changed is None:
                    migrate(con, wh.working_path)
                else:
                    con.execute("ATTACH ? AS work (READ_ONLY)", [str(wh.working_path)])
                con.execute("BEGIN TRANSACTION")  # one commit: a commit per mart statement cost more than most
                if changed is not None:
                    _copy_tables(con, "work", changed)
                build_marts(con, changed, sources["reads"])
                failures = failed_checks(con)
                if failures:
                    raise WarehouseError("integrity checks failed, not published:\n" + "\n".join(failures))
                con.execute(
                    "CREATE OR REPLACE TABLE marts.fingerprint AS "
                    "SELECT ? AS fingerprint, now()::TIMESTAMP AS published_at, ? AS sources",
                    [fingerprint, json.dumps(sources)],
                )
                con.execute("COMMIT")
                if changed is not None:
                    con.execute("DETACH work")
                con.execute("CHECKPOINT")
            finally:
                with contextlib.suppress(duckdb.Error):
                    con.close()
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())
            os.replace(tmp, wh.path)
            fsync_dir(wh.path.parent)
    return True


def _checkpoint_working(wh: WarehouseFiles) -> None:
    """Fold a killed writer's WAL into the file, so the copy publish makes has every commit. Without a WAL the
    file holds them all (a writer's session ends with a checkpoint): nothing to open."""
    if wh.working_path.with_name(wh.working_path.name + ".wal").exists():
        _on_working(wh, lambda con: None)


def _migrate_working(wh: WarehouseFiles) -> None:
    """Bring the working database to this code's schema in place (one transaction, then a checkpoint): `publish`
    alone upgrades a warehouse as every writing command does."""
    wh.seen.pop("working", None)
    _on_working(wh, lambda con: migrate(con, wh.working_path))


def _on_working(wh: WarehouseFiles, action: Callable[[duckdb.DuckDBPyConnection], object]) -> None:
    """`action` on the working database, then a checkpoint; a storage failure as its one line."""
    con = wh.open_working()
    try:
        action(con)
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        raise storage_failure(exc, wh.working_path) or exc from exc
    finally:
        with contextlib.suppress(duckdb.Error):
            con.close()


def _working_fingerprint(wh: WarehouseFiles, digests: list[tuple]) -> str:
    """What the snapshot would be built from: every row of every raw/core/meta table (hashed by
    DuckDB, so reading them also verifies their block checksums) and the SQL/Python that builds
    the marts."""
    digest = hashlib.sha256()
    for path in code_files():
        digest.update(path.read_bytes())
    for row in digests:
        digest.update(repr(row).encode())
    return digest.hexdigest()


def _working_digests(wh: WarehouseFiles, con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """Every table's digest: the ones the writer read on opening when the file has not changed since (a
    command with nothing new to write reads the whole database once, not twice), else read now (the working
    database attached to `con`, an in-memory database, for the time of it)."""
    seen = wh.seen.get("working")
    if seen is not None and seen.state == file_state(wh.working_path):
        return seen.digests
    attach(con, wh.working_path, "work")
    try:
        return table_digests(con, "work", wh.working_path)
    finally:
        with contextlib.suppress(duckdb.Error):
            con.execute("DETACH work")


def _published_sources(wh: WarehouseFiles, con: duckdb.DuckDBPyConnection) -> tuple[str, dict | None] | None:
    """The snapshot's fingerprint and what it was built from (`sources`: None from older code), read by attaching
    it to `con` (an in-memory database)."""
    if not wh.path.exists():
        return None
    try:
        con.execute("ATTACH ? AS pub (READ_ONLY)", [str(wh.path)]).fetchall()
    except duckdb.Error:
        return None  # a damaged snapshot: publishing again repairs it
    try:
        row = con.execute("SELECT * FROM pub.marts.fingerprint").fetchone()
        found = dict(zip([d[0] for d in con.description], row, strict=True))
        sources = found.get("sources")  # absent from a snapshot of older code: it is rebuilt in full
        return found["fingerprint"], json.loads(sources) if sources else None
    except (duckdb.Error, TypeError, ValueError, KeyError):
        return None  # no fingerprint (not a snapshot): publishing again repairs it
    finally:
        with contextlib.suppress(duckdb.Error):
            con.execute("DETACH pub")


# Building on the snapshot replaces the changed tables' rows (a delete and an insert, then a checkpoint that rewrites
# them): cheap for a corpus scan's tables, dearer than copying the working file once many rows changed. Measured on the
# demo build (4.2 million rows): corpus tables changed, 1.5 s on the snapshot against 10 s in full; answers, their
# extractions and scores changed (61% of the rows), 56 s on the snapshot against 13 s in full. A few rows are cheap to
# replace whatever their share: on a small warehouse (BORSch alone, 34,000 rows) a corpus scan changes 57% of the rows
# (19,500, every dish's count row per corpus), 1.0 CPU-s on the snapshot against 1.7 CPU-s in full (issue 50).
_MOST_ROWS_CHANGED = 0.1
_FEW_ROWS = 50_000


def _changed_tables(published: dict | None, sources: dict) -> set[str] | None:
    """The raw/core/meta tables whose rows differ from the snapshot's, when building on the snapshot is possible and
    cheaper: built by the same SQL and marts code from the same tables and schema, and the changed tables holding at
    most `_MOST_ROWS_CHANGED` of the rows or at most `_FEW_ROWS` rows (None: rebuild everything)."""
    if not _built_by_this_code(published, sources):
        return None
    old = {(s, t): list(rest) for s, t, *rest in published.get("tables", [])}
    new = {(s, t): list(rest) for s, t, *rest in sources["tables"]}
    if old.keys() != new.keys():
        return None
    changed = {key for key, digest in new.items() if old[key] != digest}
    if ("meta", "schema_migrations") in changed:
        return None
    rows = {key: max(old[key][0], digest[0]) for key, digest in new.items()}  # a table emptied costs its old rows
    replaced = sum(rows[key] for key in changed)
    if replaced > _FEW_ROWS and replaced > _MOST_ROWS_CHANGED * sum(rows.values()):
        return None
    return {f"{s}.{t}" for s, t in changed}


def _built_by_this_code(published: dict | None, sources: dict) -> bool:
    """Whether the snapshot (its `sources`; None from older code) was built by the SQL and marts code of `sources`."""
    return bool(published) and published.get("code") == sources["code"]


def _migrations_differ(digests: list[tuple]) -> bool:
    """Whether the database whose table digests these are has other migrations applied than this code's."""
    applied = next((row[2] for row in digests if row[:2] == ("meta", "schema_migrations")), 0)
    return applied != len(migrations())


def _copy_tables(con: duckdb.DuckDBPyConnection, working: str, tables: set[str]) -> None:
    """Replace the rows of `tables` in a copy of the snapshot with those of the attached working database."""
    for table in sorted(tables):
        con.execute(f"DELETE FROM {table}")
        con.execute(f"INSERT INTO {table} SELECT * FROM {working}.{table}")
