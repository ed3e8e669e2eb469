"""Damaged files, a full disk, a read-only folder, a path under a file, a locked warehouse: each
stops with one line naming the path and the fix, and leaves both databases as they were, even when
the disk fills at the working database's final checkpoint, after the command's writes committed;
`recover` rebuilds a damaged working copy from the snapshot and says what it cannot restore.

The faults are real: a small tmpfs mount (ENOSPC), RLIMIT_FSIZE on the command's process (EFBIG),
a read-only bind mount (EROFS), bytes overwritten in the file."""

from __future__ import annotations

import fcntl
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.faults import summary
from tests import cli_process
from tests.helpers import REPO, cli_arguments, cli_environment, copy_warehouse, run_cli
from warehouse.db import LOCK_WAIT_ENV, Warehouse, WarehouseStorageError


def cli(warehouse: Path, *args: str, file_limit: int | None = None):
    """The CLI in a process of its own (forked with its libraries imported: tests/cli_process.py), optionally with a
    file-size limit (writes past it fail with EFBIG, as on a full disk). A command finding the warehouse locked waits
    0.2 s for it (tests/warehouse/test_concurrent_writers.py races commands that wait for one another)."""
    env = {**cli_environment(), "HOME": str(warehouse.parent), "PYTHONDONTWRITEBYTECODE": "1", LOCK_WAIT_ENV: "0.2"}
    return cli_process.run(cli_arguments(warehouse, *args), cwd=REPO, env=env, timeout=300, file_limit=file_limit)


def one_error_line(result: subprocess.CompletedProcess, *expected: str) -> str:
    """The run failed with exit 2 and exactly one `error:` line holding every expected text."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert result.returncode == 2, result.stderr
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    for text in expected:
        assert text in errors[0], (text, errors[0])
    return errors[0]


def state(warehouse: Path) -> tuple[dict, dict]:
    """Both databases' tables and rows (read-only; marts only in the snapshot)."""
    working = Warehouse(warehouse).working_path
    return summary(warehouse), (summary(working) if working.exists() else {})


def damage(path: Path) -> None:
    """Overwrite part of every block after the file header with random bytes (as a bad disk would)."""
    rng = random.Random(7)
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        for offset in range(3 * 4096, size, 16384):
            handle.seek(offset + 100)
            handle.write(rng.randbytes(256))


@pytest.mark.parametrize("how", ["damaged blocks", "not a database"])
def test_a_damaged_working_database_stops_every_writer_and_recover_rebuilds_it(
    sample_warehouse: Path, how: str
) -> None:
    wh = Warehouse(sample_warehouse)
    with wh.writer() as con:  # committed but never published: what recover cannot bring back
        con.execute("INSERT INTO core.datasets SELECT 'unpublished', * EXCLUDE (dataset) FROM core.datasets LIMIT 1")
    snapshot_before = summary(sample_warehouse)
    if how == "damaged blocks":
        damage(wh.working_path)
    else:
        wh.working_path.write_bytes(b"this is not a database\n" * 1000)
    for args in (("publish",), ("score",), ("ingest", "sample"), ("corpus", "scan", "--lang", "ru", "--source", "x")):
        one_error_line(cli(sample_warehouse, *args), str(wh.working_path), "damaged database", "recover")
    assert summary(sample_warehouse) == snapshot_before

    recovered = cli(sample_warehouse, "recover")
    assert recovered.returncode == 0, recovered.stderr
    assert "recovered" in recovered.stderr and "not restored (never published)" in recovered.stderr
    assert wh.damaged_path.exists()
    assert "up to date" in run_cli(sample_warehouse, "publish").stderr  # the working copy is the snapshot again
    assert run_cli(sample_warehouse, "ingest", "sample").returncode == 0


def test_recover_refuses_to_discard_a_healthy_working_database(sample_warehouse: Path) -> None:
    one_error_line(cli(sample_warehouse, "recover"), "not damaged", "--force")
    assert cli(sample_warehouse, "recover", "--force").returncode == 0


def test_a_damaged_snapshot_is_repaired_by_the_next_publish(sample_warehouse: Path) -> None:
    before = summary(sample_warehouse)
    damage(sample_warehouse)
    assert "published" in run_cli(sample_warehouse, "publish").stderr
    assert summary(sample_warehouse) == before


