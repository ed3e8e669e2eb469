"""The score stage on the real imported answers: every answer extracted and scored once, the
origin-scores export contract, and re-scoring without any model run."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import polars as pl

from tests.helpers import query, run_cli

CONTRACT = [
    "dataset",
    "model",
    "task",
    "lang",
    "item_id",
    "variant",
    "gold",
    "predicted",
    "jaccard",
    "dice",
    "overlap",
    "status",
]


def test_every_imported_answer_is_extracted_and_scored(real_warehouse: Path) -> None:
    assert query(real_warehouse, "SELECT count(*) FROM core.extractions") == [(180000,)]
    per_metric = dict(query(real_warehouse, "SELECT metric, count(*) FROM core.scores GROUP BY ALL"))
    # Open answers: ours and the paper's substring rule; multiple-choice answers: ours and the paper's.
    assert per_metric == {
        "jaccard": 180000,
        "dice": 180000,
        "overlap": 180000,
        "accuracy": 180000,
        "paper_substring": 180000,
        "choice_accuracy": 180000,
        "paper_choice_accuracy": 180000,
    }
    assert query(real_warehouse, "SELECT count(*) FROM core.choice_extractions") == [(180000,)]
    statuses = {s for (s,) in query(real_warehouse, "SELECT DISTINCT status FROM core.extractions")}
    assert statuses == {"ok", "no_country", "refusal", "empty"}


def test_scores_agree_with_the_extracted_countries(real_warehouse: Path) -> None:
    wrong = query(
        real_warehouse,
        """SELECT count(*) FROM marts.origin_scores
        WHERE (predicted = gold AND jaccard <> 1) OR (predicted = '' AND jaccard <> 0)""",
    )
    assert wrong == [(0,)]
    # An English answer naming the gold country exactly is a hit.
    assert query(
        real_warehouse,
        """SELECT min(jaccard), min(accuracy) FROM marts.origin_scores
        WHERE lang = 'en' AND response = 'South Africa' AND gold = 'ZA'""",
    ) == [(1.0, 1.0)]


def test_origin_scores_export_contract(real_warehouse: Path, tmp_path: Path) -> None:
    csv_text = run_cli(real_warehouse, "export", "origin-scores", "--format", "csv").stdout
    frame = pl.read_csv(io.StringIO(csv_text), infer_schema_length=0)
    assert frame.columns[:12] == CONTRACT
    assert frame.height == 180000
    row = frame.filter(
        (pl.col("model") == "gpt-4o-2024-08-06") & (pl.col("lang") == "en") & (pl.col("item_id") == "1900")
    )
    assert row.select("dataset", "task", "gold", "variant").row(0) == ("worldcuisines", "origin_vqa", "ZA", "23")
    out = tmp_path / "scores.parquet"
    run_cli(real_warehouse, "export", "origin-scores", "--format", "parquet", "--out", str(out))
    assert pl.read_parquet(out).columns[:12] == CONTRACT


def test_rescoring_rewrites_only_extractions_and_scores(real_warehouse: Path, tmp_path: Path) -> None:
    copy = tmp_path / "warehouse.duckdb"
    shutil.copy(real_warehouse.with_name("warehouse.work.duckdb"), copy.with_name("warehouse.work.duckdb"))
    fingerprint = """SELECT count(*), sum(hash(generation_id, response, created_at)) FROM core.generations"""
    before = query(copy.with_name("warehouse.work.duckdb"), fingerprint)
    nothing = run_cli(copy, "score")
    assert "already scored" in nothing.stderr
    again = run_cli(copy, "score", "--rescore")
    assert "scored 360,000 answers" in again.stderr  # 180,000 open-ended, 180,000 multiple-choice
    assert query(copy, fingerprint) == before
    assert query(copy, "SELECT count(*) FROM core.extractions") == [(180000,)]
    assert query(copy, "SELECT count(*) FROM core.choice_extractions") == [(180000,)]
