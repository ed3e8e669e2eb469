"""A lab's worth of models: K times the real answers, imported, scored, published and drawn (issue 50).

    python bench/scale.py --factor 1,3 [--data ../shared/data] [--root /tmp/dish-atlas-scale]
    nohup python bench/scale.py --factor 10 > /tmp/scale10.log 2>&1 &     # 4.7 million answers

For each K, a warehouse holds K times the answers the demo imports: the 36 published WorldCuisines prediction files
(12 models; open-ended task 2, multiple-choice task 2, open-ended task 1: 468,000 lines) and, for K > 1, K - 1
*variant models* of each real model (`gpt-4o-2024-08-06-r02`, ...: 120 models at K = 10). A variant's answer to a
question is derived, deterministically (seeded per model, variant and file), from the real answers to the same
question in the same language:

- its base text is the real model's own answer (40%) or another of the 12 models' answers to that item and language
  (60%): models disagree about the same dish as real ones do, and every text is a real model's text;
- then meaning-preserving surface edits an open-ended answer really shows between models: sentences in another
  order, the first letter's case, a final full stop dropped or added, the answer in markdown bold, a trailing new
  line. A multiple-choice answer only gets another model's answer or white space around it (its number is its
  meaning).

So texts differ from model to model (never K copies of one text, which the score stage's per-run memo of distinct
inputs would make free) while their mix of languages, lengths and extractor paths stays the real one; the number of
distinct (answer, language) pairs is printed per K (it grows with K, short answers such as "Italy" repeating as
they do across real models). Lines that are not JSON (the real files' Python-literal quirk lines) are kept as they
are, for the variant models too.

Stages, each a separate `python -m pipeline` process as a user runs it, each on the K warehouse (`--no-publish`
but the publish itself): `import` (`import-responses` of every file), `score` (the score pipeline: link, score,
languages, culturemix_parse), `publish`, then `pages`: every dashboard page (tests/e2e/test_browser.py's list) in
headless Chromium on a fresh `streamlit run` of the published warehouse, cold (a fresh server and browser context)
and warm (the navigation's page switch of bench/pages.py), with the server's memory (RSS with its children) sampled.

Printed per K: wall and CPU seconds of each stage, answers/s, the peak RSS of the stage's processes (the largest
process of its tree, and the tree's sum), the warehouse's size on disk, each page's cold and warm seconds, and at
the end the cost of each stage against K = 1 (goal: 10x the answers in <= 11x the time). Results are kept in
ROOT/kK/results.json: a rerun skips every stage already measured (`--redo STAGE` measures it again), so a long
K = 10 run killed midway resumes at its stage. Timings on a machine others share are noisy: CPU-s are printed
beside wall seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

STAGES = ("import", "score", "publish", "pages")
LINEAR_GOAL = 1.1  # 10x the answers in <= 11x the time
SCORE_GOAL_PER_S = 10_000
COLD_GOAL_S, WARM_GOAL_S, SERVER_GOAL_MB = 5.0, 2.0, 2048
KINDS = ("predictions/task2_oe_*.jsonl", "predictions/mc/task2_mc_*.jsonl", "predictions/small/task1_oe_*.jsonl")
FILE_NAME = re.compile(r"^(?P<prefix>task[12]_(?:oe|mc)_)(?P<model>.+)\.jsonl$")
SCORED = re.compile(r"scored [\d,]+ answers in ([\d.]+) s")
SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
CHAT_TOKENS = re.compile(r"(?:<\|[a-z_]+\|>|</s>)+\s*$")  # left at an answer's end by some models: kept at the end


# --- the answers: K times the real files --------------------------------------------------------------------------


def real_files(data: Path) -> dict[str, list[Path]]:
    """The demo's prediction files (pipeline.datasets.worldcuisines.predictions), by kind."""
    base = data / "worldcuisines"
    found = {kind: sorted(base.glob(kind)) for kind in KINDS}
    if not all(found.values()):
        sys.exit(f"error: {base}: the WorldCuisines prediction files ({', '.join(KINDS)}) are not all there")
    return found