@pytest.fixture(scope="module")
def worldcuisines_warehouse(ingested_template, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """WorldCuisines ingested from the real files, alone in its folder (a copy of the session's one ingest)."""
    return copy_warehouse(ingested_template("worldcuisines"), tmp_path_factory.mktemp("wc") / "w.duckdb")


@contextmanager
def tmpfs(size: int) -> Iterator[Path]:
    """A real small filesystem (a tmpfs mount): writes past its size fail with ENOSPC."""
    folder = Path(tempfile.mkdtemp(prefix="dish-atlas-tmpfs-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.fail(  # a skip would prove nothing: CI runs as root on Linux, where the mount works
            f"cannot mount a tmpfs here ({mounted.stderr.decode().strip()}); the full-disk test needs root on Linux"
        )
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
        folder.rmdir()


def test_a_full_disk_leaves_both_databases_as_they_were(worldcuisines_warehouse: Path, data_dir: Path) -> None:
    answers = data_dir / "worldcuisines" / "predictions" / "task2_oe_llava-1.6-7b.jsonl"
    files = sorted(worldcuisines_warehouse.parent.glob("w.*"))
    with tmpfs(sum(f.stat().st_size for f in files) + 2 * 2**20) as disk:
        for path in files:
            shutil.copyfile(path, disk / path.name)
        warehouse = disk / "w.duckdb"
        before = state(warehouse)
        one_error_line(cli(warehouse, "import-responses", str(answers)), str(disk), "no space left on device", "free")
        assert state(warehouse) == before
        one_error_line(cli(warehouse, "publish", "--force"), str(warehouse), "no space left", "needs about")
        assert state(warehouse) == before
        assert not Warehouse(warehouse).leftovers()


def test_a_file_size_limit_keeps_the_snapshot_and_imports_all_or_nothing(
    worldcuisines_warehouse: Path, data_dir: Path, tmp_path: Path
) -> None:
    """Without a small filesystem: RLIMIT_FSIZE makes writes past a size fail (EFBIG). The answer
    file is one transaction: the working database holds all of it or none, never a part."""
    for path in worldcuisines_warehouse.parent.glob("w.*"):
        shutil.copyfile(path, tmp_path / path.name)
    warehouse = tmp_path / "w.duckdb"
    snapshot = summary(warehouse)
    answers = data_dir / "worldcuisines" / "predictions" / "task2_oe_llava-1.6-7b.jsonl"
    room = Warehouse(warehouse).working_path.stat().st_size + 64 * 1024  # no file may grow past this

    line = one_error_line(cli(warehouse, "import-responses", str(answers), file_limit=room), str(tmp_path))
    assert "file size limit" in line and "nothing was published" in line
    assert summary(warehouse) == snapshot and not Warehouse(warehouse).leftovers()
    assert summary(Warehouse(warehouse).working_path)["core.generations"][0] == 0

    rerun = run_cli(warehouse, "import-responses", str(answers))  # with room, the same command completes
    assert "published" in rerun.stderr
    snapshot = summary(warehouse)
    assert snapshot["core.generations"][0] == 15000

    limit = Warehouse(warehouse).working_path.stat().st_size // 4  # the snapshot's copy cannot be written
    one_error_line(cli(warehouse, "publish", "--force", file_limit=limit), str(warehouse), "needs about")
    assert summary(warehouse) == snapshot and not Warehouse(warehouse).leftovers()


def test_a_file_size_limit_at_the_final_checkpoint_leaves_the_working_database_as_it_was(
    worldcuisines_warehouse: Path, data_dir: Path, tmp_path: Path
) -> None:
    """The limit is the working file's own size: the answers commit (to the WAL, which fits), and
    only the checkpoint that folds them into the file fails. The command's commits are undone."""
    for path in worldcuisines_warehouse.parent.glob("w.*"):
        shutil.copyfile(path, tmp_path / path.name)
    warehouse = tmp_path / "w.duckdb"
    working = Warehouse(warehouse).working_path
    before, size = state(warehouse), working.stat().st_size
    answers = data_dir / "worldcuisines" / "predictions" / "task2_oe_llava-1.6-7b.jsonl"

    result = cli(warehouse, "import-responses", str(answers), file_limit=size)
    assert "15000 answers of llava-1.6-7b" in result.stderr  # the import itself committed
    line = one_error_line(result, str(working), "file size limit", "needs about", "nothing was published")
    assert state(warehouse) == before and working.stat().st_size == size
    assert not working.with_name(working.name + ".wal").exists() and not Warehouse(warehouse).leftovers()
    assert "MB" in line.split("needs about", 1)[1].split(",")[0]  # the WAL it had to fold in, in MB

    assert "published" in run_cli(warehouse, "import-responses", str(answers)).stderr  # with room: all of it
    assert summary(warehouse)["core.generations"][0] == 15000


def test_a_disk_that_fills_before_the_final_checkpoint_leaves_both_databases_as_they_were(
    sample_warehouse: Path,
) -> None:
    """A real full disk: the writes commit, then the tmpfs fills, and the writer's last checkpoint
    fails with ENOSPC. The working database is as it was before the session; nothing is left behind."""
    files = sorted(sample_warehouse.parent.glob("w.*"))
    with tmpfs(sum(f.stat().st_size for f in files) + 24 * 2**20) as disk:
        for path in files:
            shutil.copyfile(path, disk / path.name)
        warehouse = Warehouse(disk / "w.duckdb")
        before, size = state(warehouse.path), warehouse.working_path.stat().st_size
        filler = disk / "filler"
        wal = warehouse.working_path.with_name(warehouse.working_path.name + ".wal")
        with pytest.raises(WarehouseStorageError) as raised, warehouse.writer() as con:
            con.execute("CREATE TABLE core.session_rows (i BIGINT, s VARCHAR)")
            for start in range(0, 200_000, 10_000):  # small commits go to the WAL, as a command's chunks do
                con.execute(
                    "INSERT INTO core.session_rows SELECT range, md5(range::VARCHAR) FROM range(?, ?)",
                    [start, start + 10_000],
                )
            assert wal.stat().st_size > 2**20  # committed, waiting for the checkpoint
            filler.write_bytes(b"\0" * (shutil.disk_usage(disk).free - 16 * 1024))  # the disk fills meanwhile
        message = str(raised.value)
        assert str(warehouse.working_path) in message and "no space left on device" in message
        assert "needs about" in message and "\n" not in message
        filler.unlink()
        assert state(warehouse.path) == before and warehouse.working_path.stat().st_size == size
        assert not wal.exists() and not warehouse.leftovers()

        with warehouse.writer() as con:  # with room again, the same session commits
            con.execute("CREATE TABLE core.session_rows AS SELECT range AS i FROM range(10)")
        assert state(warehouse.path)[1]["core.session_rows"][0] == 10


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` read-only for this process's children: a read-only bind mount when running as root
    (root ignores permission bits), else the permission bits."""
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        try:
            yield
        finally:
            os.chmod(folder, 0o755)
        return
    subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_read_only_folder_is_one_line_and_changes_nothing(sample_warehouse: Path) -> None:
    folder = sample_warehouse.parent
    before = state(sample_warehouse)
    with read_only(folder):
        for args in (("ingest", "sample"), ("publish", "--force"), ("recover", "--force")):
            one_error_line(cli(sample_warehouse, *args), str(folder), "writable")
    assert state(sample_warehouse) == before


def test_a_warehouse_path_under_a_regular_file_is_one_line(tmp_path: Path) -> None:
    regular = tmp_path / "notes.txt"
    regular.write_text("not a folder")
    one_error_line(cli(regular / "w.duckdb", "ingest", "sample"), str(regular), "is a file, not a folder")


def test_a_locked_warehouse_is_one_line(sample_warehouse: Path) -> None:
    with open(Warehouse(sample_warehouse).lock_path, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for args in (("ingest", "sample"), ("publish",), ("recover",)):
            one_error_line(cli(sample_warehouse, *args), "another", "command", "wait for it")


def test_debug_shows_the_traceback(sample_warehouse: Path) -> None:
    damage(Warehouse(sample_warehouse).working_path)
    result = subprocess.run(
        [sys.executable, "-m", "pipeline", "--debug", "--warehouse", str(sample_warehouse), "publish"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=300,
    )
    assert result.returncode == 2 and "Traceback" in result.stderr and "error: " in result.stderr
    assert "Corrupt database file" in result.stderr  # DuckDB's own exception, in the traceback
