"""Where the test suite's CPU goes: runs pytest (as `make test` does, or with the arguments given after `--`) and
samples every process of the machine meanwhile, then prints the CPU-seconds of each kind of process and the
machine's busy and idle core-seconds.

The suite is CPU-bound on 2 cores (its two workers, the commands they start, the demo builds, the browser and the
servers share them): its wall time is about the CPU-seconds of all of these over the cores, so a cut is worth what
it takes off that sum, wherever it runs. This is what the table shows, per kind:

- `pytest workers`: the tests' own code (AppTest page runs, queries, property tests) in the two xdist workers;
- `CLI commands (forked)`: the `python -m pipeline` commands the tests run from the fork server of
  tests/cli_process.py, counted exactly (a finished child's CPU is added to the server that reaps it);
- `CLI commands (interpreter)`: commands started as a new interpreter (the shared demo builds, locks, signals);
- `Chromium`, `Streamlit servers`, `Ray`, `Playwright driver`, and `other` (its largest processes are listed);
- `not the suite's`: processes that do not descend from the suite's pytest (other work on the machine).

A process is sampled every `--interval` seconds: its own CPU, and what its reaped children added to it; a child
never sampled (a command shorter than the interval) is counted in its parent's row, as that addition less what the
sampled children account for. A process counts from its first sample.

    .venv/bin/python bench/suite_budget.py                    # the whole suite, DATA=../shared/data
    .venv/bin/python bench/suite_budget.py -- tests/app -q    # any pytest arguments
    .venv/bin/python bench/suite_budget.py --commands         # and where the forked commands' CPU goes

`--commands` has each forked CLI command log its CPU-seconds (tests/cli_process.py COMMAND_LOG_ENV) and prints them
by command and by test module, with the part spent in publishing and in the write audit.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.cli_process import COMMAND_LOG_ENV  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Seen:
    """One process: its kind, and its CPU-seconds at the first and the last sample (own; reaped children)."""

    kind: str
    parent: int
    command: str
    first_own: float
    first_children: float
    own: float = 0.0
    children: float = 0.0

    @property
    def total(self) -> float:
        """What this process adds to its parent's reaped children when it ends."""
        return self.own - self.first_own + self.children - self.first_children


@dataclass
class Budget:
    processes: dict[int, Seen] = field(default_factory=dict)
    root: int = 0  # pytest's process: the suite is it and what descends from it
    busy: float = 0.0
    idle: float = 0.0
    wall: float = 0.0


def kind_of(command: str) -> str:
    """The kind of process a command line names (the rows of the table)."""
    if "multiprocessing.forkserver" in command and "tests.cli_server" in command:
        return "CLI commands (forked)"
    if "chromium" in command or "chrome_crashpad" in command:
        return "Chromium"
    if "streamlit" in command:
        return "Streamlit servers"
    if "/ray/" in command or command.startswith("ray::") or "raylet" in command or "gcs_server" in command:
        return "Ray"
    if "-m pipeline" in command or "tests.shared_builds" in command:
        return "CLI commands (interpreter)"
    if "execnet" in command or "exec(eval(sys.stdin" in command or "pytest" in command:
        return "pytest workers"
    if "playwright" in command:
        return "Playwright driver"
    return "other"


def _machine() -> tuple[float, float]:
    """(all, idle) core-seconds since boot."""
    with open("/proc/stat", encoding="ascii") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    return sum(values) / TICK, (values[3] + values[4]) / TICK


def _sample(budget: Budget) -> None:
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            own = (int(fields[11]) + int(fields[12])) / TICK
            children = (int(fields[13]) + int(fields[14])) / TICK
            seen = budget.processes.get(pid)
            if seen is None:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    command = handle.read().replace(b"\0", b" ").decode(errors="replace")
                seen = budget.processes[pid] = Seen(kind_of(command), int(fields[1]), command[:160], own, children)
            seen.own, seen.children = max(seen.own, own), max(seen.children, children)
        except (OSError, IndexError, ValueError):
            continue  # gone, or a kernel thread


def run(pytest_args: list[str], interval: float, command_log: Path | None = None) -> tuple[int, Budget]:
    budget = Budget()
    _sample(budget)  # what runs already counts from here, and only where the suite started it
    total0, idle0 = _machine()
    start = time.monotonic()
    done = threading.Event()

    def sampler() -> None:
        while not done.wait(interval):
            _sample(budget)

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    env = {**os.environ, "DATA": os.environ.get("DATA") or str(REPO.parent / "shared" / "data")}
    if command_log is not None:
        env[COMMAND_LOG_ENV] = str(command_log)
    suite = subprocess.Popen([sys.executable, "-m", "pytest", *pytest_args], cwd=REPO, env=env)
    budget.root = suite.pid
    code = suite.wait()
    done.set()
    thread.join()
    _sample(budget)
    total, idle = _machine()
    budget.wall, budget.idle = time.monotonic() - start, idle - idle0
    budget.busy = (total - total0) - budget.idle
    return code, budget


