"""Scan a text corpus for dish and country mentions (co-occurrence, RU/UK code mixing, review samples).

Shards are read in batches of documents (:mod:`pipeline.corpus.readers`), folded to one byte per character and
matched in one Hyperscan pass (:mod:`pipeline.corpus.fold`, :mod:`pipeline.corpus.matching`); the per-target counts
of a shard go to ``core.corpus_shard_*``.

Each shard (file) is written whole in one transaction: its partial counts go to ``core.corpus_shard_*``; the shards
finished within `WRITE_EVERY_S` seconds of each other share that transaction (a statement per table for them all,
not per shard: on small shards the writes cost as much as their scan). The corpus totals are sums over those rows,
recomputed once the shards are written and again when a scan starts, so a killed scan never double counts (its
rerun's totals count each shard once, and it scans again the shards whose transaction had not committed); a shard
already scanned (same checksum, same patterns) is skipped.
"""

from __future__ import annotations

import collections
import concurrent.futures
import functools
import glob
import hashlib
import itertools
import os
import queue
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import xxhash

from pipeline.core.errors import CorpusError, DataError
from pipeline.corpus.compiled import Folder
from pipeline.corpus.matching import MAX_SAMPLES, Counts, SampleContext, count_batch, fold_column
from pipeline.corpus.patterns import (
    DISH,
    LANGS,
    RU_NAME,
    UK_NAME,
    PatternSet,
    pattern_inputs,
    patterns_from_inputs,
)
from pipeline.corpus.readers import CorruptShard, iter_documents, mapped, shard_format
from warehouse.db import UndoesSession
from warehouse.io import insert, transaction


@dataclass(frozen=True)
class Progress:
    shard: str
    shards_done: int
    shards_total: int
    bytes_done: int
    bytes_total: int
    docs: int
    mb_per_s: float


@dataclass
class ScanSummary:
    corpus_id: str
    lang: str
    source: str
    shards_total: int = 0
    shards_scanned: int = 0
    shards_skipped: int = 0
    corrupt: list[tuple[str, str]] = field(default_factory=list)
    n_docs: int = 0
    n_bytes: int = 0
    seconds: float = 0.0

    @property
    def mb_per_s(self) -> float:
        return self.n_bytes / 1e6 / self.seconds if self.seconds else 0.0

    def add(self, shard: str, size: int, result: ShardResult) -> None:
        if result.status == "ok":
            self.shards_scanned += 1
            self.n_docs += result.n_docs
            self.n_bytes += size
        else:
            self.corrupt.append((shard, result.reason or ""))


class CorruptShardRefused(DataError, UndoesSession):
    """A shard that cannot be read, in a scan that does not skip such shards (the default): the command stops on one
    line naming it, and its whole writer session is undone, so the warehouse and its snapshot stay as they were (a
    hostile shard, a gzip bomb or a 1 GB line, changes nothing unless the user asks for it to be recorded)."""


SKIP_HINT = "fix or remove it, or pass --skip-corrupt-shards to record it as corrupt and scan the other shards"
_LINE_REASON = re.compile(r"^line (\d+): (.*)$", re.DOTALL)


def refuse_corrupt(shard: str, reason: str | None) -> CorruptShardRefused:
    """The error for an unreadable shard; a reason naming a line ("line 7: ...") becomes the error's line."""
    found = _LINE_REASON.match(reason or "")
    if found:
        return CorruptShardRefused(shard, f"{found.group(2)} — {SKIP_HINT}", int(found.group(1)))
    return CorruptShardRefused(shard, f"{reason or 'unreadable'} — {SKIP_HINT}")


def corpus_id_for(lang: str, source: str, text_field: str = "text") -> str:
    suffix = "" if text_field == "text" else f"#{text_field}"
    return f"{lang}:{source}{suffix}"


def resolve_shards(source: str, text_field: str = "text") -> list[str]:
    """Local files of a path, directory or glob (sorted); `hf://` sources are first copied to
    local Parquet shards by DuckDB, which reads Hugging Face paths natively."""
    if source.startswith("hf://"):
        return fetch_remote_shards(source, text_field)
    path = Path(source)
    if path.is_dir():
        found = sorted(str(p) for p in path.rglob("*") if p.is_file() and _known(p))
    elif path.is_file():
        found = [str(path)]
    else:
        found = sorted(p for p in glob.glob(source, recursive=True) if Path(p).is_file() and _known(Path(p)))
    if not found:
        raise CorpusError(f"{source}: no corpus files (.jsonl, .json, .parquet, .txt, optionally .gz)")
    return found


