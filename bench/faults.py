"""Fault sweep: SIGKILL every writing command at seeded random points, rerun it, and compare.

For each writing command (ingest, import-responses, score, generate on an OpenAI-compatible echo
server on 127.0.0.1, corpus scan, publish, demo on the embedded sample) a clean run gives the
reference snapshot. Then, per kill, the command starts from the same state, is killed with SIGKILL
(its whole process group) at a random moment of its clean duration, and is run again to completion.
The rerun must exit 0, its published snapshot must hold the same tables with the same rows as the
clean run's (core and marts; columns that record when or in which run something happened are left
out), and no temporary file of the killed run may be left (`*.tmp-PID`, `*.wal`, DuckDB temp folders).

    .venv/bin/python bench/faults.py --kills 8 --data ../shared/data
    -> prints "N kills, N identical, 0 bytes left"

`tests/warehouse/test_faults.py` runs the same sweep with one kill per command.

    .venv/bin/python bench/faults.py --hostile [--full-size]
    -> one row per hostile file (zip and gzip bombs, an over-long line, deep JSON, wide Parquet, bad CSV): refused on
       one line under a memory limit, tables changed (tests/pipeline/core/test_limits.py runs the same files)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import struct
import sys
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import cli_process
from tests.helpers import cli_arguments, cli_environment, copy_warehouse
from tests.local_server import LocalServer, message_text

REPO = Path(__file__).resolve().parent.parent
WAREHOUSE = "w.duckdb"
# Columns that say when, how fast or in which run something happened: they differ between any two
# runs, killed or not. Everything else must be equal.
VOLATILE = re.compile(
    r"(^|_)(run_id|probe_id|fingerprint)$|_at$|^(seconds|wall_s|elapsed_s|latency_ms|mb_per_s|per_second)$"
)
# Tables that log each run (one row per command started), so a killed run may add one.
RUN_LOGS = {"core.generation_runs", "meta.runs", "meta.ingest_reports", "marts.ingest_report"}
GENERATE = ("generate", "--task", "borsch.origin_qa", "--lang", "ru", "--chunk-size", "8")
# A set-up command -> how to get a warehouse that command made from nothing (waiting for it if need be).
Prebuilt = Mapping[tuple[str, ...], Callable[[], Path]]
LEFTOVER = re.compile(r"\.tmp-\d+(\.wal)?$|\.wal$|\.tmp$")


@dataclass(frozen=True)
class Scenario:
    """`command` is killed; `setup` (commands run cleanly first) is the state it starts from."""

    name: str
    setup: tuple[tuple[str, ...], ...]
    command: tuple[str, ...]


@dataclass
class Outcome:
    scenario: str
    kill_at: float
    killed: bool
    rerun_code: int
    identical: bool
    leftover_bytes: int
    differences: list[str] = field(default_factory=list)
    stderr: str = ""


def scenarios(data: Path, inputs: Path, server_url: str, tiny: Path | None = None) -> list[Scenario]:
    """Each writing command on a small real input. `generate` asks the tiny transformers model when
    one is given (slow: torch), and always an OpenAI-compatible echo server on 127.0.0.1."""
    borsch = ("ingest", "borsch", "--source", str(data / "borsch"))
    worldcuisines = ("ingest", "worldcuisines", "--source", str(data / "worldcuisines"))
    answers = ("import-responses", "--model", "m1", str(inputs / "answers.jsonl"))
    return [
        Scenario("ingest", (), ("ingest", "sample")),
        Scenario("import-responses", (worldcuisines,), answers),
        Scenario("score", (worldcuisines, answers), ("score",)),
        Scenario(
            "generate",
            (borsch,),
            (
                *GENERATE,
                "--backend",
                "openai",
                "--model",
                "local",
                "--setting",
                f"base_url={server_url}",
                "--limit",
                "24",
            ),
        ),
        *(
            [
                Scenario(
                    "generate (tiny)",
                    (borsch,),
                    (
                        *GENERATE,
                        "--backend",
                        "transformers",
                        "--model",
                        str(tiny),
                        "--limit",
                        "40",
                        "--max-tokens",
                        "8",
                    ),
                )
            ]
            if tiny
            else []
        ),
        Scenario("corpus scan", (borsch,), ("corpus", "scan", "--lang", "ru", "--source", str(inputs / "corpus"))),
        Scenario("publish", (("ingest", "sample"),), ("publish", "--force")),
        Scenario("demo", (), ("demo", "--sample")),
    ]


def write_inputs(data: Path, inputs: Path, answers: int = 1500) -> None:
    """A slice of real WorldCuisines answers, recorded answers for replay, and a small corpus."""
    inputs.mkdir(parents=True, exist_ok=True)
    source = data / "worldcuisines" / "predictions" / "task2_oe_llava-1.6-7b.jsonl"
    with open(source, encoding="utf-8") as handle:
        lines = [next(handle) for _ in range(answers)]
    (inputs / "answers.jsonl").write_text("".join(lines), encoding="utf-8")
    corpus = inputs / "corpus"
    corpus.mkdir(exist_ok=True)
    dishes = ["борщ", "плов", "пельмени", "хачапури", "вареники", "шашлык"]
    countries = ["Украина", "Россия", "Грузия", "Узбекистан"]
    rng = random.Random(7)
    for shard in range(3):
        with open(corpus / f"shard{shard}.jsonl", "w", encoding="utf-8") as out:
            for doc in range(2000):
                words = [rng.choice(dishes), "из", rng.choice(countries), "документ", str(doc)]
                out.write(json.dumps({"text": " ".join(words)}, ensure_ascii=False) + "\n")


def environment(root: Path) -> dict[str, str]:
    """The tests' CLI environment, with no public data in reach: `demo --sample` uses the embedded sample."""
    return {**cli_environment(), "DISH_ATLAS_DATA": str(root / "no-data")}


