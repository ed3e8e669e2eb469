"""Writing commands started together (issue 51): each one waits, with a message, for the one writing before it, and
all finish; the published snapshot is the one a serial run of the same commands publishes."""

from __future__ import annotations

import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from bench.faults import summary
from tests.helpers import REPO, cli_command, cli_environment, query, run_cli

FIXTURE = REPO / "tests" / "fixtures" / "warehouses" / "0.1.0.tar.xz"
MODELS = ("molmo-7b-d", "qwen-vl-2b", "Phi-3.5-vision-instruct")


@pytest.fixture(scope="module")
def start(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> tuple[Path, list[tuple[str, ...]]]:
    """The 0.1.0 fixture warehouse (WorldCuisines' first dishes and their task-2 items) and the writing commands to
    race: three models' real answers to those items imported, and the embedded sample ingested."""
    root = tmp_path_factory.mktemp("race")
    with tarfile.open(FIXTURE) as tar:
        tar.extractall(root / "start", filter="data")
    items = {ref for (ref,) in query(root / "start" / "warehouse.work.duckdb", "SELECT source_ref FROM core.items")}
    commands: list[tuple[str, ...]] = [("ingest", "sample")]
    for model in MODELS:
        source = data_dir / "worldcuisines" / "predictions" / f"task2_oe_{model}.jsonl"
        target = root / source.name
        with open(source, encoding="utf-8") as read, open(target, "w", encoding="utf-8") as write:
            write.writelines(line for line in read if str(json.loads(line)["qa_id"]) in items)
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
    running = [
        subprocess.Popen(
            cli_command(raced, *args), cwd=REPO, env=cli_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for args in commands
    ]
    results = [(process, *process.communicate(timeout=600)) for process in running]
    for process, _, stderr in results:
        assert process.returncode == 0, stderr.decode()
        assert b"Traceback" not in stderr
    waited = [stderr.decode() for _, _, stderr in results if b"waiting: another pipeline command" in stderr]
    assert waited, "no command found another one writing: the race did not happen"
    assert all(f"is writing {raced.with_suffix('.work.duckdb')}" in " ".join(s.split()) for s in waited)

    serial = _copy(folder, tmp_path / "serial")
    for args in commands:
        run_cli(serial, *args)
    assert summary(raced) == summary(serial)
    assert summary(raced)["core.generations"][0] > summary(folder / "warehouse.duckdb")["core.generations"][0]
