"""Writing commands started together (issue 51): each one waits, with a message, for the one writing before it, and
all finish; the published snapshot is the one a serial run of the same commands publishes."""

from __future__ import annotations

import contextlib
import json
import tarfile
from pathlib import Path

import pytest

from bench.faults import summary
from tests.helpers import REPO, query, run_cli, started_cli

FIXTURE = REPO / "tests" / "fixtures" / "warehouses" / "0.1.0.tar.xz"
MODELS = ("molmo-7b-d", "qwen-vl-2b")
LINES = 300  # of each model's answers to the fixture's items


@pytest.fixture(scope="module")
def start(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> tuple[Path, list[tuple[str, ...]]]:
    """The 0.1.0 fixture warehouse (WorldCuisines' first dishes and their task-2 items) and the writing commands to
    race: two models' real answers to those items imported, and the embedded sample ingested."""
    root = tmp_path_factory.mktemp("race")
    with tarfile.open(FIXTURE) as tar:
        tar.extractall(root / "start", filter="data")
    items = {ref for (ref,) in query(root / "start" / "warehouse.work.duckdb", "SELECT source_ref FROM core.items")}
    commands: list[tuple[str, ...]] = [("ingest", "sample")]
    for model in MODELS:
        source = data_dir / "worldcuisines" / "predictions" / f"task2_oe_{model}.jsonl"
        target = root / source.name
        with open(source, encoding="utf-8") as read, open(target, "w", encoding="utf-8") as write:
            write.writelines([line for line in read if str(json.loads(line)["qa_id"]) in items][:LINES])
        commands.append(("import-responses", "--format", "worldcuisines", str(target)))
    return root / "start", commands


def _copy(start: Path, folder: Path) -> Path:
    folder.mkdir()
    for path in start.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    return folder / "warehouse.duckdb"


def test_writers_started_together_wait_for_each_other_and_publish_what_a_serial_run_publishes(
    start: tuple[Path, list[tuple[str, ...]]], tmp_path: Path
) -> None:
    folder, commands = start
    raced = _copy(folder, tmp_path / "raced")
    with contextlib.ExitStack() as stack:  # each a process of its own, all started before any is waited for
        running = [stack.enter_context(started_cli(raced, *args)) for args in commands]
        stderrs = ["".join(command.lines(timeout=600)) for command in running]
        for command in running:
            command.process.join(60)
    for command, stderr in zip(running, stderrs, strict=True):
        assert command.process.exitcode == 0, stderr
        assert "Traceback" not in stderr
    waited = [stderr for stderr in stderrs if "waiting: another pipeline command" in stderr]
    assert waited, "no command found another one writing: the race did not happen"
    assert all(f"is writing {raced.with_suffix('.work.duckdb')}" in " ".join(s.split()) for s in waited)

    serial = _copy(folder, tmp_path / "serial")
    for args in commands:  # one after the other, published once at the end: what publishing after each would give
        run_cli(serial, "--no-publish", *args)
    run_cli(serial, "publish")
    assert summary(raced) == summary(serial)
    assert summary(raced)["core.generations"][0] > summary(folder / "warehouse.duckdb")["core.generations"][0]
