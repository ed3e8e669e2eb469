"""Score stage benchmark: the whole `score` stage (and the `languages` step after it) on a real warehouse.

    python bench/score.py --warehouse /work/cache/demo/warehouse.duckdb [--no-rerun]
    taskset -c 0 python bench/score.py --warehouse ...        # the "one core" figure

Copies the warehouse (the published snapshot and `warehouse.work.duckdb` beside it) into a temporary folder, empties
every table the two steps write, and times, in this process:

- the whole `score` stage (`pipeline.score.stage.score`: the pending query, extraction, metrics, inserts and the
  gold-text checks; an answer's language is the `languages` step's alone), as answers/s beside the goal of
  10,000/s and beside the extractor alone (`extract_countries` once per answer of the open-ended origin task, no
  reuse): the baseline the issue compared with;
- the `languages` step (`pipeline.score.languages.detect_answer_languages`).

Then every row the two steps wrote is compared with the copied warehouse's own rows (timestamps aside): the copy was
built by the pipeline as it is, or as it was before a speed-up, so equal rows show the speed-up changed no result
(a warehouse scored by another extractor version is reported as such). Last, unless --no-rerun, `python -m pipeline
score` runs twice as a separate process, as a user runs it: the first publishes the rescored rows, the second has
nothing new to do — its wall time is the "rerun with nothing new" figure (goal < 10 s).

    python bench/score.py --warehouse W --rescore [--baseline DIR] [--rounds 2]

times `python -m pipeline score --rescore` as a user runs it instead (a separate process on a fresh copy of both
databases, publish included), as answers/s of the warehouse's answers beside the goal of 10,000/s. With
`--baseline DIR` (another checkout, e.g. `git archive BASE | tar -x -C DIR`), that code and this one run in
alternation, `--rounds` times each, on the same copies, and the ratio of their times is printed: on a machine others
share, the load changes between runs, and alternating pairs see the same load.
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

import duckdb  # noqa: E402

from pipeline.extract.countries import extract_countries  # noqa: E402
from pipeline.score import stage as scoring  # noqa: E402
from pipeline.score.languages import detect_answer_languages  # noqa: E402
from warehouse.db import migrate  # noqa: E402

GOAL_PER_S = 10_000
RERUN_GOAL_S = 10.0
# table -> its columns that are a function of the answers (the time of writing is not)
COMPARED = {
    "core.extractions": "generation_id, extractor, status, countries, regions, dish_names",
    "core.extraction_spans": "generation_id, span_start, span_end, text, country, region, negated",
    "core.scores": "generation_id, metric, value",
    "core.choice_extractions": "generation_id, extractor, status, choice, choices, paper_choice, paper_status",
    "core.name_matches": "generation_id, matched_name, matched_lang, matched_rule, named_dish_key, named_name, "
    "candidates",
    "core.gold_text_checks": "item_id, lang, extractor, countries, status",
    "core.answer_languages": "generation_id, detector, prompt_lang, answer_lang, kind, switched, segments",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", type=Path, required=True, help="a published warehouse with answers scored")
    parser.add_argument("--no-rerun", action="store_true", help="skip the whole-process reruns")
    parser.add_argument("--rescore", action="store_true", help="time `score --rescore` as a whole process instead")
    parser.add_argument("--baseline", type=Path, help="--rescore: a checkout to compare with, run in alternation")
    parser.add_argument("--rounds", type=int, default=1, help="--rescore: runs of each code")
    args = parser.parse_args()
    if args.rescore:
        rescore_bench(args.warehouse.resolve(), args.baseline, args.rounds)
        return
    published = args.warehouse.resolve()
    work = published.with_name(published.stem + ".work.duckdb")
    cores = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="score-bench-") as tmp_name:
        tmp = Path(tmp_name)
        target = tmp / "warehouse.duckdb"
        reference = tmp / "reference.duckdb"
        shutil.copy(published, target)
        shutil.copy(work, target.with_name("warehouse.work.duckdb"))
        shutil.copy(work, reference)
        con = duckdb.connect(str(target.with_name("warehouse.work.duckdb")))
        migrate(con)  # a warehouse built by older code gets the tables the score stage reads now
        for table in COMPARED:
            con.execute(f"DELETE FROM {table}")
        con.execute("CHECKPOINT")
        n_answers = con.execute("SELECT count(*) FROM core.generations").fetchone()[0]

        began, cpu = time.perf_counter(), time.process_time()
        summary = scoring.score(con)
        score_s, score_cpu = time.perf_counter() - began, time.process_time() - cpu
        began, cpu = time.perf_counter(), time.process_time()
        detected = detect_answer_languages(con)
        languages_s, languages_cpu = time.perf_counter() - began, time.process_time() - cpu

        answers = [
            (response, lang)
            for response, lang in con.execute(
                """SELECT g.response, g.lang FROM core.generations g JOIN core.items i USING (item_id)
                   WHERE i.task_id = 'worldcuisines.origin_vqa' ORDER BY g.generation_id LIMIT 50000"""
            ).fetchall()
        ]
        began = time.perf_counter()
        for response, lang in answers:
            extract_countries(response, lang)  # matchers are built by now: the warm extractor
        extractor_per_s = len(answers) / (time.perf_counter() - began)

        con.execute(f"ATTACH '{reference}' AS ref (READ_ONLY)")
        compared = []
        for table, columns in COMPARED.items():
            ours, theirs = f"SELECT {columns} FROM {table}", f"SELECT {columns} FROM ref.{table}"
            n = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            n_ref = con.execute(f"SELECT count(*) FROM ref.{table}").fetchone()[0]
            only_ours = con.execute(f"SELECT count(*) FROM ({ours} EXCEPT ALL {theirs})").fetchone()[0]
            only_ref = con.execute(f"SELECT count(*) FROM ({theirs} EXCEPT ALL {ours})").fetchone()[0]
            compared.append((table, n, n_ref, only_ours, only_ref))
        con.close()

        per_s = summary.scored / score_s
        both = summary.scored / (score_s + languages_s)
        print(
            f"warehouse: {published} ({n_answers:,} answers); cores available: {cores}; load {os.getloadavg()[0]:.1f}"
        )
        print(f"{'':34}{'seconds':>9}{'CPU-s':>8}{'answers/s':>11}")
        rows = [
            ("score stage (whole)", score_s, score_cpu, per_s, f"{per_s / GOAL_PER_S:.2f}x the goal of 10,000/s"),
            ("languages step", languages_s, languages_cpu, detected / languages_s, ""),
            ("score + languages", score_s + languages_s, score_cpu + languages_cpu, both, ""),
        ]
        for label, seconds, cpu_seconds, rate, note in rows:
            print(f"{label:34}{seconds:>9.1f}{cpu_seconds:>8.1f}{rate:>11,.0f}   {note}")
        print(
            f"{'baseline: the extractor alone':34}{'':>17}{extractor_per_s:>11,.0f}   "
            f"{len(answers):,} open-ended origin answers, once each; the stage: {per_s / extractor_per_s:.2f}x it"
        )
        per_cpu_s = summary.scored / score_cpu
        print(
            f"score stage CPU-s: {score_cpu:.1f}; per CPU-s: {per_cpu_s:,.0f} answers = "
            f"{per_cpu_s / GOAL_PER_S:.2f}x the goal of 10,000/s on one core (the stage's work, on any number of cores)"
        )
        print(
            f"per answer: score {score_s / summary.scored * 1e6:.0f} µs "
            f"({score_cpu / summary.scored * 1e6:.0f} µs CPU), "
            f"languages {languages_s / detected * 1e6:.0f} µs ({languages_cpu / detected * 1e6:.0f} µs CPU)"
        )
        print("rows against the copied warehouse (timestamps aside):")
        identical = True
        for table, n, n_ref, only_ours, only_ref in compared:
            same = only_ours == 0 and only_ref == 0
            identical &= same
            verdict = (
                "identical" if same else f"DIFFERENT: {only_ours} ours only, {only_ref} theirs only (of {n_ref:,})"
            )
            print(f"  {table:28}{n:>10,} rows  {verdict}")
        if not args.no_rerun:
            env = {**os.environ}
            command = [sys.executable, "-m", "pipeline", "--warehouse", str(target), "score"]
            timings = []
            for _ in range(2):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                began = time.perf_counter()
                subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                timings.append((time.perf_counter() - began, cpu))
            (first, first_cpu), (again, again_cpu) = timings
            print(
                f"whole process `pipeline score`: after the rescore (publishes it) {first:.1f} s ({first_cpu:.1f} "
                f"CPU-s); rerun with nothing new {again:.1f} s ({again_cpu:.1f} CPU-s): "
                f"{again / RERUN_GOAL_S:.2f}x the 10 s limit"
            )
        if not identical:
            sys.exit(1)


def rescore_once(published: Path, code: Path) -> tuple[float, float, str]:
    """`python -m pipeline score --rescore` with `code`'s pipeline on a fresh copy: (wall s, CPU-s, its stderr)."""
    with tempfile.TemporaryDirectory(prefix="rescore-bench-") as tmp_name:
        target = Path(tmp_name) / "warehouse.duckdb"
        shutil.copy(published, target)
        shutil.copy(published.with_name(published.stem + ".work.duckdb"), target.with_name("warehouse.work.duckdb"))
        command = [sys.executable, "-m", "pipeline", "--warehouse", str(target), "score", "--rescore"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = subprocess.run(command, cwd=code, env={**os.environ, "COLUMNS": "200"}, capture_output=True, text=True)
        wall = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"{code}: score --rescore failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stderr


def rescore_bench(published: Path, baseline: Path | None, rounds: int) -> None:
    """Whole-process `score --rescore` answers/s (and, with a baseline, the ratio to it, run in alternation)."""
    con = duckdb.connect(str(published), read_only=True)
    n_answers = con.execute("SELECT count(*) FROM core.generations").fetchone()[0]
    con.close()
    codes = [("baseline", baseline.resolve())] if baseline else []
    codes.append(("this code", REPO))
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in codes}
    print(f"warehouse: {published} ({n_answers:,} answers); cores: {len(os.sched_getaffinity(0))}")
    for round_ in range(rounds):
        for name, code in codes:
            load = os.getloadavg()[0]
            wall, cpu, stderr = rescore_once(published, code)
            times[name].append((wall, cpu))
            step = next((line for line in stderr.splitlines() if line.startswith("scored ")), "")
            print(
                f"round {round_ + 1} {name:10} {wall:7.1f} s {cpu:7.1f} CPU-s {n_answers / wall:9,.0f} answers/s "
                f"({n_answers / wall / GOAL_PER_S:.2f}x the goal; load {load:.1f}) [{step}]",
                flush=True,
            )
    if baseline:
        for (base_wall, base_cpu), (wall, cpu) in zip(times["baseline"], times["this code"], strict=True):
            print(f"ratio baseline/this code: wall {base_wall / wall:.2f}x, CPU {base_cpu / cpu:.2f}x")


if __name__ == "__main__":
    main()
