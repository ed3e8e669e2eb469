"""The writer session and the reader: the warehouse lock (one writer at a time, the others wait), the working database
opened, checked and migrated, a session's commits undone on a storage failure (`_UndoRecord`), and the read-only
connection to the published snapshot. Publishing and recovering are warehouse/publish.py and warehouse/recover.py;
`warehouse.db.Warehouse` joins them."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from warehouse.connect import connect, working_path
from warehouse.errors import (
    NotPublished,
    UndoesSession,
    WarehouseError,
    WarehouseLocked,
    WarehouseStorageError,
    storage_failure,
)
from warehouse.io import scalar
from warehouse.migrate import check_readable, migrate

# Larger than any WAL a session writes: no checkpoint happens before the session's own last one.
SESSION_CHECKPOINT_THRESHOLD = "1TB"
_HEADER_BYTES = 3 * 4096  # DuckDB's main header and its two alternating database headers


@dataclass
class _UndoRecord:
    """One writer session's undo record, for storage failures.

    DuckDB never overwrites blocks in use: a checkpoint writes new blocks, then switches the header.
    With automatic checkpoints off, the file's header therefore stays as it was at the session's
    start (its bytes prove it), and every commit of the session lives in the WAL or in blocks the WAL
    points to (DuckDB writes large inserts straight to unused blocks), which that header does not
    use. Dropping the WAL and the blocks appended after the old end undoes the session as a whole."""

    path: Path
    size: int
    header: bytes

    @classmethod
    def start(cls, con: duckdb.DuckDBPyConnection, path: Path) -> _UndoRecord:
        con.execute(f"SET checkpoint_threshold = '{SESSION_CHECKPOINT_THRESHOLD}'")
        with open(path, "rb") as handle:
            header = handle.read(_HEADER_BYTES)
        return cls(path, path.stat().st_size, header)

    @property
    def wal(self) -> Path:
        return self.path.with_name(self.path.name + ".wal")

    def wal_size(self) -> int | None:
        """What the final checkpoint had to fold in (an upper bound of the space it needed)."""
        try:
            return self.wal.stat().st_size or None
        except OSError:
            return None

    def discard(self, con: duckdb.DuckDBPyConnection) -> None:
        """Close `con` without a checkpoint and drop the session's commits. Left alone when the header
        changed (a checkpoint did complete: the file then holds a committed state of its own, never a
        partial one) or the folder refuses the change."""
        with contextlib.suppress(duckdb.Error):
            con.execute("PRAGMA disable_checkpoint_on_shutdown")
        with contextlib.suppress(duckdb.Error):
            con.close()
        try:
            with open(self.path, "rb") as handle:
                if handle.read(_HEADER_BYTES) != self.header:
                    return
            self.wal.unlink(missing_ok=True)
            if self.path.stat().st_size > self.size:
                os.truncate(self.path, self.size)
        except OSError:
            pass  # a folder that became read-only: the WAL stays, and the next writer folds it in


@dataclass(frozen=True)
class Seen:
    """The working database as a writer found it: its file's state and every table's digest."""

    state: tuple[int, int, int]
    digests: list[tuple]


# A file changed less than this long before a writer opened it is not trusted to show later changes in its
# modification time (file times come from a clock that ticks every few milliseconds).
_SETTLED_NS = 1_000_000_000


def file_state(path: Path, settled: bool = False) -> tuple[int, int, int] | None:
    """(inode, size, modification time) of a database file with no WAL beside it; None when there is a WAL, or,
    with `settled`, when the file changed within _SETTLED_NS. DuckDB leaves the file untouched by a session that
    changes nothing and rewrites it when a change is checkpointed, so an equal state later means equal contents."""
    try:
        found = path.stat()
    except OSError:
        return None
    if path.with_name(path.name + ".wal").exists():
        return None
    if settled and time.time_ns() - found.st_mtime_ns < _SETTLED_NS:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


@dataclass(frozen=True)
class WarehouseFiles:
    """The published snapshot at `path` and its working database beside it: their lock, the writer session and the
    reader (`warehouse.db.Warehouse` adds publishing and recovering)."""

    path: Path
    # what the last writer read when it opened the working database (reused by publish when nothing changed)
    seen: dict[str, Seen] = field(default_factory=dict, compare=False, repr=False)

    @property
    def working_path(self) -> Path:
        return working_path(self.path)

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".lock")

    @property
    def damaged_path(self) -> Path:
        return self.working_path.with_name(self.working_path.name + ".damaged")

    @property
    def is_published(self) -> bool:
        return self.path.exists()

    @contextlib.contextmanager
    def writer(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The one writable connection, to the working database, migrated to the latest schema.

        Opening reads every table once (a fraction of a second on the demo), so a damaged file is
        reported before anything is written to it. The session's commits are not checkpointed until
        its end (`_UndoRecord`): a killed command keeps them (the rerun resumes), while a full disk or a
        file size limit anywhere in the session, its final checkpoint included, discards them, so the
        working database is left as it was before the command. (A folder read-only from the start
        stops the command before it writes; one that turns read-only midway cannot have the WAL
        removed, and the next writer folds it in.)"""
        with self.exclusive(
            f"{self.working_path}: another pipeline command is writing it (lock {self.lock_path}) — "
            "wait for it to finish"
        ):
            state = file_state(self.working_path, settled=True)
            con = self.open_working()
            session: _UndoRecord | None = None
            try:
                try:
                    digests = table_digests(con, scalar(con, "SELECT current_database()"), self.working_path)
                    self.seen.pop("working", None)
                    if state is not None:
                        self.seen["working"] = Seen(state, digests)
                    con.execute("CHECKPOINT")  # a killed writer's WAL is folded in before this session starts
                    session = _UndoRecord.start(con, self.working_path)
                    migrate(con, self.working_path)
                    yield con
                    con.execute("CHECKPOINT")
                except UndoesSession:
                    if session is not None:
                        session.discard(con)
                    raise
                except duckdb.Error as exc:
                    needed = session.wal_size() if session is not None else None
                    failure = storage_failure(exc, self.working_path, needed)
                    if isinstance(failure, WarehouseStorageError) and session is not None:
                        session.discard(con)
                    if failure is not None:
                        raise failure from exc
                    raise
            finally:
                with contextlib.suppress(duckdb.Error):
                    con.close()

    def leftovers(self) -> list[Path]:
        """Temporary files of a killed publish or recover: `NAME.tmp-PID` and its `.wal`, for the
        snapshot and the working database only (nothing else in the folder is ever touched)."""
        names = "|".join(re.escape(p.name) for p in (self.path, self.working_path))
        pattern = re.compile(rf"^(?:{names})\.tmp-\d+(?:\.wal)?$")
        try:
            return sorted(p for p in self.path.parent.iterdir() if pattern.match(p.name) and p.is_file())
        except OSError:
            return []

    @contextlib.contextmanager
    def exclusive(self, busy: str) -> Iterator[None]:
        """The warehouse lock; once held, a killed command's temporary files are removed.

        A command that finds another one writing waits for it (saying so once, on standard error) up to
        DISH_ATLAS_LOCK_WAIT seconds, then stops with `busy`: commands started together run one after the other, as
        if run in turn. Within one process the lock is never waited for (the holder is this process itself)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock = open(self.lock_path, "a+")  # noqa: SIM115 - held for the whole block below
        except OSError as exc:
            raise storage_failure(exc, self.lock_path, name_quoted_file=False) or exc from exc
        key = str(self.lock_path)
        with lock:
            if key in _HELD or not _wait_for_lock(lock, lock_wait_seconds(), self.working_path):
                raise WarehouseLocked(busy)
            _HELD.add(key)
            try:
                for path in self.leftovers():
                    path.unlink(missing_ok=True)
                yield
            finally:
                _HELD.discard(key)

    def open_working(self) -> duckdb.DuckDBPyConnection:
        wal = self.working_path.with_name(self.working_path.name + ".wal")
        if self.working_path.exists() and self.working_path.stat().st_size == 0 and not wal.exists():
            self.working_path.unlink()  # created by a command killed before DuckDB wrote its header
        try:
            return connect(str(self.working_path))
        except duckdb.Error as exc:
            raise storage_failure(exc, self.working_path) or exc from exc

    def reader(self) -> duckdb.DuckDBPyConnection:
        """A read-only connection to the published snapshot."""
        if not self.path.exists():
            raise NotPublished(
                f"no published warehouse at {self.path}: run `make demo` or `python -m pipeline demo` first"
            )
        con = connect(str(self.path), read_only=True)
        try:
            check_readable(con, self.path)
        except BaseException:
            con.close()
            raise
        return con


# DISH_ATLAS_LOCK_WAIT=SECONDS: how long a command waits for another one writing the same warehouse (0: stop at once
# with one line, the behaviour before commands waited).
LOCK_WAIT_ENV = "DISH_ATLAS_LOCK_WAIT"
DEFAULT_LOCK_WAIT = 3600.0
_LOCK_POLL = 0.05
_HELD: set[str] = set()  # the lock files this process holds


def lock_wait_seconds() -> float:
    value = os.environ.get(LOCK_WAIT_ENV, "").strip()
    if not value:
        return DEFAULT_LOCK_WAIT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise WarehouseError(f"{LOCK_WAIT_ENV}={value!r}: expected a number of seconds, 0 or more")
    return seconds


def _wait_for_lock(lock, seconds: float, working: Path) -> bool:
    """Take the lock on the open file `lock`, waiting up to `seconds` for its holder; whether it was taken."""
    deadline = time.monotonic() + seconds
    said = False
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
        if not said:
            print(
                f"waiting: another pipeline command is writing {working} — this one goes on when it finishes "
                f"(up to {seconds:,.0f} s, {LOCK_WAIT_ENV}); Ctrl-C stops it",
                file=sys.stderr,
                flush=True,
            )
            said = True
        time.sleep(min(_LOCK_POLL, max(0.0, deadline - time.monotonic())))


def attach(con: duckdb.DuckDBPyConnection, path: Path, alias: str) -> None:
    try:
        con.execute(f"ATTACH ? AS {alias} (READ_ONLY)", [str(path)]).fetchall()
    except duckdb.Error as exc:
        raise storage_failure(exc, path) or exc from exc


def source_tables(con: duckdb.DuckDBPyConnection, database: str) -> list[tuple[str, str]]:
    return con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? "
        "AND schema_name IN ('raw', 'core', 'meta') ORDER BY ALL",
        [database],
    ).fetchall()


def table_digests(con: duckdb.DuckDBPyConnection, database: str, path: Path) -> list[tuple]:
    """(schema, table, rows, content hash) for each raw/core/meta table; reads every block. One query for all the
    tables (DuckDB scans them in parallel; a query per table cost twice as much on a small warehouse)."""
    try:
        tables = source_tables(con, database)
        digest = "count(*), bit_xor(hash(t)), sum(hash(t)::HUGEINT)"
        query = " UNION ALL ".join(
            f'SELECT {i} AS i, {digest} FROM "{database}"."{schema}"."{table}" t'
            for i, (schema, table) in enumerate(tables)
        )
        rows = sorted(con.execute(query).fetchall()) if tables else []
    except duckdb.Error as exc:
        raise storage_failure(exc, path, name_quoted_file=False) or exc from exc
    return [(schema, table, *row[1:]) for (schema, table), row in zip(tables, rows, strict=True)]


def table_fingerprints(con: duckdb.DuckDBPyConnection) -> dict[str, tuple]:
    """`schema.table` -> (rows, content hashes) of each raw/core/meta table of the open working database: what a
    step changed is what differs between two calls (the flow's write audit, pipeline/flow/steps.py)."""
    database = con.execute("SELECT current_database()").fetchone()[0]
    return {f"{schema}.{table}": tuple(rest) for schema, table, *rest in table_digests(con, database, Path(database))}
