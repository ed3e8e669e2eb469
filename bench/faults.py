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
import sys
import threading
import time
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
        Scenario("demo", (), ("demo",)),
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
    """The tests' CLI environment, with no public data in reach: `demo` uses the embedded sample."""
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


def trial(scenario: Scenario, start: Path, reference: dict, kill_at: float, folder: Path, env: dict) -> Outcome:
    copy_state(start, folder)
    killed = run(folder, scenario.command, env, kill_after=kill_at)[0] == -signal.SIGKILL
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
    moments = [rng.uniform(seconds * 0.05, seconds * 0.8) for _ in range(kills)]
    outcomes = [trial(scenario, start, reference, at, base / f"kill{i}", starts.env) for i, at in enumerate(moments)]
    shutil.rmtree(base, ignore_errors=True)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DATA", REPO.parent / "shared" / "data")))
    parser.add_argument("--kills", type=int, default=8, help="kills per command")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--only", action="append", help="only this command (repeatable), e.g. --only score")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--tiny", action="store_true", help="also generate with the tiny transformers model (slow)")
    args = parser.parse_args(argv)
    root = args.workdir or Path(tempfile_dir())
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
