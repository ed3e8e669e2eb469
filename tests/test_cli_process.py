"""A CLI command forked from the tests' fork server (tests/cli_process.py) answers as `python -m pipeline` does."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests import cli_process
from tests.helpers import REPO, cli_arguments, cli_command, cli_environment


def both(
    warehouse: Path, *args: str, stdin: bytes | None = None
) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """The same command as a new interpreter and as a fork of the server."""
    command = cli_command(warehouse, *args)
    fresh = subprocess.run(
        command, cwd=REPO, input=stdin or b"", capture_output=True, env=cli_environment(), timeout=120
    )
    fresh = subprocess.CompletedProcess(
        fresh.args, fresh.returncode, fresh.stdout.decode(errors="replace"), fresh.stderr.decode(errors="replace")
    )
    forked = cli_process.run(cli_arguments(warehouse, *args), cwd=REPO, env=cli_environment(), timeout=120, stdin=stdin)
    return fresh, forked


def test_help_and_a_usage_error_are_the_same_as_a_new_interpreters(tmp_path: Path) -> None:
    for args in (["--help"], ["no-such-command"]):
        fresh, forked = both(tmp_path / "w.duckdb", *args)
        assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.returncode == 2 and "no-such-command" in fresh.stderr


def test_the_standard_input_reaches_the_command_as_in_a_new_interpreter(tmp_path: Path) -> None:
    """Lines on stdin, one of them not UTF-8: `countries` reads them exactly as from a new interpreter's stdin."""
    fresh, forked = both(tmp_path / "w.duckdb", "countries", "--lang", "uk", stdin=b"Kyiv\n\xff\xfe \xd0\x9a\n")
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.returncode == 0 and fresh.stdout.count("\n") == 2


def test_each_command_gets_its_own_environment(tmp_path: Path) -> None:
    """A variable given to one command is not seen by the next (the server forks every command anew)."""
    warehouse = tmp_path / "w.duckdb"
    env = cli_environment() | {"DISH_ATLAS_WAREHOUSE": str(tmp_path / "elsewhere.duckdb")}
    first = cli_process.run(["publish"], cwd=REPO, env=env, timeout=120)
    second = cli_process.run(["--warehouse", str(warehouse), "publish"], cwd=REPO, env=cli_environment(), timeout=120)
    assert first.returncode == second.returncode == 2  # nothing to publish in either folder
    assert str(tmp_path / "elsewhere.work.duckdb") in first.stderr
    assert "elsewhere" not in second.stderr and str(tmp_path / "w.work.duckdb") in second.stderr


def test_a_page_script_left_as_main_is_not_run_in_the_command(tmp_path: Path, monkeypatch) -> None:
    """An AppTest leaves its page script as `__main__`; the command must not run it again before its own."""
    import sys
    import types

    script = tmp_path / "page.py"
    script.write_text("raise SystemExit('the page script ran in the command')\n", encoding="utf-8")
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", page)
    result = cli_process.run(["--help"], cwd=REPO, env=cli_environment(), timeout=120)
    assert result.returncode == 0 and "page script" not in result.stderr


def test_with_the_command_log_set_each_command_logs_its_cpu_and_its_publish_and_audit_parts(
    sample_warehouse: Path, tmp_path: Path
) -> None:
    log = tmp_path / "commands.jsonl"
    env = {**cli_environment(), cli_process.COMMAND_LOG_ENV: str(log), "DISH_ATLAS_AUDIT_WRITES": "1"}
    for args in (["ingest", "sample"], ["publish", "--force"], ["--version"]):
        cli_process.run(cli_arguments(sample_warehouse, *args), cwd=REPO, env=env, timeout=120)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [line["words"] for line in lines] == [["ingest", "sample"], ["publish", "--force"], ["--version"]]
    assert {line["test"] for line in lines} == {os.environ["PYTEST_CURRENT_TEST"].rsplit(" (", 1)[0]}
    ingest, publish, version = lines
    assert 0 < ingest["audit"] < ingest["cpu"] and 0 < ingest["publish"] < ingest["cpu"]
    assert 0 < publish["publish"] < publish["cpu"] and publish["audit"] == 0  # publishing alone runs no step
    assert version["publish"] == version["audit"] == 0 < version["cpu"]

    cli_process.run(cli_arguments(sample_warehouse, "--version"), cwd=REPO, env=cli_environment(), timeout=120)
    assert len(log.read_text(encoding="utf-8").splitlines()) == 3  # without the variable, nothing is logged
