"""`corpus scan --executor ray` writes exactly the local executor's rows, skips done shards on a rerun and merges
what a killed job's workers left in the work folder."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.corpus.scan import checksum_file, plan_scan, scan_corpus
from pipeline.executors import RayOptions
from pipeline.executors.ray_corpus import ShardScanner, scan_corpus_on_ray
from tests.conftest import copy_warehouse
from tests.helpers import run_cli

# Each shard names borsch and varenyky with a country that is not their origin: more review samples than the
# three a dish keeps, so the budget across shards decides which ones stay.
DOCS = [
    "Борщу налили в тарілку. Це страва з України.",
    "Ми їли борщем і варениками у Польщі.",
    "Борщ готують у Польщі. Вареники люблять у Канаді.",
    "Кныш чи книш? Книші смачні.",
]
TABLES = {
    "core.corpora": "*",
    "core.corpus_shards": "corpus_id, path, checksum, status, reason, n_docs, n_bytes, patterns",
    "core.corpus_shard_dish_counts": "*",
    "core.corpus_shard_name_counts": "*",
    "core.corpus_samples": "*",
    "core.corpus_dish_counts": "*",
    "core.corpus_name_counts": "*",
}


def corpus_rows(con: duckdb.DuckDBPyConnection) -> dict[str, list]:
    return {
        table: sorted(map(repr, con.execute(f"SELECT {cols} FROM {table}").fetchall()))
        for table, cols in TABLES.items()
    }


def write_shards(folder: Path, names: range) -> Path:
    folder.mkdir(exist_ok=True)
    for k in names:
        lines = (json.dumps({"text": f"{doc} ({k})"}, ensure_ascii=False) for doc in DOCS)
        (folder / f"part-{k}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def two_copies(borsch_warehouse: Path, tmp_path: Path):
    """The working databases of two copies of a BORSch warehouse: one scanned locally, one on Ray."""
    other = copy_warehouse(borsch_warehouse, tmp_path / "ray" / "warehouse.duckdb")
    cons = [duckdb.connect(str(w.with_name("warehouse.work.duckdb"))) for w in (borsch_warehouse, other)]
    yield cons
    for con in cons:
        con.close()


def test_shards_scanned_on_ray_give_the_local_rows_and_a_rerun_skips_done_shards(
    local_ray: str, two_copies, tmp_path: Path
) -> None:
    local, on_ray = two_copies
    corpus = write_shards(tmp_path / "corpus", range(4))
    pq.write_table(pa.table({"text": DOCS}), corpus / "part-5.parquet")
    (corpus / "part-6.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00 not gzip")  # corrupt: reported, retried next time
    work = tmp_path / "ray-work"
    options = RayOptions(workers=2)

    scanned = scan_corpus(local, "uk", str(corpus), run_id="r")
    summary = scan_corpus_on_ray(on_ray, "uk", str(corpus), "text", run_id="r", options=options, work_dir=work)
    assert (summary.shards_scanned, summary.n_docs, [Path(p).name for p, _ in summary.corrupt]) == (
        5,
        20,
        ["part-6.jsonl.gz"],
    )
    assert corpus_rows(on_ray) == corpus_rows(local)
    assert query_samples(on_ray) == 6 and list(work.iterdir()) == []  # 3 per dish; each shard's files removed

    write_shards(corpus, range(7, 8))
    scan_corpus(local, "uk", str(corpus), run_id="r")
    again = scan_corpus_on_ray(on_ray, "uk", str(corpus), "text", run_id="r", options=options, work_dir=work)
    assert (again.shards_scanned, again.shards_skipped, len(again.corrupt)) == (1, 5, 1)
    assert corpus_rows(on_ray) == corpus_rows(local) and scanned.corpus_id == again.corpus_id


def query_samples(con: duckdb.DuckDBPyConnection) -> int:
    return con.execute("SELECT count(*) FROM core.corpus_samples").fetchone()[0]


def test_a_shard_a_killed_job_scanned_but_never_merged_is_merged_from_its_files(
    local_ray: str, two_copies, tmp_path: Path
) -> None:
    import ray

    local, on_ray = two_copies
    corpus = write_shards(tmp_path / "corpus", range(2))
    work = tmp_path / "ray-work"
    work.mkdir()
    plan = plan_scan(on_ray, "uk", str(corpus))
    shipped = {"corpus_id": plan.corpus_id, "lang": "uk", "source": plan.source, "text_field": "text",
               "inputs": {"ref": ray.put(plan.inputs)}, "budget": plan.budget}  # fmt: skip
    left = ShardScanner(shipped, plan.done, str(work)).scan(plan.shards[1], checksum_file(plan.shards[1]))
    assert Path(left["marker"]).is_file()  # what the worker wrote before the job died

    scan_corpus(local, "uk", str(corpus), run_id="r")
    summary = scan_corpus_on_ray(on_ray, "uk", str(corpus), "text", run_id="r", options=RayOptions(), work_dir=work)
    assert summary.shards_scanned == 2 and list(work.iterdir()) == []
    assert corpus_rows(on_ray) == corpus_rows(local)


def test_the_command_joins_a_running_cluster(local_ray: str, borsch_warehouse: Path, tmp_path: Path) -> None:
    corpus = write_shards(tmp_path / "corpus", range(3))
    on_ray = copy_warehouse(borsch_warehouse, tmp_path / "ray" / "warehouse.duckdb")
    args = ("corpus", "scan", "--lang", "uk", "--source", str(corpus))
    run_cli(borsch_warehouse, *args)
    result = run_cli(on_ray, *args, "--executor", "ray", "--ray-address", local_ray, "--ray-work", str(tmp_path / "w"))
    assert "3 shards scanned, 0 skipped (unchanged), 12 documents" in " ".join(result.stderr.split())
    rows = [corpus_rows(duckdb.connect(str(w), read_only=True)) for w in (borsch_warehouse, on_ray)]
    assert rows[0] == rows[1] and rows[0]["core.corpus_samples"] and list((tmp_path / "w").iterdir()) == []
