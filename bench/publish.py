"""Publish benchmark: `python -m pipeline publish --force` (every mart built, checked against its declaration, its
data tests and the integrity checks run, the copy renamed into place) as a user runs it, against another checkout.

    python bench/publish.py --warehouse W/warehouse.duckdb --baseline DIR [--rounds 3]

Each round copies the published snapshot and `warehouse.work.duckdb` beside it into a fresh folder per checkout and
times one `publish --force` in a separate process for each, this code and the `--baseline` checkout (e.g. `git
archive BASE | tar -x -C DIR`, with `DIR/.venv` linked) in alternation, so pairs see the same load on a shared
machine; prints each run's wall and CPU seconds, the medians and the ratio this / baseline (below 1: faster).

    python bench/publish.py --statements W1/warehouse.duckdb [W2/warehouse.duckdb] [--top 20]

Times each mart's statements one by one (each SQL statement, each Python mart's `build`) in one transaction on a
copy of each warehouse, rolled back, and prints the costliest; with two warehouses (bench/scale.py's K = 1 and K = 10)
each one's CPU-seconds in both and their ratio, largest excess over the answers' ratio first: what makes a publish
grow faster than its answers.
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
if str(REPO) not in sys.path:  # run as `python bench/publish.py`: --statements imports the marts of this checkout
    sys.path.insert(0, str(REPO))


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


def statement_seconds(published: Path) -> tuple[int, dict[str, float]]:
    """(scored answers, `mart file: statement` -> CPU-seconds) of building every mart on a copy of `published`."""
    from warehouse import set_measures
    from warehouse.connect import connect
    from warehouse.marts import MARTS

    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="publish-statements-", dir=published.parent) as tmp_name:
        copy = Path(tmp_name) / "warehouse.duckdb"
        shutil.copyfile(published, copy)
        con = connect(str(copy))
        try:
            answers = con.execute("SELECT count(DISTINCT generation_id) FROM core.scores").fetchall()[0][0]
            con.execute("BEGIN TRANSACTION")
            set_measures.register(con)
            for mart in MARTS.values():
                if mart.module is not None:
                    began = time.process_time()
                    mart.build(con)
                    seconds[f"{mart.file}: build"] = time.process_time() - began
                    continue
                for number, statement in enumerate(con.extract_statements(mart.source)):
                    began = time.process_time()
                    con.execute(statement.query).fetchall()
                    first_line = next((line for line in statement.query.splitlines() if line.strip()), "")
                    seconds[f"{mart.file} #{number}: {first_line.strip()[:60]}"] = time.process_time() - began
            con.execute("ROLLBACK")
        finally:
            con.close()
    return answers, seconds


def compare_statements(warehouses: list[Path], top: int) -> None:
    measured = [statement_seconds(path.resolve()) for path in warehouses]
    for path, (answers, seconds) in zip(warehouses, measured, strict=True):
        print(f"{path}: {answers:,} scored answers, marts {sum(seconds.values()):.1f} CPU-s")
    if len(measured) == 1:
        for name, cpu in sorted(measured[0][1].items(), key=lambda item: -item[1])[:top]:
            print(f"{cpu:8.2f} CPU-s  {name}")
        return
    (small_answers, small), (large_answers, large) = measured
    scale = large_answers / small_answers
    print(f"answers x{scale:.2f}; statements by CPU-seconds beyond that ratio (excess = large - ratio x small):")
    rows = sorted(large, key=lambda name: -(large[name] - scale * small.get(name, 0.0)))[:top]
    for name in rows:
        before, after = small.get(name, 0.0), large[name]
        ratio = f"{after / before:6.1f}x" if before > 0.005 else "      -"
        print(f"{after - scale * before:+8.2f}  {before:7.2f} -> {after:7.2f} CPU-s {ratio}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", type=Path, help="a published warehouse (its .work beside it)")
    parser.add_argument("--baseline", type=Path, help="another checkout, run in alternation")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--statements", type=Path, nargs="+", metavar="WAREHOUSE", help="time each mart statement")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    if args.statements:
        if len(args.statements) > 2:
            parser.error("--statements takes one warehouse, or two to compare")
        compare_statements(args.statements, args.top)
        return
    if args.warehouse is None or args.baseline is None:
        parser.error("--warehouse and --baseline are needed (or --statements)")
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