def table(budget: Budget) -> list[tuple[str, float]]:
    """CPU-seconds per kind, largest first: each process's own, and what its children that were never sampled
    added to it (its reaped children's CPU less what the sampled ones account for)."""
    per_kind: dict[str, float] = defaultdict(float)
    for kind, _, cpu in _counted(budget):
        per_kind[kind] += cpu
    return sorted(per_kind.items(), key=lambda item: -item[1])


def largest(budget: Budget, kind: str, count: int = 5) -> list[tuple[float, str]]:
    """The `count` processes of `kind` that spent the most, with their command lines."""
    return sorted(((cpu, command) for k, command, cpu in _counted(budget) if k == kind), reverse=True)[:count]


def _counted(budget: Budget) -> list[tuple[str, str, float]]:
    """(kind, command, CPU-seconds) of each process, as `table` counts them."""
    sampled_children: dict[int, float] = defaultdict(float)
    for seen in budget.processes.values():
        sampled_children[seen.parent] += seen.total
    counted = []
    for pid, seen in budget.processes.items():
        if not _in_suite(budget, pid):
            counted.append(("not the suite's (other work on the machine)", seen.command, seen.own - seen.first_own))
            continue
        unsampled = max(0.0, seen.children - seen.first_children - sampled_children[pid])
        counted.append((seen.kind, seen.command, seen.own - seen.first_own + unsampled))
    return counted


def _in_suite(budget: Budget, pid: int) -> bool:
    """Whether `pid` descends from the suite's pytest process (by the parents seen at each one's first sample)."""
    steps = 0
    while pid in budget.processes and steps < 64:
        if pid == budget.root:
            return True
        pid, steps = budget.processes[pid].parent, steps + 1
    return pid == budget.root


@dataclass
class CommandCost:
    """What the logged commands of one kind (or of one test module) spent, in CPU-seconds."""

    commands: int = 0
    cpu: float = 0.0
    publish: float = 0.0
    audit: float = 0.0

    def add(self, other: CommandCost) -> None:
        self.commands += other.commands
        self.cpu += other.cpu
        self.publish += other.publish
        self.audit += other.audit


def command_costs(lines: list[dict], by: str) -> list[tuple[str, CommandCost]]:
    """The logged commands (tests/cli_process.py `_cost_log`) summed by `by`, "command" (its words before the first
    option) or "module" (the test file that ran it); the costliest first."""
    costs: dict[str, CommandCost] = defaultdict(CommandCost)
    for line in lines:
        if by == "command":
            words = [w for w in line["words"] if w != "--no-publish"]
            key = " ".join(words[: next((i for i, w in enumerate(words) if w.startswith("-")), len(words))][:2])
        else:
            key = line["test"].split("::")[0] or "(no test)"
        costs[key or "(options only)"].add(CommandCost(1, line["cpu"], line["publish"], line["audit"]))
    return sorted(costs.items(), key=lambda item: -item[1].cpu)


def _print_costs(lines: list[dict], count: int = 15) -> None:
    grouped = {by: command_costs(lines, by) for by in ("command", "module")}
    total = CommandCost()
    for _, cost in grouped["command"]:
        total.add(cost)
    print(f"\nthe forked commands: {total.commands}, {total.cpu:.1f} CPU-s, of which publishing {total.publish:.1f} "
          f"and the write audit {total.audit:.1f}")  # fmt: skip
    for by, costs in grouped.items():
        print(f"\n   CPU-s  publish  audit  commands  by {by}")
        for key, cost in costs[:count]:
            print(f"{cost.cpu:8.1f} {cost.publish:8.1f} {cost.audit:6.1f} {cost.commands:9d}  {key}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between samples")
    parser.add_argument("--commands", action="store_true", help="also where the forked CLI commands' CPU goes")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments (default: the whole suite)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="suite-budget-") as folder:
        command_log = Path(folder) / "commands.jsonl" if args.commands else None
        code, budget = run(args.pytest_args or ["-q", "-p", "no:cacheprovider"], args.interval, command_log)
        logged = command_log.read_text(encoding="utf-8").splitlines() if command_log and command_log.exists() else []
    cores = os.cpu_count() or 1
    print(f"\nwall {budget.wall:.1f} s on {cores} cores: {budget.busy:.0f} busy and {budget.idle:.0f} idle core-s")
    print(f"{'CPU-s':>8} {'share':>6}  kind")
    rows = table(budget)
    counted = sum(cpu for _, cpu in rows)
    for kind, cpu in rows:
        if cpu >= 0.5:
            print(f"{cpu:8.1f} {cpu / budget.busy:6.1%}  {kind}")
    print(
        f"{budget.busy - counted:8.1f} {(budget.busy - counted) / budget.busy:6.1%}  not attributed (the kernel's "
        "own threads, short processes whose parent was not sampled)"
    )
    print("\nthe largest processes of 'other':")
    for cpu, command in largest(budget, "other"):
        print(f"{cpu:8.1f}  {command}")
    if args.commands:
        _print_costs([json.loads(line) for line in logged])
    return code


if __name__ == "__main__":
    raise SystemExit(main())