def run(
    folder: Path, args: tuple[str, ...], env: dict[str, str], kill_after: float | None = None
) -> tuple[int, str, float]:
    """A command run (set-ups, clean runs, reruns; killed after `kill_after` seconds in `trial`) in a process forked
    from tests/cli_process.py's server, whose imports and language models are loaded once per sweep instead of once
    per command: the clean run's duration, which sets the kill moments, is the command's own work."""
    started = time.perf_counter()
    done = cli_process.run(
        cli_arguments(folder / WAREHOUSE, *args), cwd=REPO, env=env, timeout=900, kill_after=kill_after
    )
    return done.returncode, done.stderr, time.perf_counter() - started


def copy_state(source: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir():
        if path.is_file():
            shutil.copyfile(path, target / path.name)


def summary(snapshot: Path) -> dict[str, tuple[int, str]]:
    """(rows, content hash without volatile columns) per table of core and marts."""
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        tables = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE schema_name IN ('core', 'marts') ORDER BY ALL"
        ).fetchall()
        result = {}
        for schema, table in tables:
            name = f"{schema}.{table}"
            columns = [
                c
                for (c,) in con.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? "
                    "ORDER BY column_index",
                    [schema, table],
                ).fetchall()
                if not VOLATILE.search(c)
            ]
            if name in RUN_LOGS or name == "marts.fingerprint":
                continue
            selected = ", ".join(f'"{c}"' for c in columns) or "1"
            rows, digest = con.execute(
                f"SELECT count(*), coalesce(sum(hash({selected})::HUGEINT), 0)::VARCHAR "
                f'FROM (SELECT {selected} FROM "{schema}"."{table}") t'
            ).fetchone()
            result[name] = (rows, hashlib.sha256(digest.encode()).hexdigest()[:12])
        return result
    finally:
        con.close()


def leftovers(folder: Path) -> list[tuple[Path, int]]:
    """Files a killed run left behind: temp copies, write-ahead logs, DuckDB temp folders."""
    found = []
    for path in folder.iterdir():
        if LEFTOVER.search(path.name):
            size = path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*"))
            found.append((path, size))
    return found


