"""`corpus scan --executor ray`: shards checksummed and scanned in parallel on Ray Data, merged by the driver.

The plan (shards in order, the corpus row, the patterns, the shards already done and the review-sample budget) is
the local executor's (pipeline/corpus/scan.py `plan_scan`). On the workers a `ShardScanner` actor builds the
pattern database once (from the rows the driver read, through the on-disk pattern cache), reads and counts one
shard at a time and writes its count tables as Parquet into the work folder, with a marker written last. The driver
takes the results in shard order and merges each shard in one DuckDB transaction (`write_shard`: the same
checksum rows as the local executor, the counts read from the Parquet files), then deletes its files; the corpus
totals follow once every shard is merged (`finish_scan`).
So a rerun skips every shard whose checksum is done under the same patterns; a shard scanned but not merged when a
job was killed is merged from its files instead of being read again. Review samples are cut per shard from the
budget the scan started with and trimmed in shard order (`within_budget`), which keeps exactly the local samples.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.core.run_settings import RayOptions
from pipeline.corpus.scan import (
    Progress,
    ScanPlan,
    ScanSummary,
    ShardResult,
    checksum_file,
    finish_scan,
    plan_scan,
    refuse_corrupt,
    scan_shard,
    within_budget,
    write_shard,
)
from pipeline.executors.ray_cluster import EXPECTED, actor_pool, cluster_cpus, failure_text, raise_failure, ray_cluster
from warehouse.io import transaction

_FILES = ("marker", "dish", "names", "samples")
_DISH_SCHEMA = pa.schema(
    [
        ("corpus_id", pa.string()),
        ("checksum", pa.string()),
        ("dish_key", pa.string()),
        ("docs_with_dish", pa.int64()),
        ("docs_with_true_country", pa.int64()),
        ("docs_with_any_country", pa.int64()),
        ("true_country_mentions", pa.int64()),
        ("any_country_mentions", pa.int64()),
    ]
)
_NAME_SCHEMA = pa.schema(
    [
        ("corpus_id", pa.string()),
        ("checksum", pa.string()),
        ("pair_id", pa.int64()),
        ("docs_uk_name", pa.int64()),
        ("docs_ru_name", pa.int64()),
    ]
)
_SAMPLE_SCHEMA = pa.schema(
    [
        ("corpus_id", pa.string()),
        ("dish_key", pa.string()),
        ("country", pa.string()),
        ("sentence", pa.string()),
        ("shard_path", pa.string()),
        ("doc_index", pa.int64()),
        ("checksum", pa.string()),
    ]
)


def shard_stem(plan_key: str, path: str, checksum: str) -> str:
    """The work files of one shard under one corpus and pattern set (the fingerprint is in `plan_key`)."""
    return hashlib.sha256(f"{plan_key}\0{path}\0{checksum}".encode()).hexdigest()[:32]


class ShardScanner:
    """A Ray Data actor: compiles the pattern database once, then scans the shards it is given, one per call."""

    def __init__(self, plan: dict, done: dict[str, str], work_dir: str) -> None:
        import ray

        from pipeline.corpus.compiled import Folder
        from pipeline.corpus.patterns import patterns_from_inputs

        inputs = ray.get(plan["inputs"]["ref"])
        patterns = patterns_from_inputs(plan["lang"], inputs)
        self.plan = ScanPlan(patterns=patterns, shards=[], done=done, **{**plan, "inputs": inputs})
        self.folder = Folder(patterns.literals.alphabet)
        self.work = Path(work_dir)
        self.key = f"{self.plan.corpus_id}\0{patterns.fingerprint}"

    def __call__(self, batch: dict) -> dict:
        out: dict[str, list] = {}
        for index, path in zip(batch["index"], batch["path"], strict=True):
            row = {"status": "skipped", "n_docs": 0, "reason": "", "failure": "", **dict.fromkeys(_FILES, "")}
            try:
                checksum = checksum_file(str(path))
                if self.plan.done.get(checksum) != "ok":  # else scanned before with these patterns: skipped
                    row = {**self.scan(str(path), checksum), "failure": ""}
            except EXPECTED as exc:  # an unreadable file (a corrupt one is a result, not a failure)
                checksum = ""
                row["failure"] = failure_text(exc)
            for name, value in {"index": int(index), "path": str(path), "checksum": str(checksum), **row}.items():
                out.setdefault(name, []).append(value)
        return out

    def scan(self, path: str, checksum: str) -> dict:
        """The shard's result as a row naming its Parquet files; a marker left by a killed job is reused."""
        stem = self.work / shard_stem(self.key, path, checksum)
        marker = stem.with_suffix(".json")
        if marker.is_file():
            return json.loads(marker.read_text(encoding="utf-8"))
        result = scan_shard(self.plan, self.folder, path, checksum, self.plan.budget)
        files = {}
        for part, rows, schema in (
            ("dish", result.dish_rows, _DISH_SCHEMA),
            ("names", result.name_rows, _NAME_SCHEMA),
            ("samples", result.samples, _SAMPLE_SCHEMA),
        ):
            target = stem.with_suffix(f".{part}.parquet")
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), target)
            files[part] = str(target)
        row = {"n_docs": result.n_docs, "status": result.status, "reason": result.reason or "", **files}
        row["marker"] = str(marker)
        partial = marker.with_name(f"{marker.name}.tmp-{os.getpid()}")
        partial.write_text(json.dumps(row), encoding="utf-8")
        partial.replace(marker)  # written last: a marker means every file of the shard is complete
        return row