def fetch_remote_shards(source: str, text_field: str, cache: Path | None = None) -> list[str]:
    """Each remote file of an `hf://` path or glob, as a local Parquet shard of its text column
    (cached by URL, so a rerun reuses it and the shard checksums skip what was scanned)."""
    from pipeline.core.settings import default_data_dir

    cache = cache or default_data_dir() / "corpora" / "hf"
    cache.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        try:
            files = [row[0] for row in con.execute("SELECT file FROM glob(?) ORDER BY file", [source]).fetchall()]
        except duckdb.Error as exc:
            raise CorpusError(
                f"{source}: cannot list the remote files ({exc}). hf:// needs network access; offline, "
                "download the shards and pass a local path or glob"
            ) from exc
        if not files:
            raise CorpusError(f"{source}: no remote files match")
        local = []
        for remote in files:
            target = cache / (hashlib.sha256(remote.encode()).hexdigest()[:24] + ".parquet")
            if not target.exists():
                reader = "read_parquet" if ".parquet" in remote else "read_json_auto"
                partial = target.with_suffix(".part")
                try:
                    con.execute(
                        f"COPY (SELECT CAST({_quote(text_field)} AS VARCHAR) AS {_quote(text_field)} "
                        f"FROM {reader}(?)) TO '{partial}' (FORMAT parquet)",
                        [remote],
                    )
                except duckdb.Error as exc:
                    partial.unlink(missing_ok=True)
                    raise CorpusError(f"{remote}: cannot read ({exc})") from exc
                partial.replace(target)
            local.append(str(target))
        return local
    finally:
        con.close()


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _known(path: Path) -> bool:
    try:
        shard_format(path)
    except ValueError:
        return False
    return True


def checksum_file(path: str) -> str:
    """XXH3-128 of the file's bytes: tells a changed shard from an unchanged one at memory speed (hashed where the
    file is mapped: reading it into buffers first cost ten times the hash)."""
    with open(path, "rb") as handle, mapped(handle) as memory:
        if memory is not None:
            return xxhash.xxh3_128(memory).hexdigest()
        digest = xxhash.xxh3_128()
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
        return digest.hexdigest()


# --- The scan -------------------------------------------------------------------------------------------------------


@dataclass
class ScanPlan:
    """What a scan starts from, whichever executor runs it: the shards in order, the corpus row (written), the
    patterns, which shards are done (checksum -> status, under these patterns) and the review-sample budget."""

    corpus_id: str
    lang: str
    source: str
    text_field: str
    shards: list[str]
    patterns: PatternSet
    inputs: tuple  # what the patterns are built from (patterns.pattern_inputs): workers build their own from it
    done: dict[str, str]
    budget: dict[int, int]  # dish target -> samples the corpus already has

    def dish_target(self, dish_key: str) -> int:
        return self._dish_targets[dish_key]

    @functools.cached_property
    def _dish_targets(self) -> dict[str, int]:
        return {t.key: i for i, t in enumerate(self.patterns.targets) if t.kind == DISH}


def plan_scan(con: duckdb.DuckDBPyConnection, lang: str, source: str, text_field: str = "text") -> ScanPlan:
    """Resolve the shards, (re)write the corpus row and its totals, and read what earlier scans left."""
    if not source.startswith("hf://") and not any(ch in source for ch in "*?["):
        source = str(Path(source).resolve())
    shards = resolve_shards(source, text_field)
    if lang not in LANGS:
        raise ValueError(f"corpus language must be one of {', '.join(LANGS)}, not {lang!r}")
    corpus_id = corpus_id_for(lang, source, text_field)
    inputs = pattern_inputs(con, lang)
    patterns = patterns_from_inputs(lang, inputs)
    with transaction(con):  # a rescan that finds nothing new writes nothing: the publish after it has nothing to do
        known = con.execute("SELECT lang, source, text_field FROM core.corpora WHERE corpus_id = ?", [corpus_id])
        if known.fetchall() != [(lang, source, text_field)]:
            con.execute("DELETE FROM core.corpora WHERE corpus_id = ?", [corpus_id])
            insert(
                con,
                "core.corpora",
                [
                    {
                        "corpus_id": corpus_id,
                        "lang": lang,
                        "source": source,
                        "text_field": text_field,
                        "n_docs": 0,
                        "n_bytes": 0,
                    }
                ],
            )
        _recompute_totals(con, corpus_id, patterns)
    done = dict(
        con.execute(
            "SELECT checksum, status FROM core.corpus_shards WHERE corpus_id = ? AND patterns = ?",
            [corpus_id, patterns.fingerprint],
        ).fetchall()
    )
    plan = ScanPlan(corpus_id, lang, source, text_field, shards, patterns, inputs, done, {})
    for key, n in con.execute(
        "SELECT dish_key, count(*) FROM core.corpus_samples WHERE corpus_id = ? GROUP BY dish_key", [corpus_id]
    ).fetchall():
        if key in plan._dish_targets:
            plan.budget[plan.dish_target(key)] = n
    return plan


