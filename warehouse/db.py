"""Working database, migrations and atomic publishing.

DuckDB allows one writing process or many readers, never both. So the pipeline writes a
*working* database (guarded by a lock file so a second writer gets a clear message) and, when
a command finishes, *publishes* a copy: marts are built into a temporary file which is then
renamed over the published snapshot. Readers (the app, exports) only ever open the snapshot,
read-only; a run that fails or is killed never touches it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from warehouse.io import scalar

__all__ = ["SchemaMismatch", "Warehouse", "WarehouseError", "scalar"]

SQL_DIR = Path(__file__).parent
MIGRATIONS_DIR = SQL_DIR / "migrations"
MARTS_DIR = SQL_DIR / "marts"
CHECKS_DIR = SQL_DIR / "checks"


class WarehouseError(RuntimeError):
    """A warehouse that cannot be opened, is locked, or fails its integrity checks."""


# DISH_ATLAS_DUCKDB_THREADS=N: DuckDB's worker threads per connection (unset: one per core, DuckDB's default). Where
# several commands share the cores (the test suite's workers, a batch of commands), one thread each does the same work
# with less CPU: a small warehouse's statements are too small to share, and publishing one cost a quarter more CPU
# with two threads than with one.
THREADS_ENV = "DISH_ATLAS_DUCKDB_THREADS"


def duckdb_threads() -> int | None:
    """The thread count DISH_ATLAS_DUCKDB_THREADS sets, or None when it is unset."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise WarehouseError(f"{THREADS_ENV}={value!r}: expected a whole number of threads, 1 or more")
    return int(value)