class StartStates:
    """The state after each distinct list of setup commands, built once and copied for every scenario that
    starts from it (generate and corpus scan both start from an ingested BORSch). A state starts from a copy of
    its longest prefix already built: score's setup (ingest WorldCuisines, import the answers) continues from
    import-responses' (ingest WorldCuisines) instead of ingesting again. A first command found in `prebuilt` is
    not run: its warehouse, made by that command elsewhere (the test session's shared ingests), is copied.
    Scenarios run in threads: each state is built under its own lock."""

    def __init__(self, root: Path, env: dict[str, str], prebuilt: Prebuilt | None = None) -> None:
        self.root, self.env, self.prebuilt = root / "start-states", env, prebuilt or {}
        self._built: dict[tuple[tuple[str, ...], ...], Path] = {}
        self._locks: dict[tuple[tuple[str, ...], ...], threading.Lock] = {}
        self._guard = threading.Lock()

    def copy_to(self, setup: tuple[tuple[str, ...], ...], target: Path) -> None:
        copy_state(self._state(setup), target)

    def _state(self, setup: tuple[tuple[str, ...], ...]) -> Path:
        with self._guard:
            lock = self._locks.setdefault(setup, threading.Lock())
        with lock:
            if setup not in self._built:
                folder = self.root / hashlib.sha256(repr(setup).encode()).hexdigest()[:12]
                folder.mkdir(parents=True)
                if len(setup) == 1 and setup[0] in self.prebuilt:
                    copy_warehouse(self.prebuilt[setup[0]](), folder / WAREHOUSE)
                elif setup:
                    copy_state(self._state(setup[:-1]), folder)
                    code, stderr, _ = run(folder, setup[-1], self.env)
                    if code != 0:
                        raise RuntimeError(f"setup {' '.join(setup[-1])} failed: {stderr[-2000:]}")
                self._built[setup] = folder
            return self._built[setup]


def prepare(scenario: Scenario, root: Path, starts: StartStates) -> tuple[Path, dict, float]:
    """The start state (after setup) and the clean run's snapshot summary and duration."""
    start = root / "start"
    starts.copy_to(scenario.setup, start)
    clean = root / "clean"
    copy_state(start, clean)
    code, stderr, seconds = run(clean, scenario.command, starts.env)
    if code != 0:
        raise RuntimeError(f"clean {scenario.name} failed: {stderr[-2000:]}")
    return start, summary(clean / WAREHOUSE), seconds


def trial(
    scenario: Scenario, start: Path, reference: dict, fraction: float, seconds: float, folder: Path, env: dict
) -> Outcome:
    """Kill the command `fraction` into its clean duration `seconds`, then rerun it and compare with `reference`.

    A run that ends before its moment (the clean run was slowed by a busy machine or filled a cache this one reads)
    proves only a no-op rerun: it is tried once more, from the start state, at the same fraction of its own duration.
    """
    kill_at = fraction * seconds
    copy_state(start, folder)
    code, _, elapsed = run(folder, scenario.command, env, kill_after=kill_at)
    if code != -signal.SIGKILL and elapsed < kill_at:
        kill_at = fraction * elapsed
        shutil.rmtree(folder)
        copy_state(start, folder)
        code = run(folder, scenario.command, env, kill_after=kill_at)[0]
    killed = code == -signal.SIGKILL
    code, stderr, _ = run(folder, scenario.command, env)
    differences = []
    if code == 0:
        got = summary(folder / WAREHOUSE)
        differences = [
            f"{table}: {got.get(table)} != {reference.get(table)}"
            for table in sorted(set(got) | set(reference))
            if got.get(table) != reference.get(table)
        ]
    left = leftovers(folder)
    return Outcome(
        scenario.name,
        kill_at,
        killed,
        code,
        code == 0 and not differences,
        sum(size for _, size in left),
        differences + [f"left behind: {p.name}" for p, _ in left],
        stderr[-1500:] if code else "",
    )