def read_lines(path: Path) -> list[tuple[str, dict | None]]:
    """(line, its JSON object or None where it is not JSON: kept verbatim)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        out.append((line, record if isinstance(record, dict) else None))
    return out


def question_key(record: dict) -> tuple:
    """Answers to one question in one language (task 1 numbers its questions per file: its gold name too)."""
    return (str(record.get("qa_id")), record.get("lang"), record.get("answer"))


def open_ended_edit(text: str, rng: random.Random) -> str:
    """Surface edits that keep an open-ended answer's meaning: sentence order, first letter's case, final stop,
    markdown bold, a trailing new line."""
    tail = CHAT_TOKENS.search(text)
    body, tail = (text[: tail.start()].strip(), tail.group()) if tail else (text.strip(), "")
    sentences = SENTENCE_END.split(body)
    if len(sentences) > 1 and rng.random() < 0.5:
        turn = rng.randrange(1, len(sentences))
        body = " ".join(sentences[turn:] + sentences[:turn])
    if body and body[0].isalpha() and rng.random() < 0.3:
        body = body[0].swapcase() + body[1:]
    roll = rng.random()
    if roll < 0.3 and body.endswith("."):
        body = body[:-1]
    elif roll < 0.6 and body and body[-1].isalnum():
        body += "."
    if "\n" not in body and 0 < len(body) < 60 and rng.random() < 0.15:
        body = f"**{body}**"
    if rng.random() < 0.1:
        body += "\n"
    return body + tail


def choice_edit(text: str, rng: random.Random) -> str:
    roll = rng.random()
    return f" {text}" if roll < 0.1 else (f"{text}\n" if roll < 0.2 else text)


def variant_lines(
    lines: list[tuple[str, dict | None]], pool: dict[tuple, list[str]], multiple_choice: bool, rng: random.Random
) -> list[str]:
    """One variant model's file from a real model's lines and every model's answers by question."""
    out = []
    for line, record in lines:
        if record is None or not isinstance(record.get("prediction"), str):
            out.append(line)  # a quirk line or a missing answer stays what it is
            continue
        others = pool.get(question_key(record), ())
        text = record["prediction"] if rng.random() < 0.4 or not others else rng.choice(others)
        text = choice_edit(text, rng) if multiple_choice else open_ended_edit(text, rng)
        out.append(json.dumps(record | {"prediction": text}, ensure_ascii=False))
    return out


def build_answers(data: Path, factor: int, folder: Path, seed: int) -> list[Path]:
    """The K x 36 answer files in `folder` (written once; a file already there is kept), real ones linked."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for paths in real_files(data).values():
        pool: dict[tuple, list[str]] | None = None
        for path in paths:
            prefix, model = FILE_NAME.match(path.name).group("prefix", "model")
            real = folder / path.name
            if not real.exists():
                real.symlink_to(path)
            written.append(real)
            lines = None
            for variant in range(2, factor + 1):
                target = folder / f"{prefix}{model}-r{variant:02d}.jsonl"
                written.append(target)
                if target.exists():
                    continue
                if pool is None:
                    pool = answer_pool(paths)
                lines = lines if lines is not None else read_lines(path)
                rng = random.Random(f"{seed}|{path.name}|{variant}")
                text = "\n".join(variant_lines(lines, pool, "_mc_" in path.name, rng)) + "\n"
                partial = target.with_suffix(".part")
                partial.write_text(text, encoding="utf-8")
                partial.rename(target)  # a killed build leaves no half file under the final name
    return written


def answer_pool(paths: list[Path]) -> dict[tuple, list[str]]:
    pool: dict[tuple, list[str]] = defaultdict(list)
    for path in paths:
        for _, record in read_lines(path):
            if record is not None and isinstance(record.get("prediction"), str):
                pool[question_key(record)].append(record["prediction"])
    return pool


def distinct_answers(files: list[Path]) -> tuple[int, int]:
    """(answers, distinct (answer, language) pairs) of the files."""
    seen: set[tuple] = set()
    total = 0
    for path in files:
        for _, record in read_lines(path):
            if record is not None and isinstance(record.get("prediction"), str):
                total += 1
                seen.add((record["prediction"], record.get("lang")))
    return total, len(seen)


# --- the stages -----------------------------------------------------------------------------------------------------


class Sampler:
    """Resident memory of a process tree, sampled every `every` seconds: the largest process and the tree's sum."""

    def __init__(self, root: psutil.Process, every: float = 0.25) -> None:
        self.root, self.every = root, every
        self.largest = self.total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            sizes = []
            for process in [self.root, *self._children()]:
                with contextlib.suppress(psutil.Error):
                    sizes.append(process.memory_info().rss)
            if sizes:
                self.largest, self.total = max(self.largest, max(sizes)), max(self.total, sum(sizes))
            self._stop.wait(self.every)

    def _children(self) -> list[psutil.Process]:
        with contextlib.suppress(psutil.Error):
            return self.root.children(recursive=True)
        return []

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def pipeline(warehouse: Path, *args: str, log: Path) -> dict:
    """`python -m pipeline --warehouse W ARGS` as its own process: wall, CPU (it and its children), peak RSS."""
    command = [sys.executable, "-m", "pipeline", "--warehouse", str(warehouse), *args]
    env = {**os.environ, "COLUMNS": "200"}
    with open(log, "a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        with Sampler(psutil.Process(process.pid)) as memory:
            _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"error: pipeline {' '.join(args[:2])} failed ({process.returncode}); its output: {log}")
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_process_mb": round(max(memory.largest, usage.ru_maxrss * 1024) / 2**20),
        "peak_tree_mb": round(memory.total / 2**20),
    }