@dataclass
class ShardResult:
    """One shard scanned: its counts and samples (as the core.corpus_shard_* rows), or why it is corrupt."""

    n_docs: int
    status: str  # ok | corrupt
    reason: str | None
    dish_rows: list[dict]
    name_rows: list[dict]
    samples: list[dict]  # in the order found; each under the budget the scan started from


def scan_shard(
    plan: ScanPlan,
    folder: Folder,
    shard: str,
    checksum: str,
    kept: Mapping[int, int],
    on_batch: Callable[[int, int], None] | None = None,
) -> ShardResult:
    """Count one shard; `kept`: the samples per dish target the shards before it keep (read as it grows);
    `on_batch(docs, bytes read)` after each batch of documents."""
    patterns = plan.patterns
    counts = Counts(len(patterns.targets))
    context = SampleContext(shard, checksum, kept)
    n_docs = 0
    try:
        for column, read in iter_documents(Path(shard), plan.text_field):
            context.doc_base = n_docs
            count_batch(patterns, fold_column(folder, column), counts, context)
            n_docs += len(column)
            if on_batch is not None:
                on_batch(n_docs, read)
    except CorruptShard as exc:
        return ShardResult(n_docs, "corrupt", str(exc)[:500], [], [], [])
    return ShardResult(n_docs, "ok", None, *shard_rows(plan, checksum, counts))


def shard_rows(plan: ScanPlan, checksum: str, counts: Counts) -> tuple[list[dict], list[dict], list[dict]]:
    """The core.corpus_shard_dish_counts, core.corpus_shard_name_counts and core.corpus_samples rows of a shard."""
    patterns, corpus_id = plan.patterns, plan.corpus_id
    dish_rows = [
        {
            "corpus_id": corpus_id,
            "checksum": checksum,
            "dish_key": patterns.targets[t].key,
            "docs_with_dish": int(counts.docs[t]),
            "docs_with_true_country": int(counts.true_country[t]),
            "docs_with_any_country": int(counts.any_country[t]),
            "true_country_mentions": int(counts.true_mentions[t]),
            "any_country_mentions": int(counts.any_mentions[t]),
        }
        for t in np.flatnonzero((patterns.kinds == DISH) & (counts.docs > 0))
    ]
    names: dict[int, list[int]] = {}
    for t in np.flatnonzero(((patterns.kinds == UK_NAME) | (patterns.kinds == RU_NAME)) & (counts.docs > 0)):
        target = patterns.targets[t]
        names.setdefault(int(target.key), [0, 0])[0 if target.kind == UK_NAME else 1] = int(counts.docs[t])
    name_rows = [
        {"corpus_id": corpus_id, "checksum": checksum, "pair_id": pair, "docs_uk_name": uk, "docs_ru_name": ru}
        for pair, (uk, ru) in names.items()
    ]
    return dish_rows, name_rows, [{"corpus_id": corpus_id, **row} for row in counts.samples]


def within_budget(plan: ScanPlan, samples: list[dict], budget: dict[int, int]) -> list[dict]:
    """The samples a shard keeps given what the shards before it took (`budget`, updated): each dish's first ones,
    up to MAX_SAMPLES in all. A shard scanned under a smaller budget found these same first samples, so shards
    scanned in parallel keep exactly what one scan in shard order keeps."""
    kept = []
    for row in samples:
        dish = plan.dish_target(row["dish_key"])
        if budget.get(dish, 0) < MAX_SAMPLES:
            budget[dish] = budget.get(dish, 0) + 1
            kept.append(row)
    return kept


