"""`corpus scan` and the co-occurrence / code-mixing export contracts, as a user runs them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl

from tests.helpers import query, run_cli

COOCCURRENCE = [
    "lang",
    "dataset",
    "dish_id",
    "name",
    "docs_with_dish",
    "docs_with_true_country",
    "docs_with_any_country",
]
CODEMIX = ["dish_id", "uk_name", "ru_name", "docs_uk_name", "docs_ru_name"]


def test_scan_then_export_the_contracts(borsch_warehouse: Path, tmp_path: Path) -> None:
    warehouse = borsch_warehouse
    shard = tmp_path / "uk.jsonl"
    docs = ["Плов — страва з Узбекистану.", "Смачний плов у Києві, Україна.", "Борщ і вареники."]
    shard.write_text("\n".join(json.dumps({"text": d}, ensure_ascii=False) for d in docs) + "\n", encoding="utf-8")
    first = run_cli(warehouse, "corpus", "scan", "--lang", "uk", "--source", str(shard))
    assert "1 shards scanned" in first.stderr
    again = run_cli(warehouse, "corpus", "scan", "--lang", "uk", "--source", str(shard))
    assert "0 shards scanned, 1 skipped" in again.stderr

    frame = pl.read_csv(io.StringIO(run_cli(warehouse, "export", "cooccurrence").stdout), infer_schema_length=0)
    assert frame.columns[:7] == COOCCURRENCE
    plov = frame.filter((pl.col("dataset") == "borsch") & (pl.col("dish_id") == "61")).row(0, named=True)
    # ПЛОВ (UZ, TJ): in two documents, with its true origin in one, with some country in both.
    assert (plov["docs_with_dish"], plov["docs_with_true_country"], plov["docs_with_any_country"]) == ("2", "1", "2")

    codemix = pl.read_csv(io.StringIO(run_cli(warehouse, "export", "codemix").stdout), infer_schema_length=0)
    assert codemix.columns[:5] == CODEMIX
    assert query(warehouse, "SELECT count(*) FROM marts.codemix") == [(433,)]


def test_a_source_that_matches_nothing_is_a_clear_error(borsch_warehouse: Path, tmp_path: Path) -> None:
    warehouse = borsch_warehouse
    result = run_cli(
        warehouse, "corpus", "scan", "--lang", "uk", "--source", str(tmp_path / "none-*.jsonl"), check=False
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_hf_sources_need_the_network_and_say_so(borsch_warehouse: Path) -> None:
    warehouse = borsch_warehouse
    result = run_cli(
        warehouse, "corpus", "scan", "--lang", "uk", "--source", "hf://datasets/x/y/*.parquet", check=False
    )
    message = " ".join(result.stderr.split())
    assert result.returncode == 2 and "hf:// needs network access" in message


def test_remote_shards_are_copied_by_duckdb_before_scanning(tmp_path: Path) -> None:
    """The hf:// path goes through DuckDB's readers; a local glob exercises the same code offline."""
    from pipeline.corpus.scan import fetch_remote_shards

    for index in range(2):
        (tmp_path / f"part-{index}.jsonl").write_text(
            json.dumps({"body": f"Борщ {index}", "id": index}) + "\n", encoding="utf-8"
        )
    shards = fetch_remote_shards(str(tmp_path / "part-*.jsonl"), "body", cache=tmp_path / "cache")
    assert len(shards) == 2
    texts = sorted(pl.read_parquet(shard)["body"][0] for shard in shards)
    assert texts == ["Борщ 0", "Борщ 1"]
    assert fetch_remote_shards(str(tmp_path / "part-*.jsonl"), "body", cache=tmp_path / "cache") == shards