def sweep(
    data: Path,
    root: Path,
    kills: int,
    seed: int,
    only: set[str] | None = None,
    workers: int = 2,
    tiny: bool = False,
    prebuilt: Prebuilt | None = None,
) -> list[Outcome]:
    """Kill each scenario's command `kills` times at seeded random moments; the outcomes. `prebuilt`: set-up
    commands whose warehouse is already made elsewhere (see StartStates)."""
    rng = random.Random(seed)
    cli_process.start_server()  # before any command is timed
    inputs = root / "inputs"
    write_inputs(data, inputs)
    env = environment(root)
    tiny_model = None
    if tiny:
        tiny_model = inputs / "tiny"
        code, stderr, _ = run(inputs, ("tiny-model", "--kind", "text", "--out", str(tiny_model)), env)
        if code != 0:
            raise RuntimeError(stderr)
    with LocalServer(echo) as server, ThreadPoolExecutor(workers) as pool:
        chosen = [s for s in scenarios(data, inputs, server.url, tiny_model) if not only or s.name in only]
        seeds = [rng.randrange(2**32) for _ in chosen]
        starts = StartStates(root, env, prebuilt)
        swept = pool.map(
            lambda pair: _sweep_one(pair[0], root, kills, random.Random(pair[1]), starts),
            zip(chosen, seeds, strict=True),
        )
        return [outcome for outcomes in swept for outcome in outcomes]


def echo(messages: list[dict], max_tokens: int) -> str:
    """The served model: names a country after a pause, so a run takes long enough to be killed."""
    time.sleep(0.01)
    return f"Это блюдо из России, не из Украины: {message_text(messages[-1])[:40]}"


def _sweep_one(scenario: Scenario, root: Path, kills: int, rng: random.Random, starts: StartStates) -> list[Outcome]:
    """One command: its start state, its clean run, then `kills` killed runs each followed by a rerun
    (scenarios run side by side, `workers` at a time)."""
    base = root / re.sub(r"\W", "_", scenario.name)
    start, reference, seconds = prepare(scenario, base, starts)
    # The commands start with their libraries imported (forked), so they write from their first moments on; the last
    # fifth is left out, as a run can end sooner than the clean one and a run that ends before its kill proves less.
    fractions = [rng.uniform(0.05, 0.8) for _ in range(kills)]
    outcomes = [
        trial(scenario, start, reference, at, seconds, base / f"kill{i}", starts.env) for i, at in enumerate(fractions)
    ]
    shutil.rmtree(base, ignore_errors=True)
    return outcomes


# Hostile files: inputs from outside built to exhaust memory, the stack or the parser. Each must stop its command
# with one `error:` line naming the file (and line), in bounded memory, with both databases unchanged. The caps they
# cross are documented in pipeline/core/limits.py; tests/pipeline/core/test_limits.py runs every case.


@dataclass(frozen=True)
class HostileCase:
    """`args` (after `--warehouse W`) feed the file at `path` to a command; the error names `path`, and `line`."""

    name: str
    args: tuple[str, ...]
    path: Path
    line: int | None = None


def _zip_entry(name: str, data_blocks: list[tuple[bytes, int]], crc: int, total: int, deflated: bool) -> tuple:
    """(local header + data, central directory record builder) of one zip member; `data_blocks`: (bytes, repeats)."""
    encoded = name.encode()
    size = sum(len(block) * repeats for block, repeats in data_blocks)
    method = 8 if deflated else 0
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, size, total, len(encoded), 0) + encoded

    def central(offset: int) -> bytes:
        return (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                method,
                0,
                0,
                crc,
                size,
                total,
                len(encoded),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + encoded
        )

    return local, data_blocks, central


def write_zip_bomb_xlsx(path: Path, uncompressed: int = 1 << 30, declared: int | None = None) -> Path:
    """A workbook whose sheet inflates to `uncompressed` bytes of rows from a few MB (deflate blocks of one
    repeated row, each ended by a full flush, so one compressed block is written many times: no gigabyte is ever
    made here). `declared`: the size the zip directory claims for it (a lying bomb claims little)."""
    row = b'<row><c t="inlineStr"><is><t>A</t></is></c></row>' * 20000
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    compressor.compress(row)
    compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(row) + compressor.flush(zlib.Z_FULL_FLUSH)  # the same bytes for every repeat
    repeats = uncompressed // len(row)
    tail = compressor.flush()  # an empty final block
    small = {
        "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        b'content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
        b'officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" '
        b'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        b'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        b'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": b'<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
        b'2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
        b'<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
        b'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
        b'officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    }
    entries = [_zip_entry(name, [(data, 1)], zlib.crc32(data), len(data), False) for name, data in small.items()]
    head = b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    head += b"<sheetData>"
    total = len(head) + repeats * len(row)
    entries.append(
        _zip_entry(
            "xl/worksheets/sheet1.xml",
            [(_raw_deflate_stored(head), 1), (block, repeats), (tail, 1)],
            0,  # the checksum of a gigabyte would cost a second to compute; the reader stops long before it
            min(declared if declared is not None else total, 0xFFFFFFFF),
            True,
        )
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        directory = []
        for local, blocks, central in entries:
            directory.append(central(out.tell()))
            out.write(local)
            for data, count in blocks:
                for _ in range(count):
                    out.write(data)
        start = out.tell()
        out.write(b"".join(directory))
        end = out.tell()
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(directory), len(directory), end - start, start, 0))
    return path