# Seconds of scanning whose finished shards are written in one transaction: what a killed scan scans again at most.
WRITE_EVERY_S = 2.0


@dataclass
class FinishedShard:
    """A shard scanned (or found corrupt) and not yet written: `samples` are those it keeps (`within_budget`)."""

    shard: str
    checksum: str
    size: int
    result: ShardResult
    samples: list[dict]


def scan_corpus(
    con: duckdb.DuckDBPyConnection,
    lang: str,
    source: str,
    text_field: str = "text",
    run_id: str = "",
    on_progress: Callable[[Progress], None] | None = None,
    workers: int | None = None,
    skip_corrupt_shards: bool = False,
) -> ScanSummary:
    """Scan every shard of `source` not yet scanned with the current patterns; see the module docstring.

    A shard that cannot be read stops the scan with `CorruptShardRefused` (the command then leaves the warehouse as
    it was); with `skip_corrupt_shards` it is recorded as corrupt in core.corpus_shards, counted in the summary and
    skipped, and the other shards are scanned.

    Shards are hashed and scanned by `workers` threads (default: one per core the process may use, at most one per
    shard): hashing, reading, folding and matching release the interpreter lock, so two cores scan nearly twice the
    bytes. Shards are written in shard order, each whole in one transaction (with the others finished within
    WRITE_EVERY_S), with the samples an in-order scan keeps (`within_budget`), so the rows are the same whatever the
    number of workers."""
    plan = plan_scan(con, lang, source, text_field)
    shards = plan.shards
    summary = ScanSummary(plan.corpus_id, lang, plan.source, shards_total=len(shards))
    sizes = [Path(p).stat().st_size for p in shards]
    began = time.perf_counter()
    progress = _Progress(on_progress, len(shards), sum(sizes), began)
    # Samples kept so far per dish, as the shards are written in order. The scans read it as it grows: a shard
    # scanned while the ones before it are written collects at least the samples it will keep (a few more, which
    # `within_budget` cuts in shard order to what one in-order scan keeps).
    kept = dict(plan.budget)
    threads = max(1, min(workers or len(os.sched_getaffinity(0)), len(shards)))
    folders = queue.SimpleQueue()  # one per thread: its buffers are reused batch after batch
    for _ in range(threads):
        folders.put(Folder(plan.patterns.literals.alphabet))

    def scan(index: int, shard: str) -> tuple[str, ShardResult | None]:
        """(checksum, result), or no result for a shard scanned before with these patterns."""
        checksum = checksum_file(shard)
        if plan.done.get(checksum) == "ok":
            return checksum, None
        folder = folders.get()
        try:
            return checksum, scan_shard(plan, folder, shard, checksum, kept, progress.reporter(index, shard))
        finally:
            folders.put(folder)

    # Two shards per thread in flight: a thread that finishes one starts the next at once, while the results waiting
    # to be written in shard order stay few.
    queued = iter(enumerate(shards))
    futures: collections.deque[concurrent.futures.Future] = collections.deque()

    def submit() -> None:
        for index, shard in itertools.islice(queued, 2 * threads - len(futures)):
            futures.append(pool.submit(scan, index, shard))

    # Finished shards not yet written, by checksum (a second file with the same bytes replaces the first's rows, as
    # its own transaction would).
    unwritten: dict[str, FinishedShard] = {}
    written_at = time.perf_counter()

    def write_finished() -> None:
        with transaction(con):
            write_shards(con, plan, list(unwritten.values()), run_id)
        unwritten.clear()

    with concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="shard") as pool:
        try:
            submit()
            for index, (shard, size) in enumerate(zip(shards, sizes, strict=True)):
                checksum, result = futures.popleft().result()
                submit()
                if result is None:
                    summary.shards_skipped += 1
                    progress.skipped(size)
                    continue
                if result.status != "ok" and not skip_corrupt_shards:
                    raise refuse_corrupt(shard, result.reason)
                samples = within_budget(plan, result.samples, kept)
                unwritten.pop(checksum, None)
                unwritten[checksum] = FinishedShard(shard, checksum, size, result, samples)
                if time.perf_counter() - written_at >= WRITE_EVERY_S:
                    write_finished()
                    written_at = time.perf_counter()
                progress.done(index, shard, size, result.n_docs)
                summary.add(shard, size, result)
            if unwritten:
                write_finished()
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    finish_scan(con, plan, summary)
    summary.seconds = time.perf_counter() - began
    return summary


