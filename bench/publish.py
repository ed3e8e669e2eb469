"""Publish benchmark: `python -m pipeline publish --force` (every mart built, checked against its declaration, its
data tests and the integrity checks run, the copy renamed into place) as a user runs it, against another checkout.

    python bench/publish.py --warehouse W/warehouse.duckdb --baseline DIR [--rounds 3]

Each round copies the published snapshot and `warehouse.work.duckdb` beside it into a fresh folder per checkout and
times one `publish --force` in a separate process for each, this code and the `--baseline` checkout (e.g. `git
archive BASE | tar -x -C DIR`, with `DIR/.venv` linked) in alternation, so pairs see the same load on a shared
machine; prints each run's wall and CPU seconds, the medians and the ratio this / baseline (below 1: faster).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def publish_once(checkout: Path, published: Path, folder: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `publish --force` by `checkout` on a fresh copy of the warehouse."""
    folder.mkdir(parents=True)
    target = folder / "warehouse.duckdb"
    shutil.copyfile(published, target)
    shutil.copyfile(published.with_name(published.stem + ".work.duckdb"), folder / "warehouse.work.duckdb")
    command = [sys.executable, "-m", "pipeline", "--warehouse", str(target), "publish", "--force"]
    began, cpu = time.perf_counter(), _children_cpu()
    result = subprocess.run(command, cwd=checkout, capture_output=True, text=True, check=False)
    seconds, cpu_seconds = time.perf_counter() - began, _children_cpu() - cpu
    if result.returncode != 0:
        raise SystemExit(f"{checkout}: publish failed:\n{result.stderr}")
    return seconds, cpu_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", type=Path, required=True, help="a published warehouse (its .work beside it)")
    parser.add_argument("--baseline", type=Path, required=True, help="another checkout, run in alternation")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    published = args.warehouse.resolve()
    runs: dict[str, list[tuple[float, float]]] = {"this": [], "baseline": []}
    with tempfile.TemporaryDirectory(prefix="publish-bench-") as tmp_name:
        for round_ in range(args.rounds):
            for name, checkout in (("this", REPO), ("baseline", args.baseline.resolve())):
                folder = Path(tmp_name) / f"{name}-{round_}"
                runs[name].append(publish_once(checkout, published, folder))
                shutil.rmtree(folder)
                wall, cpu = runs[name][-1]
                print(f"round {round_ + 1} {name:9} {wall:7.1f} s wall {cpu:7.1f} CPU-s  load {os.getloadavg()[0]:.1f}")
    medians = {name: [statistics.median(r[i] for r in found) for i in (0, 1)] for name, found in runs.items()}
    print(f"warehouse: {published}; baseline: {args.baseline}; {args.rounds} rounds, medians:")
    for name, (wall, cpu) in medians.items():
        print(f"  {name:9} {wall:7.1f} s wall {cpu:7.1f} CPU-s")
    print(
        f"this / baseline: {medians['this'][0] / medians['baseline'][0]:.2f}x wall, "
        f"{medians['this'][1] / medians['baseline'][1]:.2f}x CPU"
    )


if __name__ == "__main__":
    main()