def _raw_deflate_stored(data: bytes) -> bytes:
    """`data` as a non-final stored deflate block (so compressed blocks can follow it)."""
    return struct.pack("<BHH", 0, len(data), len(data) ^ 0xFFFF) + data


def write_gzip_bomb(path: Path, uncompressed: int = 4 << 30, line: bytes = b'{"text": "a"}\n') -> Path:
    """A gzip shard of `uncompressed` bytes of one short JSON line repeated, from a few MB: one member whose deflate
    data is one compressed block written many times (full flushes make the blocks equal)."""
    chunk = line * max(1, (1 << 20) // len(line))
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    compressor.compress(chunk)
    compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    first = zlib.compressobj(9, zlib.DEFLATED, -15)
    opening = first.compress(chunk) + first.flush(zlib.Z_FULL_FLUSH)
    with open(path, "wb") as out:
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")
        out.write(opening)
        for _ in range(uncompressed // len(chunk) - 1):
            out.write(block)
        out.write(compressor.flush())
        out.write(struct.pack("<II", 0, (uncompressed // len(chunk) * len(chunk)) & 0xFFFFFFFF))  # CRC never reached
    return path


def write_long_line(path: Path, length: int, before: bytes = b"", prefix: bytes = b'{"text": "') -> Path:
    """`before`, then one line of `length` bytes, written in blocks (never held in memory), then a newline."""
    with open(path, "wb") as out:
        out.write(before)
        out.write(prefix)
        left = length - len(prefix)
        block = b"a" * (1 << 20)
        while left > 0:
            out.write(block[: min(left, len(block))])
            left -= len(block)
        out.write(b"\n")
    return path


def write_deep_json(path: Path, depth: int = 100_000, before: bytes = b"") -> Path:
    """One JSON Lines record nested `depth` levels deep (a recursive parser's stack), after `before`."""
    path.write_bytes(before + b'{"text": "x", "deep": ' + b"[" * depth + b"]" * depth + b"}\n")
    return path


def write_wide_parquet(path: Path, columns: int) -> Path:
    """A Parquet file of `columns` empty columns: its footer (the schema) grows with them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({f"c{i}": pa.array([], pa.int8()) for i in range(columns)}), path)
    return path


def write_csv(path: Path, text: bytes) -> Path:
    path.write_bytes(text)
    return path


UACUISINE_HEADER = b"dish,question,gold,model,answer\n"
UACUISINE_ROW = b"borshch,Where does this dish come from?,UA,m1,Ukraine\n"


def hostile_cases(folder: Path, full_size: bool = False) -> list[HostileCase]:
    """Every hostile file, written under `folder`. `full_size`: the sizes the issue names (a 1 GB line, a million
    Parquet columns: minutes to write); otherwise each crosses its cap by a little, which tests the same code."""
    from pipeline.core import limits

    folder.mkdir(parents=True, exist_ok=True)
    line_over = (1 << 30) if full_size else limits.MAX_LINE_BYTES + 1
    borsch = folder / "borsch-bomb"
    lying = folder / "borsch-lying-bomb"
    for name in ("RU_DATA.xlsx", "UK_DATA.xlsx", "PARALLEL_RU_UK.xlsx"):  # `ingest borsch` wants all three
        write_zip_bomb_xlsx(borsch / name)
        write_zip_bomb_xlsx(lying / name, declared=4096)
    responses = folder / "responses"
    responses.mkdir(exist_ok=True)
    corpus = folder / "corpus"
    corpus.mkdir(exist_ok=True)
    table = folder / "tables"
    table.mkdir(exist_ok=True)
    cases = [
        HostileCase("zip-bomb xlsx", ("ingest", "borsch", "--source", str(borsch)), borsch / "RU_DATA.xlsx"),
        HostileCase(
            "zip-bomb xlsx, sizes hidden", ("ingest", "borsch", "--source", str(lying)), lying / "RU_DATA.xlsx"
        ),
        HostileCase(
            "gzip bomb shard",
            ("corpus", "scan", "--lang", "ru", "--source", str(write_gzip_bomb(corpus / "bomb.jsonl.gz"))),
            corpus / "bomb.jsonl.gz",
        ),
        HostileCase(
            "one over-long line (import)",
            ("import-responses", "--model", "m1", str(write_long_line(responses / "long.jsonl", line_over))),
            responses / "long.jsonl",
            1,
        ),
        HostileCase(
            "one over-long line (corpus)",
            ("corpus", "scan", "--lang", "ru", "--source", str(write_long_line(corpus / "long.jsonl", line_over))),
            corpus / "long.jsonl",
            1,
        ),
        HostileCase(
            "deeply nested JSON (import)",
            ("import-responses", "--model", "m1", str(write_deep_json(responses / "deep.jsonl"))),
            responses / "deep.jsonl",
            1,
        ),
        HostileCase(
            "deeply nested JSON (corpus)",
            ("corpus", "scan", "--lang", "ru", "--source", str(write_deep_json(corpus / "deep.jsonl"))),
            corpus / "deep.jsonl",
            1,
        ),
        HostileCase(
            "a number of 100,000 digits (import)",
            (
                "import-responses",
                "--model",
                "m1",
                str(write_csv(responses / "digits.jsonl", b'{"qa_id": ' + b"7" * 100_000 + b"}\n")),
            ),
            responses / "digits.jsonl",
            1,
        ),
        HostileCase(
            "Parquet with too many columns (corpus)",
            (
                "corpus",
                "scan",
                "--lang",
                "ru",
                "--source",
                str(write_wide_parquet(corpus / "wide.parquet", 1_000_000 if full_size else limits.MAX_COLUMNS + 1)),
            ),
            corpus / "wide.parquet",
        ),
        HostileCase(
            "Parquet with too many columns (table)",
            (
                "import-responses",
                "--format",
                "uacuisine",
                str(write_wide_parquet(table / "wide.parquet", limits.MAX_COLUMNS + 1)),
            ),
            table / "wide.parquet",
        ),
        HostileCase(
            "CSV with a NUL byte",
            (
                "import-responses",
                "--format",
                "uacuisine",
                str(write_csv(table / "nul.csv", UACUISINE_HEADER + UACUISINE_ROW + b"borshch,Wh\x00ere?,UA,m1,x\n")),
            ),
            table / "nul.csv",
            3,
        ),
        HostileCase(
            "CSV with an unterminated quote",
            (
                "import-responses",
                "--format",
                "uacuisine",
                str(
                    write_csv(table / "quote.csv", UACUISINE_HEADER + b'borshch,"Where?,UA,m1,x\n' + UACUISINE_ROW * 3)
                ),
            ),
            table / "quote.csv",
            2,
        ),
        HostileCase(
            "CSV with one over-long field",
            (
                "import-responses",
                "--format",
                "uacuisine",
                str(write_long_line(table / "long.csv", line_over, UACUISINE_HEADER, b"borshch,")),
            ),
            table / "long.csv",
            2,
        ),
        HostileCase(
            "CSV that is not UTF-8",
            (
                "import-responses",
                "--format",
                "uacuisine",
                str(write_csv(table / "latin1.csv", UACUISINE_HEADER + UACUISINE_ROW + b"borshch,O\xf9?,UA,m1,x\n")),
            ),
            table / "latin1.csv",
            3,
        ),
    ]
    return cases


def hostile_sweep(data: Path, root: Path, full_size: bool, memory_limit: int) -> int:
    """Every hostile file fed to its command on a copy of an ingested WorldCuisines warehouse, under an address-space
    limit (RLIMIT_AS: a command that tried to hold a bomb or a 1 GB line would fail with MemoryError): prints, per
    file, the exit status, the `error:` (or corrupt-shard) line and the tables whose rows changed. Exit 1 when a file
    is not refused on one line."""
    cli_process.start_server()
    env = environment(root)
    start = root / "start"
    start.mkdir(parents=True, exist_ok=True)
    code, stderr, _ = run(start, ("ingest", "worldcuisines", "--source", str(data / "worldcuisines")), env)
    if code != 0:
        raise RuntimeError(stderr)
    reference = summary(start / WAREHOUSE)
    failures = 0
    for index, case in enumerate(hostile_cases(root / "files", full_size)):
        folder = root / f"case{index}"
        copy_state(start, folder)
        began = time.perf_counter()
        done = cli_process.run(
            cli_arguments(folder / WAREHOUSE, *case.args), cwd=REPO, env=env, timeout=900, memory_limit=memory_limit
        )
        seconds = time.perf_counter() - began
        lines = [line for line in done.stderr.splitlines() if line.startswith(("error:", "corrupt shard skipped:"))]
        after = summary(folder / WAREHOUSE)
        changed = sorted(t for t in set(reference) | set(after) if reference.get(t) != after.get(t))
        one_line = len(lines) == 1 and str(case.path) in lines[0] and "Traceback" not in done.stderr
        # a corpus shard too is refused (`--skip-corrupt-shards`, not passed here, would record it as corrupt instead)
        refused = one_line and lines[0].startswith("error:")
        ok = refused and done.returncode == 2 and not changed
        failures += not ok
        print(
            f"{'ok  ' if ok else 'FAIL'} {case.name:40} exit {done.returncode} {seconds:6.1f} s under "
            f"+{memory_limit / (1 << 30):.1f} GB; tables changed: {', '.join(changed) or 'none'}\n     {lines[:1]}"
        )
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DATA", REPO.parent / "shared" / "data")))
    parser.add_argument("--kills", type=int, default=8, help="kills per command")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--only", action="append", help="only this command (repeatable), e.g. --only score")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--tiny", action="store_true", help="also generate with the tiny transformers model (slow)")
    parser.add_argument("--hostile", action="store_true", help="feed the hostile files instead of killing commands")
    parser.add_argument(
        "--full-size", action="store_true", help="--hostile: a 1 GB line and a million Parquet columns (minutes)"
    )
    parser.add_argument("--memory-gb", type=float, default=2.0, help="--hostile: address space a command may add")
    args = parser.parse_args(argv)
    root = args.workdir or Path(tempfile_dir())
    if args.hostile:
        return hostile_sweep(args.data, root, args.full_size, int(args.memory_gb * (1 << 30)))
    outcomes = sweep(args.data, root, args.kills, args.seed, set(args.only or ()), args.workers, args.tiny)
    for name in dict.fromkeys(o.scenario for o in outcomes):
        mine = [o for o in outcomes if o.scenario == name]
        print(
            f"{name:18} {sum(o.killed for o in mine):3} kills, {sum(o.identical for o in mine):3} identical, "
            f"{sum(o.leftover_bytes for o in mine):,} bytes left"
        )
        for o in mine:
            if not o.identical or o.leftover_bytes:
                why = "; ".join(o.differences)
                print(f"  killed at {o.kill_at:.2f} s: rerun exit {o.rerun_code}; {why} {o.stderr}")
    killed = [o for o in outcomes if o.killed]
    print(
        f"{len(killed)} kills, {sum(o.identical for o in killed)} identical, "
        f"{sum(o.leftover_bytes for o in outcomes):,} bytes left"
        f" ({len(outcomes) - len(killed)} runs finished before their kill moment; "
        f"{sum(o.identical for o in outcomes)} of {len(outcomes)} reruns identical overall)"
    )
    shutil.rmtree(root, ignore_errors=True)
    return 0 if all(o.identical and not o.leftover_bytes for o in outcomes) else 1


def tempfile_dir() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="dish-atlas-faults-")


if __name__ == "__main__":
    sys.exit(main())