def finish_scan(con: duckdb.DuckDBPyConnection, plan: ScanPlan, summary: ScanSummary) -> None:
    """The corpus totals from the shards written (once per scan, not per shard: each recomputation cost as much as
    writing a shard's rows; a scan killed before this leaves them to the rerun's `plan_scan`)."""
    if summary.shards_scanned or summary.corrupt:
        with transaction(con):
            _recompute_totals(con, plan.corpus_id, plan.patterns, keep_same=False)


class _Progress:
    """Progress of shards scanned at once by several threads: bytes and documents read so far over all of them."""

    def __init__(self, callback: Callable[[Progress], None] | None, shards: int, total: int, began: float) -> None:
        self.callback, self.shards, self.total, self.began = callback, shards, total, began
        self.lock = threading.Lock()
        self.finished, self.finished_bytes, self.finished_docs = 0, 0, 0
        self.reading: dict[int, tuple[int, int]] = {}  # shard being scanned -> (documents, bytes) read so far

    def reporter(self, index: int, shard: str) -> Callable[[int, int], None]:
        def report(docs: int, read: int) -> None:
            with self.lock:
                self.reading[index] = (docs, read)
                self._emit(shard)

        return report

    def done(self, index: int, shard: str, size: int, docs: int) -> None:
        with self.lock:
            self.reading.pop(index, None)
            self.finished += 1
            self.finished_bytes += size
            self.finished_docs += docs
            self._emit(shard)

    def skipped(self, size: int) -> None:
        with self.lock:
            self.finished += 1
            self.finished_bytes += size

    def _emit(self, shard: str) -> None:
        if self.callback is None:
            return
        read = self.finished_bytes + sum(b for _, b in self.reading.values())
        docs = self.finished_docs + sum(d for d, _ in self.reading.values())
        elapsed = time.perf_counter() - self.began
        mb_per_s = read / 1e6 / elapsed if elapsed else 0.0
        self.callback(Progress(shard, self.finished, self.shards, min(read, self.total), self.total, docs, mb_per_s))


def write_shard(
    con: duckdb.DuckDBPyConnection,
    plan: ScanPlan,
    shard: str,
    checksum: str,
    size: int,
    result: ShardResult,
    run_id: str,
    samples: list[dict],
    counts_from: tuple[str, str] | None = None,
) -> None:
    """Replace the shard's rows (inside the caller's transaction; the corpus totals follow in `finish_scan`). The
    counts come from `result`, or from the Parquet files `counts_from` (dish counts, name counts) a Ray worker wrote."""
    write_shards(con, plan, [FinishedShard(shard, checksum, size, result, samples)], run_id, counts_from)


def write_shards(
    con: duckdb.DuckDBPyConnection,
    plan: ScanPlan,
    finished: list[FinishedShard],
    run_id: str,
    counts_from: tuple[str, str] | None = None,
) -> None:
    """Replace the rows of shards with distinct checksums, one statement per table for them all (inside the caller's
    transaction); `counts_from`: the Parquet files of the one shard's counts (`write_shard`)."""
    corpus_id, patterns = plan.corpus_id, plan.patterns
    checksums = [done.checksum for done in finished]
    for table in (
        "core.corpus_shards",
        "core.corpus_shard_dish_counts",
        "core.corpus_shard_name_counts",
        "core.corpus_samples",
    ):
        con.execute(f"DELETE FROM {table} WHERE corpus_id = ? AND list_contains(?, checksum)", [corpus_id, checksums])
    insert(
        con,
        "core.corpus_shards",
        [
            {
                "corpus_id": corpus_id,
                "path": done.shard,
                "checksum": done.checksum,
                "status": done.result.status,
                "reason": done.result.reason,
                "n_docs": done.result.n_docs if done.result.status == "ok" else None,
                "n_bytes": done.size,
                "patterns": patterns.fingerprint,
                "run_id": run_id,
            }
            for done in finished
        ],
    )
    ok = [done for done in finished if done.result.status == "ok"]
    if counts_from is None:
        insert(con, "core.corpus_shard_dish_counts", [row for done in ok for row in done.result.dish_rows])
        insert(con, "core.corpus_shard_name_counts", [row for done in ok for row in done.result.name_rows])
    elif ok:
        tables = ("core.corpus_shard_dish_counts", "core.corpus_shard_name_counts")
        for table, path in zip(tables, counts_from, strict=True):
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM read_parquet(?)", [path])
    insert(con, "core.corpus_samples", [row for done in ok for row in done.samples])


