"""Migrations (warehouse/migrate.py): numbered, applied once, the schema holding every table a step writes."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipeline.flow.steps import STEPS
from warehouse.db import Warehouse, migrate, migrations


def test_migrations_are_numbered_and_applied_once(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    with wh.writer() as con:
        versions = [v for (v,) in con.execute("SELECT version FROM meta.schema_migrations ORDER BY 1").fetchall()]
        schemas = {s for (s,) in con.execute("SELECT DISTINCT table_schema FROM information_schema.tables").fetchall()}
    assert versions == [v for v, _, _ in migrations()]
    assert {"raw", "core", "meta"} <= schemas


def test_schema_holds_every_table_a_step_writes_and_no_dead_ones(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer() as con:
        tables = {
            t
            for (t,) in con.execute(
                "SELECT table_schema || '.' || table_name FROM information_schema.tables"
            ).fetchall()
        }
    written = {table for name in STEPS.names() for table in STEPS.get(name).writes}
    assert written <= tables, written - tables  # every table a step writes exists after migrations
    assert "core.prompt_templates" not in tables and "meta.runs" not in tables  # never written: dropped


def test_up_to_ten_images_per_prompt(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer() as con:
        con.execute("INSERT INTO core.item_images VALUES ('i', 9, 'img')")
        with pytest.raises(duckdb.ConstraintException):
            con.execute("INSERT INTO core.item_images VALUES ('i', 10, 'img')")


def _at_version(version: int) -> duckdb.DuckDBPyConnection:
    """An in-memory warehouse migrated up to `version` (a user's warehouse of that schema)."""
    con = duckdb.connect()
    for number, name, path in migrations():
        if number <= version:
            con.execute(path.read_text(encoding="utf-8"))
            con.execute("INSERT INTO meta.schema_migrations (version, name) VALUES (?, ?)", [number, name])
    return con


def test_the_answers_and_imagine_steps_rows_move_to_their_own_tables_and_the_views_keep_every_row() -> None:
    """Migration 090: a warehouse where the answers step added translation items and the imagine step drawn images
    to core.items / core.images reads the same rows through the views, each in its writer's table."""
    con = _at_version(89)
    con.execute(
        "INSERT INTO core.items (item_id, task_id, source_ref) VALUES ('borsch.origin_qa:1', 'borsch.origin_qa', '1'), "
        "('borsch.translate_description:g1', 'borsch.translate_description', 'g1')"
    )
    con.execute("INSERT INTO core.images (image_id, kind) VALUES ('photo', 'real'), ('drawn', 'generated')")
    before = {
        table: con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall() for table in ("core.items", "core.images")
    }
    migrate(con)
    for table, rows in before.items():
        assert con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall() == rows
    assert con.execute("SELECT item_id FROM core.translation_items").fetchall() == [
        ("borsch.translate_description:g1",)
    ]
    assert con.execute("SELECT item_id FROM core.ingested_items").fetchall() == [("borsch.origin_qa:1",)]
    assert con.execute("SELECT image_id FROM core.imagine_images").fetchall() == [("drawn",)]
    assert con.execute("SELECT image_id FROM core.ingested_images").fetchall() == [("photo",)]


def test_answers_scored_before_get_the_paper_rule_s_scores_the_metrics_give() -> None:
    """Migration 091: BORSch's own rule's scores moved from the mart to the score stage, which does not score an
    answer again while its extraction is current; the migration writes them once, as pipeline/score/metrics.py
    computes them (an answer already holding them keeps its own)."""
    from pipeline.score.metrics import get_metric

    con = _at_version(90)
    cases = {  # generation: (countries the rule names, gold)
        "g-both": (["UA", "RU"], ["UA"]),
        "g-repeat": (["UA", "UA"], ["UA"]),
        "g-none": ([], ["PL"]),
        "g-no-gold": ([], []),
        "g-extra": (["GE"], ["UA", "RU"]),
    }
    for generation, (named, gold) in cases.items():
        item = f"borsch.origin_qa:{generation}"
        con.execute("INSERT INTO core.ingested_items (item_id, task_id, source_ref) VALUES (?, 'borsch.origin_qa', ?)",
                    [item, generation])  # fmt: skip
        con.execute("INSERT INTO core.item_gold_countries (item_id, country) SELECT ?, unnest(?)", [item, gold])
        con.execute(
            "INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, origin) "
            "VALUES (?, 'r', 'm', ?, 'uk', '1', 'import')",
            [generation, item],
        )
        con.execute(
            "INSERT INTO core.extractions (generation_id, extractor, status, countries, regions, dish_names, "
            "extracted_at, paper_countries) VALUES (?, 'countries@1', 'ok', [], [], [], now(), ?)",
            [generation, named],
        )
    con.execute("INSERT INTO core.scores VALUES ('g-extra', 'paper_jaccard', 0.5), ('g-extra', 'paper_dice', 0.5), "
                "('g-extra', 'paper_overlap', 0.5), ('g-extra', 'paper_exact', 0.5)")  # fmt: skip
    migrate(con)
    stored = {(g, m): v for g, m, v in con.execute("SELECT * FROM core.scores").fetchall()}
    for generation, (named, gold) in cases.items():
        for metric in ("paper_jaccard", "paper_dice", "paper_overlap", "paper_exact"):
            expected = 0.5 if generation == "g-extra" else get_metric(metric)(named, gold)
            assert stored[generation, metric] == expected, (generation, metric)
