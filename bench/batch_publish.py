"""A batch of imports published once (`--no-publish`) against each import publishing, side by side.

    python bench/batch_publish.py [--data ../shared/data] [--files 6] [--rounds 1]

Ingests WorldCuisines once, then, on two copies of that warehouse, imports the first `--files` real open-ended
prediction files one command each, as a user scripting them would: the baseline lets every command publish (the
default), the batch passes `--no-publish` to each and runs `publish` once at the end. Each command runs as a separate
`python -m pipeline` process; wall time and the CPU of the processes are summed per way. The two published snapshots
must hold the same rows (every core and mart table but the run logs, as bench/faults.py compares them), so the
batch changes when the marts are built, not what they hold. With `--rounds N` the two ways alternate N times.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.faults import summary  # noqa: E402
from tests.helpers import copy_warehouse  # noqa: E402


def command(warehouse: Path, *args: str) -> tuple[float, float]:
    """`python -m pipeline --warehouse W ARGS` in its own process: (wall seconds, CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "--warehouse", str(warehouse), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"pipeline {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_each(warehouse: Path, files: list[Path], *options: str) -> list[tuple[float, float]]:
    """One `import-responses` process per file, with the top-level `options` (e.g. `--no-publish`)."""
    return [command(warehouse, *options, "import-responses", str(path)) for path in files]


def total(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return sum(wall for wall, _ in runs), sum(cpu for _, cpu in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DATA", REPO.parent / "shared" / "data")))
    parser.add_argument("--files", type=int, default=6, help="prediction files imported (of the 12 published)")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    files = sorted((args.data / "worldcuisines" / "predictions").glob("task2_oe_*.jsonl"))[: args.files]
    root = Path(tempfile.mkdtemp(prefix="dish-atlas-batch-"))
    try:
        template = root / "template" / "warehouse.duckdb"
        command(template, "ingest", "worldcuisines", "--source", str(args.data / "worldcuisines"))
        print(f"{len(files)} prediction files, one import-responses command each, on a WorldCuisines warehouse")
        for round_ in range(args.rounds):
            each = copy_warehouse(template, root / f"each{round_}" / "warehouse.duckdb")
            base = total(import_each(each, files))
            batched = copy_warehouse(template, root / f"batch{round_}" / "warehouse.duckdb")
            batch = total([*import_each(batched, files, "--no-publish"), command(batched, "publish")])
            same = summary(each) == summary(batched)
            print(
                f"round {round_ + 1}: each publishing {base[0]:.1f} s wall, {base[1]:.1f} CPU-s | "
                f"--no-publish + one publish {batch[0]:.1f} s wall, {batch[1]:.1f} CPU-s | "
                f"{base[0] / batch[0]:.2f}x wall, {base[1] / batch[1]:.2f}x CPU | snapshots equal: {same}"
            )
            if not same:
                return 1
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