def _recompute_totals(
    con: duckdb.DuckDBPyConnection, corpus_id: str, patterns: PatternSet, keep_same: bool = True
) -> None:
    """Totals = sums over the corpus's ok shards scanned with the current patterns; every dish and pair gets a row.
    With `keep_same`, rows already holding those totals are left as they are (a scan with nothing new writes
    nothing); without, they are replaced (fewer statements: each costs more than the rows do)."""
    dishes = [t.key for t in patterns.targets if t.kind == DISH]
    pairs = sorted({int(t.key) for t in patterns.targets if t.kind in (UK_NAME, RU_NAME)})
    params = {"corpus": corpus_id, "patterns": patterns.fingerprint}
    ok = "SELECT checksum FROM core.corpus_shards WHERE corpus_id = $corpus AND status = 'ok' AND patterns = $patterns"
    _replace_totals(
        con,
        "core.corpus_dish_counts",
        f"""
        SELECT $corpus, k.dish_key, coalesce(sum(c.docs_with_dish), 0), coalesce(sum(c.docs_with_true_country), 0),
               coalesce(sum(c.docs_with_any_country), 0), coalesce(sum(c.true_country_mentions), 0),
               coalesce(sum(c.any_country_mentions), 0)
        FROM unnest($dishes::TEXT[]) AS k(dish_key)
        LEFT JOIN core.corpus_shard_dish_counts c
               ON c.dish_key = k.dish_key AND c.corpus_id = $corpus AND c.checksum IN ({ok})
        GROUP BY k.dish_key
        """,
        {**params, "dishes": dishes},
        keep_same,
    )
    _replace_totals(
        con,
        "core.corpus_name_counts",
        f"""
        SELECT $corpus, k.pair_id, coalesce(sum(c.docs_uk_name), 0), coalesce(sum(c.docs_ru_name), 0)
        FROM unnest($pairs::INTEGER[]) AS k(pair_id)
        LEFT JOIN core.corpus_shard_name_counts c
               ON c.pair_id = k.pair_id AND c.corpus_id = $corpus AND c.checksum IN ({ok})
        GROUP BY k.pair_id
        """,
        {**params, "pairs": pairs},
        keep_same,
    )
    con.execute(
        f"""
        WITH totals AS (
            SELECT coalesce(sum(n_docs), 0) AS n_docs, coalesce(sum(n_bytes), 0) AS n_bytes
            FROM core.corpus_shards WHERE checksum IN ({ok}) AND corpus_id = $corpus)
        UPDATE core.corpora c SET n_docs = totals.n_docs, n_bytes = totals.n_bytes FROM totals
        WHERE c.corpus_id = $corpus AND (c.n_docs, c.n_bytes) IS DISTINCT FROM (totals.n_docs, totals.n_bytes)
        """,
        params,
    )


def _replace_totals(con: duckdb.DuckDBPyConnection, table: str, totals: str, params: dict, keep_same: bool) -> None:
    """Replace the corpus's rows of `table` with the rows of the query `totals`, unless `keep_same` and they are the
    same rows. The totals are computed once, into a temporary table (the query twice more cost most of a small
    scan's time)."""
    corpus = {"corpus": params["corpus"]}
    if not keep_same:
        con.execute(f"DELETE FROM {table} WHERE corpus_id = $corpus", corpus)
        con.execute(f"INSERT INTO {table} {totals}", params)
        return
    current = f"SELECT * FROM {table} WHERE corpus_id = $corpus"
    con.execute(f"CREATE OR REPLACE TEMP TABLE corpus_totals AS {totals}", params)
    try:
        differ = con.execute(
            f"SELECT count(*) FROM ((FROM corpus_totals EXCEPT ALL {current}) "
            f"UNION ALL ({current} EXCEPT ALL FROM corpus_totals))",
            corpus,
        ).fetchone()[0]
        if differ:
            con.execute(f"DELETE FROM {table} WHERE corpus_id = $corpus", corpus)
            con.execute(f"INSERT INTO {table} FROM corpus_totals")
    finally:
        con.execute("DROP TABLE IF EXISTS corpus_totals")