def connect(database: str = ":memory:", *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """`duckdb.connect`, with DISH_ATLAS_DUCKDB_THREADS applied (a setting of the database instance, not its
    configuration: another connection to the same file in this process may still open it)."""
    threads = duckdb_threads()  # a bad value stops the command before it opens anything
    con = duckdb.connect(database, read_only=read_only)
    if threads is not None:
        try:
            con.execute(f"SET threads = {threads}")
        except BaseException:
            con.close()
            raise
    return con


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


class SchemaMismatch(WarehouseError):
    """A warehouse of another schema version: an older one is upgraded by a writing command (readers stop with the
    command that does it), a newer one is refused by everything."""


def upgrade_command(path: Path) -> str:
    """The command that upgrades the warehouse whose snapshot is `path`: `publish` migrates a copy of the working
    database and rebuilds the snapshot from it; without a working database, `recover` first makes one from the
    snapshot."""
    publish = f"`python -m pipeline --warehouse {path} publish`"
    working = Warehouse(path).working_path
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


def build_marts(con: duckdb.DuckDBPyConnection, changed: set[str] | None = None) -> None:
    """The marts of `warehouse.marts.MARTS`, in its order; a mart whose columns break its contract
    stops the publish (the exports and the app rely on those columns). With `changed` (the source
    tables that differ from a snapshot the database was copied from), only the marts that depend on
    them are rebuilt: the others in the copy are what rebuilding them would give."""
    from warehouse.marts import MARTS

    changed = None if changed is None else set(changed)
    ran = []
    for mart in MARTS.values():
        try:
            if mart.run(con, changed):
                ran.append(mart)
        except duckdb.Error as exc:
            _check_contracts(con, ran)  # a mart reading a column an earlier one broke: the break is the cause
            raise WarehouseError(f"marts/{mart.file}: {exc}") from exc
    _check_contracts(con, ran)


def _check_contracts(con: duckdb.DuckDBPyConnection, marts: list) -> None:
    """Stop at the first of `marts` (in build order) whose tables break their column contract."""
    from warehouse.marts import table_columns

    found = table_columns(con)
    for mart in marts:
        broken = mart.broken_contracts(found)
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


# Larger than any WAL a session writes: no checkpoint happens before the session's own last one.
SESSION_CHECKPOINT_THRESHOLD = "1TB"
_HEADER_BYTES = 3 * 4096  # DuckDB's main header and its two alternating database headers


@dataclass
class _Session:
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
    def start(cls, con: duckdb.DuckDBPyConnection, path: Path) -> _Session:
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
class Recovery:
    """What `recover` put back and what it could not (never published, or unreadable)."""

    restored: dict[str, int]
    not_restored: list[str]
    published_at: str | None
    damaged_copy: Path | None


@dataclass(frozen=True)
class _Seen:
    """The working database as a writer found it: its file's state and every table's digest."""

    state: tuple[int, int, int]
    digests: list[tuple]


# A file changed less than this long before a writer opened it is not trusted to show later changes in its
# modification time (file times come from a clock that ticks every few milliseconds).
_SETTLED_NS = 1_000_000_000


def _file_state(path: Path, settled: bool = False) -> tuple[int, int, int] | None:
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
class Warehouse:
    """The published snapshot at `path` and its working database beside it."""

    path: Path
    # what the last writer read when it opened the working database (reused by publish when nothing changed)
    _seen: dict[str, _Seen] = field(default_factory=dict, compare=False, repr=False)

    @property
    def working_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".work" + self.path.suffix)

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
        its end (`_Session`): a killed command keeps them (the rerun resumes), while a full disk or a
        file size limit anywhere in the session, its final checkpoint included, discards them, so the
        working database is left as it was before the command. (A folder read-only from the start
        stops the command before it writes; one that turns read-only midway cannot have the WAL
        removed, and the next writer folds it in.)"""
        with self._exclusive(
            f"{self.working_path}: another pipeline command is writing it (lock {self.lock_path}) — "
            "wait for it to finish"
        ):
            state = _file_state(self.working_path, settled=True)
            con = self._open_working()
            session: _Session | None = None
            try:
                try:
                    digests = _table_digests(con, scalar(con, "SELECT current_database()"), self.working_path)
                    self._seen.pop("working", None)
                    if state is not None:
                        self._seen["working"] = _Seen(state, digests)
                    con.execute("CHECKPOINT")  # a killed writer's WAL is folded in before this session starts
                    session = _Session.start(con, self.working_path)
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

    def publish(self, force: bool = False) -> bool:
        """Copy the working database, build marts and checks into the copy, rename it into place.

        When the snapshot was built by this same code and only some tables changed since (a corpus scan changes
        its own tables only), the snapshot is copied instead, those tables' rows replaced, and only the mart
        statements that read them (directly or through a rebuilt mart) run again: the same tables a full build
        gives, without rebuilding every mart. `force` rebuilds everything.

        Returns False (and does nothing) when the published snapshot already holds exactly this
        content and this code's marts, unless `force`. Damage, a full disk or a read-only folder
        stop it with one line; the snapshot and the working database stay as they were."""
        with self._exclusive(
            f"{self.working_path}: cannot publish while another command writes it (lock {self.lock_path}) — "
            "wait for it to finish"
        ):
            if not self.working_path.exists():
                raise WarehouseError(
                    f"{self.working_path}: nothing to publish, the working database does not exist — "
                    "run an ingest command or `python -m pipeline demo` first"
                )
            self._checkpoint_working()
            probe = connect(":memory:")  # one database attaches both files: each new one costs ~25 ms
            try:
                digests = self._working_digests(probe)
                if _migrations_differ(digests):  # written by older code: upgraded in place first (newer: refused)
                    self._migrate_working()
                    digests = self._working_digests(probe)
                fingerprint = self._working_fingerprint(digests)
                published = self._published_sources(probe)
            finally:
                probe.close()
            if not force and published is not None and fingerprint == published[0]:
                return False
            sources = {"code": _code_digest(), "tables": digests}
            changed = None if force or published is None else _changed_tables(published[1], sources)
            base = self.working_path if changed is None else self.path
            needed = max(self.working_path.stat().st_size, base.stat().st_size)
            free = shutil.disk_usage(self.path.parent).free
            if free < needed:
                raise storage_failure(OSError(errno.ENOSPC, "no space"), self.path, needed, name_quoted_file=False)
            tmp = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}")
            try:
                shutil.copyfile(base, tmp)
                con = connect(str(tmp))
                try:
                    if changed is None:
                        migrate(con, self.working_path)
                    else:
                        con.execute("ATTACH ? AS work (READ_ONLY)", [str(self.working_path)])
                    con.execute("BEGIN TRANSACTION")  # one commit: a commit per mart statement cost more than most
                    if changed is not None:
                        _copy_tables(con, "work", changed)
                    build_marts(con, changed)
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
                os.replace(tmp, self.path)
                _fsync_dir(self.path.parent)
            except (OSError, duckdb.Error) as exc:
                failure = storage_failure(exc, self.path, needed, name_quoted_file=False)
                if failure is not None:
                    raise failure from exc
                raise
            finally:
                tmp.unlink(missing_ok=True)
                tmp.with_name(tmp.name + ".wal").unlink(missing_ok=True)
        return True

    def recover(self, force: bool = False) -> Recovery:
        """Rebuild the working database from the published snapshot.

        The damaged file is kept beside it (`.damaged`) for inspection; what it held beyond the
        snapshot (never published) is listed, as far as it can still be read. A healthy working
        database is only replaced with `force`, since that discards its unpublished changes."""
        with self._exclusive(f"{self.working_path}: cannot recover while another command writes it — wait for it"):
            if not self.path.exists():
                raise WarehouseError(
                    f"{self.path}: no published snapshot to recover from — rebuild with `python -m pipeline demo` "
                    "or the ingest commands"
                )
            published = _file_counts(self.path)  # raises WarehouseDamaged when the snapshot is damaged too
            published_at = _published_at(self.path)
            working, unreadable = self._readable_working_counts()
            if working is not None and not unreadable and not force:
                raise WarehouseError(
                    f"{self.working_path}: the working database is not damaged, nothing to recover — "
                    "pass --force to replace it with the published snapshot anyway (unpublished changes are lost)"
                )
            not_restored = _unpublished(working, unreadable, published, published_at)
            tmp = self.working_path.with_name(f"{self.working_path.name}.tmp-{os.getpid()}")
            damaged_copy = None
            try:
                shutil.copyfile(self.path, tmp)
                con = connect(str(tmp))
                try:
                    migrate(con, self.path)
                    con.execute("CHECKPOINT")
                finally:
                    con.close()
                with open(tmp, "rb") as handle:
                    os.fsync(handle.fileno())
                wal = self.working_path.with_name(self.working_path.name + ".wal")
                if self.working_path.exists():
                    damaged_copy = self.damaged_path
                    os.replace(self.working_path, damaged_copy)
                    if wal.exists():
                        os.replace(wal, damaged_copy.with_name(damaged_copy.name + ".wal"))
                os.replace(tmp, self.working_path)
                _fsync_dir(self.path.parent)
            except (OSError, duckdb.Error) as exc:
                failure = storage_failure(exc, self.working_path, self.path.stat().st_size)
                if failure is not None:
                    raise failure from exc
                raise
            finally:
                tmp.unlink(missing_ok=True)
                tmp.with_name(tmp.name + ".wal").unlink(missing_ok=True)
        return Recovery(published, not_restored, published_at, damaged_copy)

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
    def _exclusive(self, busy: str) -> Iterator[None]:
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

    def _open_working(self) -> duckdb.DuckDBPyConnection:
        wal = self.working_path.with_name(self.working_path.name + ".wal")
        if self.working_path.exists() and self.working_path.stat().st_size == 0 and not wal.exists():
            self.working_path.unlink()  # created by a command killed before DuckDB wrote its header
        try:
            return connect(str(self.working_path))
        except duckdb.Error as exc:
            raise storage_failure(exc, self.working_path) or exc from exc

    def _checkpoint_working(self) -> None:
        """Fold a killed writer's WAL into the file, so the copy publish makes has every commit. Without a WAL the
        file holds them all (a writer's session ends with a checkpoint): nothing to open."""
        if self.working_path.with_name(self.working_path.name + ".wal").exists():
            self._on_working(lambda con: None)

    def _migrate_working(self) -> None:
        """Bring the working database to this code's schema in place (one transaction, then a checkpoint): `publish`
        alone upgrades a warehouse as every writing command does."""
        self._seen.pop("working", None)
        self._on_working(lambda con: migrate(con, self.working_path))

    def _on_working(self, action: Callable[[duckdb.DuckDBPyConnection], object]) -> None:
        """`action` on the working database, then a checkpoint; a storage failure as its one line."""
        con = self._open_working()
        try:
            action(con)
            con.execute("CHECKPOINT")
        except duckdb.Error as exc:
            raise storage_failure(exc, self.working_path) or exc from exc
        finally:
            with contextlib.suppress(duckdb.Error):
                con.close()

    def _working_fingerprint(self, digests: list[tuple]) -> str:
        """What the snapshot would be built from: every row of every raw/core/meta table (hashed by
        DuckDB, so reading them also verifies their block checksums) and the SQL/Python that builds
        the marts."""
        digest = hashlib.sha256()
        for path in _code_files():
            digest.update(path.read_bytes())
        for row in digests:
            digest.update(repr(row).encode())
        return digest.hexdigest()

    def _working_digests(self, con: duckdb.DuckDBPyConnection) -> list[tuple]:
        """Every table's digest: the ones the writer read on opening when the file has not changed since (a
        command with nothing new to write reads the whole database once, not twice), else read now (the working
        database attached to `con`, an in-memory database, for the time of it)."""
        seen = self._seen.get("working")
        if seen is not None and seen.state == _file_state(self.working_path):
            return seen.digests
        _attach(con, self.working_path, "work")
        try:
            return _table_digests(con, "work", self.working_path)
        finally:
            with contextlib.suppress(duckdb.Error):
                con.execute("DETACH work")

    def _published_sources(self, con: duckdb.DuckDBPyConnection) -> tuple[str, dict | None] | None:
        """The snapshot's fingerprint and what it was built from (`sources`: None from older code), read by attaching
        it to `con` (an in-memory database)."""
        if not self.path.exists():
            return None
        try:
            con.execute("ATTACH ? AS pub (READ_ONLY)", [str(self.path)]).fetchall()
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

    def _readable_working_counts(self) -> tuple[dict[str, int] | None, list[str]]:
        """Row counts of the working database's tables, as far as they can be read."""
        if not self.working_path.exists():
            return {}, []
        con = connect(":memory:")
        try:
            try:
                con.execute("ATTACH ? AS work (READ_ONLY)", [str(self.working_path)]).fetchall()
            except duckdb.Error:
                return None, []
            counts, unreadable = {}, []
            for schema, table in _tables(con, "work"):
                try:
                    rows = con.execute(f'SELECT count(*), bit_xor(hash(t)) FROM work."{schema}"."{table}" t').fetchall()
                    counts[f"{schema}.{table}"] = rows[0][0]
                except duckdb.Error:
                    unreadable.append(f"{schema}.{table}")
            return counts, unreadable
        finally:
            con.close()

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


def _attach(con: duckdb.DuckDBPyConnection, path: Path, alias: str) -> None:
    try:
        con.execute(f"ATTACH ? AS {alias} (READ_ONLY)", [str(path)]).fetchall()
    except duckdb.Error as exc:
        raise storage_failure(exc, path) or exc from exc


def _code_files() -> list[Path]:
    # geometry.py: how marts.map_outlines draws the countries (kept outside marts/, which the app must not import)
    return sorted([*SQL_DIR.glob("*/*.sql"), *MARTS_DIR.glob("*.py"), SQL_DIR / "geometry.py"])


def _code_digest() -> str:
    """Every SQL and Python file of the warehouse, which is all the marts run (they import nothing from the pipeline:
    tests/test_architecture.py): a snapshot built by other code is rebuilt in full, never patched, and a change to the
    pipeline alone (a help text) rebuilds nothing."""
    root = SQL_DIR.parent
    digest = hashlib.sha256()
    for path in sorted([*SQL_DIR.rglob("*.sql"), *SQL_DIR.rglob("*.py")]):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


# Building on the snapshot replaces the changed tables' rows (a delete and an insert, then a checkpoint that rewrites
# them): cheap for a corpus scan's tables, dearer than copying the working file once many rows changed. Measured on the
# demo build (4.2 million rows): corpus tables changed, 1.5 s on the snapshot against 10 s in full; answers, their
# extractions and scores changed (61% of the rows), 56 s on the snapshot against 13 s in full.
_MOST_ROWS_CHANGED = 0.1


def _changed_tables(published: dict | None, sources: dict) -> set[str] | None:
    """The raw/core/meta tables whose rows differ from the snapshot's, when building on the snapshot is possible and
    cheaper: built by the same SQL and marts code from the same tables and schema, and the changed tables holding at
    most `_MOST_ROWS_CHANGED` of the rows (None: rebuild everything)."""
    if not published or published.get("code") != sources["code"]:
        return None
    old = {(s, t): list(rest) for s, t, *rest in published.get("tables", [])}
    new = {(s, t): list(rest) for s, t, *rest in sources["tables"]}
    if old.keys() != new.keys():
        return None
    changed = {key for key, digest in new.items() if old[key] != digest}
    if ("meta", "schema_migrations") in changed:
        return None
    rows = {key: max(old[key][0], digest[0]) for key, digest in new.items()}  # a table emptied costs its old rows
    if sum(rows[key] for key in changed) > _MOST_ROWS_CHANGED * sum(rows.values()):
        return None
    return {f"{s}.{t}" for s, t in changed}


def _migrations_differ(digests: list[tuple]) -> bool:
    """Whether the database whose table digests these are has other migrations applied than this code's."""
    applied = next((row[2] for row in digests if row[:2] == ("meta", "schema_migrations")), 0)
    return applied != len(migrations())


def _copy_tables(con: duckdb.DuckDBPyConnection, working: str, tables: set[str]) -> None:
    """Replace the rows of `tables` in a copy of the snapshot with those of the attached working database."""
    for table in sorted(tables):
        con.execute(f"DELETE FROM {table}")
        con.execute(f"INSERT INTO {table} SELECT * FROM {working}.{table}")


def _tables(con: duckdb.DuckDBPyConnection, database: str) -> list[tuple[str, str]]:
    return con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? "
        "AND schema_name IN ('raw', 'core', 'meta') ORDER BY ALL",
        [database],
    ).fetchall()


def _table_digests(con: duckdb.DuckDBPyConnection, database: str, path: Path) -> list[tuple]:
    """(schema, table, rows, content hash) for each raw/core/meta table; reads every block. One query for all the
    tables (DuckDB scans them in parallel; a query per table cost twice as much on a small warehouse)."""
    try:
        tables = _tables(con, database)
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
    return {f"{schema}.{table}": tuple(rest) for schema, table, *rest in _table_digests(con, database, Path(database))}


def _file_counts(path: Path) -> dict[str, int]:
    con = connect(":memory:")
    try:
        _attach(con, path, "db")
        return {f"{schema}.{table}": rows for schema, table, rows, *_ in _table_digests(con, "db", path)}
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


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
