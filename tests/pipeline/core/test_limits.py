"""Hostile files through the real CLI (bench/faults.py writes them): each stops with one `error:` line naming the
file (and line), within a memory limit, and leaves both databases as they were. A corpus shard too, by default (the
snapshot and the working database byte for byte); with `--skip-corrupt-shards` the scan keeps its old rule (a shard
that cannot be read is reported on one line, recorded as corrupt and skipped; the other shards are scanned), and there
the only change allowed is that record."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from bench.faults import HostileCase, hostile_cases, summary
from pipeline.core import limits
from tests import cli_process
from tests.helpers import REPO, cli_arguments, cli_environment, copy_warehouse, query

# Address space a command may map beyond the fork server's (its threads reserve malloc arenas): a bomb inflated,
# or a 1 GB line read whole, needs more.
MEMORY_LIMIT = 2 << 30


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, HostileCase]:
    return {case.name: case for case in hostile_cases(tmp_path_factory.mktemp("hostile"))}


@pytest.fixture(scope="module")
def start(ingested_template) -> tuple[Path, tuple]:
    """WorldCuisines ingested (what import-responses needs), read-only here: each case runs on a copy; and its
    state, which every copy starts from."""
    template = ingested_template("worldcuisines")
    return template, _state(template)


def _state(warehouse: Path) -> tuple[str, dict, dict]:
    """The published snapshot's bytes, and the rows of both databases (bench/faults.py's summary)."""
    digest = hashlib.sha256(warehouse.read_bytes()).hexdigest()
    return digest, summary(warehouse), summary(warehouse.with_suffix(".work.duckdb"))


def _run(start: tuple[Path, tuple], folder: Path, args: tuple[str, ...]) -> tuple[Path, tuple, object]:
    template, before = start
    warehouse = copy_warehouse(template, folder / "w.duckdb")
    result = cli_process.run(
        cli_arguments(warehouse, *args), cwd=REPO, env=cli_environment(), timeout=120, memory_limit=MEMORY_LIMIT
    )
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr
    return warehouse, before, result


REFUSED = [
    "zip-bomb xlsx",
    "zip-bomb xlsx, sizes hidden",
    "one over-long line (import)",
    "deeply nested JSON (import)",
    "a number of 100,000 digits (import)",
    "Parquet with too many columns (table)",
    "CSV with a NUL byte",
    "CSV with an unterminated quote",
    "CSV with one over-long field",
    "CSV that is not UTF-8",
]


@pytest.mark.parametrize("name", REFUSED)
def test_a_hostile_file_is_one_error_line_and_changes_nothing(
    name: str, cases: dict[str, HostileCase], start: tuple[Path, tuple], tmp_path: Path
) -> None:
    case = cases[name]
    warehouse, before, result = _run(start, tmp_path, case.args)
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    where = f"{case.path}:{case.line}: " if case.line else f"{case.path}: "
    assert len(errors) == 1 and errors[0].startswith(f"error: {where}"), result.stderr
    assert _state(warehouse) == before


def _bytes(warehouse: Path) -> tuple[str, str]:
    """The sha-256 of the snapshot and of the working database (and no WAL beside either)."""
    assert not list(warehouse.parent.glob("*.wal"))
    return tuple(hashlib.sha256(p.read_bytes()).hexdigest() for p in (warehouse, warehouse.with_suffix(".work.duckdb")))


def test_hostile_corpus_shards_are_refused_or_with_the_flag_each_one_line_and_only_recorded_as_corrupt(
    cases: dict[str, HostileCase], start: tuple[Path, tuple], tmp_path: Path
) -> None:
    shards = {
        name: case
        for name, case in cases.items()
        if case.args[:2] == ("corpus", "scan") and name != "Parquet with too many columns (corpus)"
    }
    shards["wide"] = cases["Parquet with too many columns (corpus)"]
    assert len(shards) == 4 and {case.path.parent for case in shards.values()} == {
        next(iter(shards.values())).path.parent
    }
    folder = next(iter(shards.values())).path.parent
    # The scanner's compiled patterns are built once per set of names and cached (pipeline/core/derived.py); built on
    # a cold cache inside the limit they take more than a hostile shard may, so an ordinary scan builds them first.
    ordinary = tmp_path / "ordinary"
    ordinary.mkdir()
    (ordinary / "ok.jsonl").write_text('{"text": "Борщ"}\n', encoding="utf-8")
    warm = copy_warehouse(start[0], tmp_path / "warm" / "w.duckdb")
    scan = ("corpus", "scan", "--lang", "ru", "--source", str(ordinary))
    assert cli_process.run(cli_arguments(warm, *scan), cwd=REPO, env=cli_environment(), timeout=600).returncode == 0

    # the default: the first hostile shard in shard order (the gzip bomb) stops the scan on one line; nothing changed
    strict = copy_warehouse(start[0], tmp_path / "strict" / "w.duckdb")
    before = _bytes(strict)
    refused = cli_process.run(
        cli_arguments(strict, "corpus", "scan", "--lang", "ru", "--source", str(folder)),
        cwd=REPO,
        env=cli_environment(),
        timeout=120,
        memory_limit=MEMORY_LIMIT,
    )
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    bomb = cases["gzip bomb shard"].path
    assert len(errors) == 1 and errors[0].startswith(f"error: {bomb}: "), refused.stderr
    assert "decompression bomb" in errors[0] and "--skip-corrupt-shards" in errors[0]
    assert "corrupt shard skipped" not in refused.stderr and _bytes(strict) == before

    warehouse, (_, snapshot_before, _), result = _run(
        start, tmp_path, ("corpus", "scan", "--lang", "ru", "--source", str(folder), "--skip-corrupt-shards")
    )
    assert result.returncode == 0, result.stderr
    assert f"{len(shards)} corrupt shards skipped and recorded" in result.stderr
    reported = re.findall(r"^corrupt shard skipped: (\S+): (.*)$", result.stderr, flags=re.MULTILINE)
    by_path = dict(reported)
    assert len(reported) == len(shards)
    for case in shards.values():
        reason = by_path[str(case.path)]
        assert reason.startswith(f"line {case.line}: ") if case.line else not reason.startswith("line"), reason
    assert "decompression bomb" in by_path[str(cases["gzip bomb shard"].path)]
    assert limits.LINE_TOO_LONG in by_path[str(cases["one over-long line (corpus)"].path)]
    assert "nested too deeply" in by_path[str(cases["deeply nested JSON (corpus)"].path)]
    assert f"the cap is {limits.MAX_COLUMNS:,}" in by_path[str(shards["wide"].path)]
    # nothing was counted: what changed is the corpus's record of itself (its shards, all corrupt; its totals, all
    # zero) and the marts built from it
    after = summary(warehouse)
    changed = {table for table in set(after) | set(snapshot_before) if after.get(table) != snapshot_before.get(table)}
    assert {t for t in changed if t.startswith("core.")} <= {
        "core.corpora",
        "core.corpus_shards",
        "core.corpus_dish_counts",
    }
    statuses = query(warehouse, "SELECT status, count(*) FROM core.corpus_shards GROUP BY status")
    assert statuses == [("corrupt", len(shards))]
    counted = query(
        warehouse,
        "SELECT sum(docs_with_dish + docs_with_true_country + docs_with_any_country) FROM core.corpus_dish_counts",
    )
    assert counted == [(0,)] and query(warehouse, "SELECT sum(n_docs) FROM core.corpora") == [(0,)]