@contextmanager
def _in_order():
    """Results in shard order, as the local executor writes them (the sample budget runs in that order)."""
    from ray.data import DataContext

    options = DataContext.get_current().execution_options
    before, options.preserve_order = options.preserve_order, True
    try:
        yield
    finally:
        options.preserve_order = before


def scan_corpus_on_ray(
    con: duckdb.DuckDBPyConnection,
    lang: str,
    source: str,
    text_field: str,
    *,
    run_id: str,
    options: RayOptions,
    work_dir: Path,
    on_progress: Callable[[Progress], None] | None = None,
    skip_corrupt_shards: bool = False,
) -> ScanSummary:
    plan = plan_scan(con, lang, source, text_field)
    summary = ScanSummary(plan.corpus_id, lang, plan.source, shards_total=len(plan.shards))
    sizes = {path: Path(path).stat().st_size for path in plan.shards}
    total_bytes, bytes_done = sum(sizes.values()), 0
    work_dir.mkdir(parents=True, exist_ok=True)
    budget = dict(plan.budget)
    began = time.perf_counter()
    with ray_cluster(options), _in_order():
        import ray
        import ray.data

        shipped = {
            "corpus_id": plan.corpus_id,
            "lang": plan.lang,
            "source": plan.source,
            "text_field": plan.text_field,
            "inputs": {"ref": ray.put(plan.inputs)},  # in a dict: fetched by the actor, not an argument copy
            "budget": plan.budget,
        }
        rows = [{"index": i, "path": path} for i, path in enumerate(plan.shards)]
        workers = options.workers or cluster_cpus()
        dataset = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
            ShardScanner,
            fn_constructor_kwargs={"plan": shipped, "done": plan.done, "work_dir": str(work_dir)},
            batch_size=1,
            compute=actor_pool(min(workers, len(rows))),
            num_cpus=1,
        )
        for row in dataset.iter_rows():
            raise_failure(row["failure"])
            if row["status"] == "skipped":
                continue
            path, size = row["path"], sizes[row["path"]]
            samples = pq.read_table(row["samples"]).to_pylist()
            result = ShardResult(int(row["n_docs"]), row["status"], row["reason"] or None, [], [], samples)
            if result.status != "ok" and not skip_corrupt_shards:  # as the local scan (pipeline/corpus/scan.py)
                raise refuse_corrupt(path, result.reason)
            with transaction(con):
                write_shard(
                    con,
                    plan,
                    path,
                    row["checksum"],
                    size,
                    result,
                    run_id,
                    within_budget(plan, samples, budget),
                    counts_from=(row["dish"], row["names"]),
                )
            for name in _FILES:  # the marker first: files without one are redone
                Path(row[name]).unlink(missing_ok=True)
            summary.add(path, size, result)
            bytes_done += size
            if on_progress is not None:
                elapsed = time.perf_counter() - began
                mb_per_s = bytes_done / 1e6 / elapsed if elapsed else 0.0
                on_progress(
                    Progress(
                        path, int(row["index"]), len(plan.shards), bytes_done, total_bytes, summary.n_docs, mb_per_s
                    )
                )
    summary.shards_skipped = summary.shards_total - summary.shards_scanned - len(summary.corrupt)
    finish_scan(con, plan, summary)
    summary.seconds = time.perf_counter() - began
    return summary
