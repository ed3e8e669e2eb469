"""The Ray executor beside the local one, as a user runs them: `python -m pipeline ... --executor local|ray`.

    python bench/executors.py [--warehouse W] [--shards 8] [--shard-mb 4] [--items 20] [--workers 2]

Builds (unless --warehouse names a published warehouse with BORSch ingested) a temporary BORSch warehouse and a tiny
random text model, then times four whole processes on copies of it:

* `corpus scan` over a synthetic Ukrainian corpus (`--shards` JSON Lines shards of `--shard-mb` MB each, every
  document naming dishes next to true-origin and other countries), local vs `--executor ray`;
* `generate --task borsch.origin_qa --backend transformers` with the tiny model (`--items` dishes x 5 variants),
  local vs `--executor ray`.

Each pair must leave identical rows (checked: every corpus table; every generation column but run, clock and
latency), and the script prints seconds and the ray/local ratio. Without `RAY_ADDRESS` the Ray runs start a local
Ray each, so on one small machine the figures show the executor's fixed cost, not a speed-up; on a cluster set
RAY_ADDRESS (and put the temporary folder, `--tmp`, on shared storage).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402

CORPUS_TABLES = (
    "core.corpora",
    "core.corpus_shard_dish_counts",
    "core.corpus_shard_name_counts",
    "core.corpus_samples",
    "core.corpus_dish_counts",
    "core.corpus_name_counts",
)
GENERATIONS = """SELECT generation_id, model_id, item_id, lang, variant, messages, response, finish_reason, tokens_in,
                        tokens_out, origin FROM core.generations ORDER BY generation_id"""
SENTENCES = [
    "Борщ готують у Польщі.",
    "Це страва з України, борщем пригощали гостей.",
    "Вареники люблять у Канаді.",
    "Книші пекли вдома.",
]
FILLER = "тамо кано ліра вомо сіна ради нокі тарі молі вали пеко ранти сола мені дарі "


def cli(warehouse: Path, *args: str) -> float:
    """Seconds one `python -m pipeline` process takes (interpreter start, imports and publishing included)."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pipeline", "--warehouse", str(warehouse), *args],
        cwd=REPO,
        check=True,
        capture_output=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    return time.perf_counter() - started


def copy(template: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in (template.name, template.stem + ".work" + template.suffix):
        shutil.copyfile(template.with_name(name), folder / name)
    return folder / template.name


def rows(warehouse: Path, sql: str) -> list:
    with duckdb.connect(str(warehouse.with_name("warehouse.work.duckdb")), read_only=True) as con:
        return con.execute(sql).fetchall()


def write_corpus(folder: Path, shards: int, shard_mb: float, seed: int = 0) -> float:
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    total = 0
    for k in range(shards):
        with open(folder / f"part-{k:03d}.jsonl", "w", encoding="utf-8") as handle:
            written = 0
            while written < shard_mb * 1e6:
                doc = FILLER * rng.randint(5, 30) + " ".join(rng.sample(SENTENCES, 2))
                line = json.dumps({"text": doc}, ensure_ascii=False) + "\n"
                handle.write(line)
                written += len(line.encode())
        total += written
    return total / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", type=Path, help="a published warehouse with BORSch ingested (else built)")
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--shard-mb", type=float, default=4.0)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="--ray-workers")
    parser.add_argument("--tmp", type=Path, help="working folder (default: a temporary one)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-executors-", dir=args.tmp))
    try:
        template = args.warehouse
        if template is None:
            template = tmp / "base" / "warehouse.duckdb"
            subprocess.run(
                [sys.executable, "-m", "pipeline", "--warehouse", str(template), "ingest", "borsch", "--source",
                 str(Path(os.environ.get("DATA") or REPO.parent / "shared" / "data") / "borsch")],
                cwd=REPO, check=True, capture_output=True,
            )  # fmt: skip
        ray = ("--executor", "ray", "--ray-workers", str(args.workers))
        where = os.environ.get("RAY_ADDRESS") or "a local Ray started by each command"
        print(f"Ray: {where}; {os.cpu_count()} CPUs here")

        mb = write_corpus(tmp / "corpus", args.shards, args.shard_mb)
        scan = ("corpus", "scan", "--lang", "uk", "--source", str(tmp / "corpus"))
        local_wh, ray_wh = copy(template, tmp / "scan-local"), copy(template, tmp / "scan-ray")
        local_s = cli(local_wh, *scan)
        ray_s = cli(ray_wh, *scan, *ray, "--ray-work", str(tmp / "ray-work"))
        same = all(
            sorted(rows(local_wh, f"SELECT * FROM {t}")) == sorted(rows(ray_wh, f"SELECT * FROM {t}"))
            for t in CORPUS_TABLES
        )
        print(
            f"corpus scan, {args.shards} shards, {mb:.1f} MB: local {local_s:.1f} s ({mb / local_s:.1f} MB/s), "
            f"ray {ray_s:.1f} s ({mb / ray_s:.1f} MB/s), ray/local {ray_s / local_s:.2f}x, identical rows: {same}"
        )

        model = tmp / "tiny"
        subprocess.run([sys.executable, "-m", "pipeline", "tiny-model", "--kind", "text", "--out", str(model)],
                       cwd=REPO, check=True, capture_output=True)  # fmt: skip
        ask = ("generate", "--task", "borsch.origin_qa", "--lang", "uk", "--backend", "transformers", "--model",
               str(model), "--limit", str(args.items), "--max-tokens", "16", "--chunk-size", "10")  # fmt: skip
        local_wh, ray_wh = copy(template, tmp / "gen-local"), copy(template, tmp / "gen-ray")
        local_s = cli(local_wh, *ask)
        ray_s = cli(ray_wh, *ask, *ray)
        answers = rows(local_wh, GENERATIONS)
        same = answers == rows(ray_wh, GENERATIONS)
        n = len(answers)
        print(
            f"generate, tiny transformers model, {n} answers: local {local_s:.1f} s ({n / local_s:.1f}/s), "
            f"ray {ray_s:.1f} s ({n / ray_s:.1f}/s), ray/local {ray_s / local_s:.2f}x, identical rows: {same}"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
