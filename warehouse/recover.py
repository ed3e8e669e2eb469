"""Recovering: the working database rebuilt from the published snapshot when it is damaged, the damaged file kept
beside it, and what it held beyond the snapshot listed as far as it can still be read."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from warehouse.connect import connect, fsync_dir
from warehouse.errors import WarehouseError, scratch_file
from warehouse.io import scalar
from warehouse.migrate import migrate
from warehouse.session import attach, source_tables, table_digests

if TYPE_CHECKING:
    from warehouse.session import WarehouseFiles


@dataclass(frozen=True)
class Recovery:
    """What `recover` put back and what it could not (never published, or unreadable)."""

    restored: dict[str, int]
    not_restored: list[str]
    published_at: str | None
    damaged_copy: Path | None


def recover(wh: WarehouseFiles, force: bool = False) -> Recovery:
    """Rebuild the working database from the published snapshot.

    The damaged file is kept beside it (`.damaged`) for inspection; what it held beyond the
    snapshot (never published) is listed, as far as it can still be read. A healthy working
    database is only replaced with `force`, since that discards its unpublished changes."""
    with wh.exclusive(f"{wh.working_path}: cannot recover while another command writes it — wait for it"):
        if not wh.path.exists():
            raise WarehouseError(
                f"{wh.path}: no published snapshot to recover from — rebuild with `python -m pipeline demo` "
                "or the ingest commands"
            )
        published = _file_counts(wh.path)  # raises WarehouseDamaged when the snapshot is damaged too
        published_at = _published_at(wh.path)
        working, unreadable = _readable_working_counts(wh)
        if working is not None and not unreadable and not force:
            raise WarehouseError(
                f"{wh.working_path}: the working database is not damaged, nothing to recover — "
                "pass --force to replace it with the published snapshot anyway (unpublished changes are lost)"
            )
        not_restored = _unpublished(working, unreadable, published, published_at)
        tmp = wh.working_path.with_name(f"{wh.working_path.name}.tmp-{os.getpid()}")
        damaged_copy = None
        with scratch_file(tmp, wh.working_path, wh.path.stat().st_size):
            shutil.copyfile(wh.path, tmp)
            con = connect(str(tmp))
            try:
                migrate(con, wh.path)
                con.execute("CHECKPOINT")
            finally:
                con.close()
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())
            wal = wh.working_path.with_name(wh.working_path.name + ".wal")
            if wh.working_path.exists():
                damaged_copy = wh.damaged_path
                os.replace(wh.working_path, damaged_copy)
                if wal.exists():
                    os.replace(wal, damaged_copy.with_name(damaged_copy.name + ".wal"))
            os.replace(tmp, wh.working_path)
            fsync_dir(wh.path.parent)
    return Recovery(published, not_restored, published_at, damaged_copy)


def _readable_working_counts(wh: WarehouseFiles) -> tuple[dict[str, int] | None, list[str]]:
    """Row counts of the working database's tables, as far as they can be read."""
    if not wh.working_path.exists():
        return {}, []
    con = connect(":memory:")
    try:
        try:
            con.execute("ATTACH ? AS work (READ_ONLY)", [str(wh.working_path)]).fetchall()
        except duckdb.Error:
            return None, []
        counts, unreadable = {}, []
        for schema, table in source_tables(con, "work"):
            try:
                rows = con.execute(f'SELECT count(*), bit_xor(hash(t)) FROM work."{schema}"."{table}" t').fetchall()
                counts[f"{schema}.{table}"] = rows[0][0]
            except duckdb.Error:
                unreadable.append(f"{schema}.{table}")
        return counts, unreadable
    finally:
        con.close()


def _file_counts(path: Path) -> dict[str, int]:
    con = connect(":memory:")
    try:
        attach(con, path, "db")
        return {f"{schema}.{table}": rows for schema, table, rows, *_ in table_digests(con, "db", path)}
    finally:
        con.close()


def _published_at(path: Path) -> str | None:
    con = connect(":memory:")
    try:
        con.execute("ATTACH ? AS pub (READ_ONLY)", [str(path)]).fetchall()
        value = scalar(con, "SELECT max(published_at) FROM pub.marts.fingerprint")
        return str(value)[:19] if value is not None else None
    except duckdb.Error:
        return None
    finally:
        con.close()


def _unpublished(
    working: dict[str, int] | None, unreadable: list[str], published: dict[str, int], published_at: str | None
) -> list[str]:
    """Lines naming what the working database held beyond the snapshot, as far as it can be read."""
    since = f"since the snapshot of {published_at}" if published_at else "since the last snapshot"
    if working is None:
        return [f"the damaged working database cannot be read at all: everything written {since} is lost"]
    lines = [
        f"{table}: {rows - published.get(table, 0):,} rows never published"
        for table, rows in sorted(working.items())
        if rows > published.get(table, 0)
    ]
    lines += [f"{table}: unreadable in the damaged copy (rows written {since} are lost)" for table in unreadable]
    return lines