def warehouse_mb(warehouse: Path) -> dict:
    work = warehouse.with_suffix(".work" + warehouse.suffix)
    return {
        "published_mb": round(warehouse.stat().st_size / 2**20) if warehouse.exists() else None,
        "work_mb": round(work.stat().st_size / 2**20) if work.exists() else None,
    }


def count_answers(warehouse: Path) -> int:
    import duckdb

    work = warehouse.with_suffix(".work" + warehouse.suffix)
    with duckdb.connect(str(work), read_only=True) as con:
        return con.execute("SELECT count(*) FROM core.generations").fetchone()[0]


def template_warehouse(root: Path, data: Path, log: Path) -> Path:
    """WorldCuisines ingested once (items, gold, names): every K starts from a copy of it."""
    template = root / "template" / "warehouse.duckdb"
    done = template.with_name("ingested")
    if not done.exists():
        shutil.rmtree(template.parent, ignore_errors=True)
        template.parent.mkdir(parents=True)
        pipeline(template, "ingest", "worldcuisines", "--source", str(data / "worldcuisines"), log=log)
        done.touch()
    return template


def pages_stage(warehouse: Path, cold_runs: int, warm_runs: int, only: set[str], done: dict, save) -> None:
    """Every page's cold and warm draw (bench/pages.py's measure) and the server's memory while they draw, into
    `done` ({"pages": {name: figures}, "server_peak_mb": ...}), saved after each page: a rerun measures only the
    pages not measured yet. A page that does not draw within bench/pages.py's time limit is recorded as failed."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    from bench.load import server_memory, streamlit_server
    from bench.pages import measure
    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
    from tests.e2e.test_browser import PAGES

    rows = done.setdefault("pages", {})
    done.setdefault("server_peak_mb", 0)
    stop = threading.Event()

    def watch() -> None:  # the streamlit servers measure() starts, one after another
        while not stop.is_set():
            with contextlib.suppress(RuntimeError, psutil.Error):
                mb = round(server_memory(streamlit_server()) / 2**20)
                done["server_peak_mb"] = max(done["server_peak_mb"], mb)
            stop.wait(0.25)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                for spec in PAGES:
                    if (only and spec.name not in only) or spec.name in rows:
                        continue
                    try:
                        colds, _tabs, switched = measure(spec, warehouse, warm_runs, browser, cold_runs)
                        rows[spec.name] = {"cold_s": statistics.median(colds), "warm_s": statistics.median(switched)}
                    except PlaywrightError as exc:  # e.g. a navigation link not reached: warm by new tabs instead
                        rows[spec.name] = tabs_only(spec, warehouse, warm_runs, browser, str(exc))
                    print(f"    {spec.name:<20} {page_figures(rows[spec.name])}", flush=True)
                    save()
            finally:
                browser.close()
    finally:
        stop.set()
        watcher.join()
        save()


def tabs_only(spec, warehouse: Path, warm_runs: int, browser, why: str) -> dict:
    """Cold, and warm as the page opened again in new tabs of the same server (bench/pages.py's "tab"), for a page
    whose navigation switch could not be measured; a page that does not draw at all is recorded as failed."""
    from playwright.sync_api import Error as PlaywrightError

    from bench.pages import first_draw
    from tests.e2e.conftest import HEIGHT, WIDTH, serve

    try:
        with serve("app/main.py", {"DISH_ATLAS_WAREHOUSE": str(warehouse)}) as url:
            context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
            try:
                cold = first_draw(context, url, spec)
                tabs = [first_draw(context, url, spec) for _ in range(warm_runs)]
            finally:
                context.close()
    except PlaywrightError as exc:
        return {"failed": str(exc).splitlines()[0][:200]}
    return {"cold_s": cold, "warm_s": statistics.median(tabs), "warm_by": "new tab", "switch_failed": why[:200]}


def page_figures(page: dict) -> str:
    if "failed" in page:
        return f"NOT drawn: {page['failed']}"
    by = f" (by {page['warm_by']})" if "warm_by" in page else ""
    return f"cold {page['cold_s']:6.2f} s  warm {page['warm_s']:6.2f} s{by}"


def run_factor(args: argparse.Namespace, factor: int, template: Path) -> dict:
    folder = args.root / f"k{factor}"
    folder.mkdir(parents=True, exist_ok=True)
    results_path = folder / "results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    log = folder / "pipeline.log"
    warehouse = folder / "warehouse.duckdb"

    def save() -> None:
        results_path.write_text(json.dumps(results, indent=2))

    redo = set(args.redo)
    if "answers" not in results:
        started = time.perf_counter()
        files = build_answers(args.data, factor, folder / "answers", args.seed)
        lines, distinct = distinct_answers(files)
        results["answers"] = {"files": len(files), "lines": lines, "distinct": distinct,
                              "build_s": round(time.perf_counter() - started, 1)}  # fmt: skip
        save()
    files = sorted((folder / "answers").glob("*.jsonl"))
    print(f"K = {factor}: {len(files)} files, {results['answers']['lines']:,} answers, "
          f"{results['answers']['distinct']:,} distinct (answer, language)", flush=True)  # fmt: skip
    if "import" in redo or "import" not in results:  # a new import starts from the ingested template
        from tests.helpers import copy_warehouse

        for stage in ("import", "score", "publish"):  # the pages' figures stay unless `--redo pages`
            results.pop(stage, None)
        copy_warehouse(template, warehouse)
        results["import"] = pipeline(warehouse, "--no-publish", "import-responses", *map(str, files), log=log)
        results["answers"]["imported"] = count_answers(warehouse)
        save()
    for stage, command in (("score", ("--no-publish", "score")), ("publish", ("publish",))):
        if (stage in redo or stage not in results) and stage in args.stages:
            results[stage] = pipeline(warehouse, *command, log=log)
            if stage == "score":
                results[stage]["stage_s"] = stage_seconds(log)
            if stage == "publish":
                results["size"] = warehouse_mb(warehouse)
            save()
    if "pages" in args.stages and "publish" in results:
        if "pages" in redo:  # the pages named by --pages, else every page
            measured = results.get("pages", {}).get("pages", {})
            for name in args.pages or list(measured):
                measured.pop(name, None)
        pages_stage(warehouse, args.cold_runs, args.warm_runs, set(args.pages), results.setdefault("pages", {}), save)
    return results


def stage_seconds(log: Path) -> float | None:
    """The score stage's own seconds, from its last "scored N answers in S s" line (the languages step aside)."""
    found = SCORED.findall(log.read_text(encoding="utf-8", errors="replace")) if log.exists() else []
    return float(found[-1]) if found else None


def report(all_results: dict[int, dict], root: Path) -> None:
    print()
    print(f"{'K':>3}{'answers':>11}{'distinct':>10}  {'stage':<8}{'wall s':>9}{'CPU-s':>9}{'answers/s':>11}"
          f"{'peak MB (process / tree)':>27}")  # fmt: skip
    for factor, results in sorted(all_results.items()):
        answers = results["answers"].get("imported", results["answers"]["lines"])
        for stage in ("import", "score", "publish"):
            if stage not in results:
                continue
            r = results[stage]
            rate = answers / r["wall_s"]
            note = ""
            if stage == "score" and r.get("stage_s") is None:
                r["stage_s"] = stage_seconds(root / f"k{factor}" / "pipeline.log")
            if stage == "score" and r["stage_s"]:
                stage_rate = answers / r["stage_s"]
                goal = stage_rate / SCORE_GOAL_PER_S
                note = f"  (the score stage alone {r['stage_s']:.1f} s = {stage_rate:,.0f}/s, {goal:.2f}x the goal)"
            peak = f"{r['peak_process_mb']:>14,} / {r['peak_tree_mb']:,}"
            print(f"{factor:>3}{answers:>11,}{results['answers']['distinct']:>10,}  {stage:<8}{r['wall_s']:>9.1f}"
                  f"{r['cpu_s']:>9.1f}{rate:>11,.0f}{peak}{note}")  # fmt: skip
        if "size" in results:
            size = results["size"]
            print(f"{'':>24}warehouse: published {size['published_mb']:,} MB, working {size['work_mb']:,} MB")
        if "pages" in results:
            pages = results["pages"]
            drawn = [p for p in pages["pages"].values() if "failed" not in p]
            worst_cold = max((p["cold_s"] for p in drawn), default=0.0)
            worst_warm = max((p["warm_s"] for p in drawn), default=0.0)
            print(
                f"{'':>24}pages: worst cold {worst_cold:.2f} s ({worst_cold / COLD_GOAL_S:.2f}x the 5 s goal), worst "
                f"warm {worst_warm:.2f} s ({worst_warm / WARM_GOAL_S:.2f}x the 2 s goal); server peak "
                f"{pages['server_peak_mb']:,} MB ({pages['server_peak_mb'] / SERVER_GOAL_MB:.2f}x the 2 GB goal)"
            )
            for name, page in pages["pages"].items():
                print(f"{'':>26}{name:<20} {page_figures(page)}")
    base = all_results.get(1)
    if base is None:
        return
    print("\ncost against K = 1 (goal: at most 1.1x K, i.e. 10x the answers in <= 11x the time):")
    for factor, results in sorted(all_results.items()):
        if factor == 1:
            continue
        for stage in ("import", "score", "publish"):
            if stage in results and stage in base:
                wall = results[stage]["wall_s"] / base[stage]["wall_s"]
                cpu = results[stage]["cpu_s"] / base[stage]["cpu_s"]
                verdict = "met" if cpu <= LINEAR_GOAL * factor else "NOT met"
                print(f"  K = {factor:>2} {stage:<8} wall {wall:5.2f}x, CPU {cpu:5.2f}x for {factor}x the answers: "
                      f"{cpu / factor:.2f} per unit of K ({verdict}, by CPU-s)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--factor", default="1,3", help="comma-separated K values (e.g. 1,3,10)")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DATA", ROOT.parent / "shared" / "data")))
    parser.add_argument("--root", type=Path, default=Path("/tmp/dish-atlas-scale"), help="warehouses and results")
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument("--stages", default=",".join(STAGES), help="which of import,score,publish,pages to run")
    parser.add_argument("--redo", default="", help="stages measured again even if results.json has them")
    parser.add_argument("--pages", default="", help="only these pages (comma-separated; default every page)")
    parser.add_argument("--cold-runs", type=int, default=1)
    parser.add_argument("--warm-runs", type=int, default=2)
    args = parser.parse_args(argv)
    args.data = args.data.expanduser().resolve()
    args.stages = [s for s in args.stages.split(",") if s]
    args.redo = [s for s in args.redo.split(",") if s]
    args.pages = [p for p in args.pages.split(",") if p]
    args.root.mkdir(parents=True, exist_ok=True)
    print(f"cores available: {len(os.sched_getaffinity(0))}; load {os.getloadavg()[0]:.1f}", flush=True)
    template = template_warehouse(args.root, args.data, args.root / "template.log")
    all_results = {}
    for factor in sorted({int(k) for k in args.factor.split(",") if k}):
        all_results[factor] = run_factor(args, factor, template)
    for found in sorted(args.root.glob("k*/results.json")):  # earlier runs' K too, for the curve
        factor = int(found.parent.name[1:])
        all_results.setdefault(factor, json.loads(found.read_text()))
    report(all_results, args.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
