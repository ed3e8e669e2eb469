"""The corpus stage's driver: one `corpus scan` (or UA-GEC's) from the shards to the counted mentions, with progress
and the summary lines; where the shards are read is passed in, never chosen here.

The executor (pipeline/executors/) is resolved once by the flow (pipeline/flow/steps.py) and hands this driver
`elsewhere`, a scan with `scan_corpus`'s signature that reads the shards on its workers (None: this process does).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from pipeline.core.output import console, literal, progress_bar, say
from pipeline.core.settings import default_data_dir
from pipeline.corpus.scan import Progress, ScanSummary, scan_corpus
from pipeline.corpus.uagec import export_uagec
from warehouse.io import new_run_id

# A scan run elsewhere: `scan_corpus`'s arguments, keywords included, and its summary.
ScanElsewhere = Callable[..., ScanSummary]


def scan(
    con: duckdb.DuckDBPyConnection,
    lang: str,
    source: str,
    text_field: str,
    *,
    elsewhere: ScanElsewhere | None = None,
    skip_corrupt_shards: bool = False,
) -> ScanSummary:
    """Scan the shards `source` names as a `lang` corpus, with a progress bar, then say what was scanned, skipped
    as unchanged and skipped as corrupt."""
    scanner = elsewhere or scan_corpus
    with progress_bar() as progress:
        bar = progress.add_task(f"scanning {literal(lang)} corpus", total=None)

        def advance(p: Progress) -> None:
            progress.update(
                bar,
                total=p.bytes_total,
                completed=p.bytes_done,
                description=f"scanning {literal(lang)} corpus ({p.mb_per_s:,.0f} MB/s)",
            )

        summary = scanner(
            con,
            lang,
            source,
            text_field,
            run_id=new_run_id(),
            on_progress=advance,
            skip_corrupt_shards=skip_corrupt_shards,
        )
    console.print(
        f"{summary.shards_scanned} shards scanned, {summary.shards_total - summary.shards_scanned} skipped "
        f"(unchanged), {summary.n_docs:,} documents, {summary.mb_per_s:,.1f} MB/s"
    )
    for path, reason in summary.corrupt:
        say("[yellow]corrupt shard skipped:[/] {}: {}", path, reason)
    if summary.corrupt:
        say("{} corrupt shards skipped and recorded (--skip-corrupt-shards)", len(summary.corrupt))
    return summary


def scan_uagec(
    con: duckdb.DuckDBPyConnection,
    dest: Path | None,
    *,
    elsewhere: ScanElsewhere | None = None,
    skip_corrupt_shards: bool = False,
) -> ScanSummary:
    """`corpus uagec`: UA-GEC written as one JSONL shard (under `dest`, default the user cache) and scanned as uk."""
    shard = export_uagec((dest or default_data_dir() / "corpora").expanduser())
    return scan(con, "uk", str(shard), "text", elsewhere=elsewhere, skip_corrupt_shards=skip_corrupt_shards)
