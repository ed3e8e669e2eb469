"""Every class of bad input, through the real CLI: one `error:` line naming the cause, exit 2, no
traceback (or, where the design says so, an explicit counted skip). One row per class; a new
class of bad input is one more row.

Each case builds its input in a fresh folder (warehouses are copied from one prepared per module),
runs `python -m pipeline ...` and checks what a user sees."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import shutil
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import cli_process
from tests.helpers import REPO, cli_arguments, cli_environment, copy_warehouse, run_cli
from warehouse.db import LOCK_WAIT_ENV

WC_ANSWERS = "task2_oe_llava-1.6-7b.jsonl"


@dataclass(frozen=True)
class Case:
    """`build(folder, data)` writes the input and returns the CLI arguments after `--warehouse`;
    `says` must all appear in the one error line (or in the output, for a counted skip)."""

    name: str
    build: Callable[[Path, Path], list[str]]
    says: tuple[str, ...]
    code: int = 2
    stdin: bytes | None = None


def jsonl(folder: Path, name: str, content: bytes) -> str:
    path = folder / name
    path.write_bytes(content)
    return str(path)


def answers_line(**fields) -> bytes:
    row = {"qa_id": "1900", "prediction": "Ukraine", "lang": "en", "answer": "Ukraine"} | fields
    return (json.dumps(row) + "\n").encode()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def import_(folder: Path, name: str, content: bytes, *extra: str) -> list[str]:
    return ["import-responses", "--model", "m", *extra, jsonl(folder, name, content)]


def generate(*args: str, task: str = "borsch.origin_qa", lang: str = "ru", backend: str = "replay") -> list[str]:
    return ["generate", "--task", task, "--lang", lang, "--backend", backend, "--model", "m", *args]


def damaged(folder: Path) -> None:
    work = folder / "w.work.duckdb"
    size = work.stat().st_size
    with open(work, "r+b") as handle:
        for offset in range(3 * 4096, size, 16384):
            handle.seek(offset + 100)
            handle.write(b"\xa5" * 256)


def truncated_gzip(folder: Path) -> str:
    corpus = folder / "corpus"
    corpus.mkdir()
    whole = gzip.compress(b"".join(json.dumps({"text": f"borscht {i}"}).encode() + b"\n" for i in range(5000)))
    (corpus / "shard.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    return str(corpus)


CASES = [
    Case(
        "missing file with markup in its name",
        lambda f, d: ["import-responses", "--model", "m", str(f / "preds[red].jsonl")],
        ("preds[red].jsonl", "not found"),
    ),
    Case("empty file", lambda f, d: import_(f, "empty.jsonl", b""), ("empty.jsonl", "empty file")),
    Case("binary file", lambda f, d: import_(f, "binary.jsonl", os.urandom(4096)), ("binary.jsonl", "not UTF-8")),
    Case(
        "wrong encoding (Latin-1)",
        lambda f, d: import_(f, "latin1.jsonl", answers_line(prediction="café").replace(b"caf\\u00e9", b"caf\xe9")),
        ("latin1.jsonl", "not UTF-8"),
    ),
    Case(
        "wrong encoding (UTF-16)",
        lambda f, d: import_(f, "utf16.jsonl", answers_line().decode().encode("utf-16")),
        ("utf16.jsonl", "not UTF-8"),
    ),
    Case(
        "NaN field",
        lambda f, d: import_(f, "nan.jsonl", b'{"qa_id": NaN, "prediction": "x", "lang": "en", "answer": "x"}\n'),
        ("nan.jsonl:1", "qa_id"),
    ),
    Case(
        "wrong format (CSV given as JSON Lines)",
        lambda f, d: import_(f, "table.jsonl", b"qa_id,prediction\n1900,Ukraine\n"),
        ("table.jsonl:1", "not valid JSON"),
    ),
    Case(
        "bad line in the middle",
        lambda f, d: import_(f, "mid.jsonl", answers_line() + b"{oops\n" + answers_line(qa_id="1901")),
        ("mid.jsonl:2", "--skip-bad-lines"),
    ),
    Case(
        "huge line (20 MB answer)",  # 107 MB as JSON escapes it: over the cap on one line, refused unread
        lambda f, d: import_(f, "huge.jsonl", answers_line(qa_id="nope", prediction="Україна " * 2_500_000)),
        ("huge.jsonl:1", "the cap on one line"),
    ),
    Case(
        "a folder given as an answer file",
        lambda f, d: ["import-responses", "--model", "m", str(f)],
        ("in",),
    ),
    Case(
        "unknown --format",
        lambda f, d: ["import-responses", "--format", "[bold]nope", "--model", "m", jsonl(f, "a.jsonl", b"")],
        ("[bold]nope", "unknown format"),
    ),
    Case(
        "truncated gzip shard (refused; --skip-corrupt-shards makes it a counted skip)",
        lambda f, d: ["corpus", "scan", "--lang", "en", "--source", truncated_gzip(f)],
        ("shard.jsonl.gz", "--skip-corrupt-shards"),
    ),
    Case(
        "corpus source that matches nothing",
        lambda f, d: ["corpus", "scan", "--lang", "en", "--source", str(f / "nothing*.jsonl")],
        ("nothing*.jsonl", "no corpus files"),
    ),
    Case(
        "ingest from a missing folder",
        lambda f, d: ["ingest", "borsch", "--source", str(f / "absent")],
        ("absent",),
    ),
    Case(
        "ingest from an empty folder",
        lambda f, d: ["ingest", "worldcuisines", "--source", str(f)],
        ("in",),
    ),
    Case("unknown task", lambda f, d: generate(task="nope.task"), ("nope.task",)),
    Case("unknown prompt language", lambda f, d: generate(lang="xx"), ("xx",)),
    Case("unknown backend", lambda f, d: generate(backend="nope"), ("nope",)),
    Case(
        "unknown local model",
        lambda f, d: [*generate(backend="transformers")[:-1], str(f / "no-model")],
        ("no-model",),
    ),
    Case(
        "dead model server",
        lambda f, d: generate("--setting", f"base_url=http://127.0.0.1:{closed_port()}/v1", backend="openai"),
        ("cannot reach the model server",),
    ),
    Case("bad --setting", lambda f, d: [*generate(), "--setting", "novalue"], ("--setting", "KEY=VALUE")),
    Case(
        "run config that is not TOML",
        lambda f, d: ["run", jsonl(f, "run.toml", b"stages = [generate\n")],
        ("run.toml",),
    ),
    Case(
        "countries with an unknown language",
        lambda f, d: ["countries", "--lang", "xx"],
        ("--lang xx", "unknown language"),
        stdin=b"Kyiv\n",
    ),
    Case(
        "countries with bytes that are not UTF-8 (read as they are, one array per line)",
        lambda f, d: ["countries", "--lang", "en"],
        (),
        code=0,
        stdin=b"Ukraine\n\xff\xfe\n",
    ),
    Case(
        "locked database",
        lambda f, d: ["ingest", "sample"],
        ("w.work.duckdb", "another", "wait for it"),
    ),
    Case(
        "warehouse path under a regular file",
        lambda f, d: ["ingest", "sample"],
        ("is a file, not a folder",),
    ),
    Case(
        "damaged database",
        lambda f, d: ["score"],
        ("w.work.duckdb", "damaged database", "recover"),
    ),
    Case(
        "working database that is not a database",
        lambda f, d: ["publish"],
        ("w.work.duckdb", "not a valid DuckDB database", "recover"),
    ),
    Case(
        "export before anything was published",
        lambda f, d: ["export", "dishes"],
        ("no published warehouse", "demo"),
    ),
    Case("unknown export format", lambda f, d: ["export", "dishes", "--format", "xlsx"], ("xlsx", "csv or parquet")),
    Case(
        "tiny model of an unknown kind",
        lambda f, d: ["tiny-model", "--kind", "nope", "--out", str(f / "m")],
        ("nope",),
    ),
]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory, data_dir: Path, ingested_template) -> Path:
    """A warehouse with BORSch and WorldCuisines ingested (copied into each case's folder)."""
    warehouse = tmp_path_factory.mktemp("prepared") / "w.duckdb"
    copy_warehouse(ingested_template("worldcuisines"), warehouse)
    run_cli(warehouse, "ingest", "borsch", "--source", str(data_dir / "borsch"))
    return warehouse


def warehouse_for(case: Case, folder: Path, prepared: Path) -> Path:
    """Where the case's warehouse is, set up as the case needs (absent, under a file, damaged...)."""
    if case.name == "export before anything was published":
        return folder / "fresh" / "w.duckdb"
    if case.name == "warehouse path under a regular file":
        (folder / "notes.txt").write_text("a file")
        return folder / "notes.txt" / "w.duckdb"
    home = folder / "wh"
    home.mkdir()
    for path in prepared.parent.glob("w.*duckdb"):
        shutil.copyfile(path, home / path.name)
    if case.name == "damaged database":
        damaged(home)
    if case.name == "working database that is not a database":
        (home / "w.work.duckdb").write_bytes(b"PK\x03\x04 not a database" * 100)
    return home / "w.duckdb"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_gets_one_clear_line(case: Case, tmp_path: Path, prepared: Path, data_dir: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    warehouse = warehouse_for(case, tmp_path, prepared)
    args = case.build(folder, data_dir)
    lock = None
    env = cli_environment()
    if case.name == "locked database":
        lock = open(warehouse.with_name("w.lock"), "a+")  # noqa: SIM115 - held while the command runs
        fcntl.flock(lock, fcntl.LOCK_EX)
        env[LOCK_WAIT_ENV] = "0.2"  # a command waits for the holder this long, then stops with one line
    try:
        result = cli_process.run(cli_arguments(warehouse, *args), cwd=REPO, env=env, timeout=300, stdin=case.stdin)
    finally:
        if lock is not None:
            lock.close()
    stderr = result.stderr
    assert "Traceback" not in stderr, stderr
    assert result.returncode == case.code, stderr
    if case.code == 0:
        for text in case.says:
            assert text in stderr, (text, stderr)
        return
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, stderr
    for text in case.says:
        assert text in errors[0], (text, errors[0])
