"""Atomic publishing (warehouse/publish.py): a read-only snapshot with marts, swapped under its readers, nothing
redone when nothing changed, and only the marts a change reaches rebuilt when few tables changed."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from warehouse import publish as publish_module
from warehouse.db import NotPublished, Warehouse


def test_publish_makes_a_read_only_snapshot_with_marts(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with pytest.raises(NotPublished, match="make demo"):
        wh.reader()
    with wh.writer():
        pass
    wh.publish()
    reader = wh.reader()
    try:
        assert reader.execute("SELECT count(*) FROM marts.dishes").fetchall() == [(0,)]
        with pytest.raises(duckdb.Error):
            reader.execute("CREATE TABLE core.x (a INT)")
    finally:
        reader.close()
    assert not list(tmp_path.glob("*.tmp-*"))


def test_a_reader_keeps_its_snapshot_while_a_new_one_is_published(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    wh.publish()
    reader = wh.reader()
    with wh.writer() as con:
        con.execute("INSERT INTO core.datasets (dataset, title) VALUES ('x', 'X')")
    wh.publish()
    try:
        assert reader.execute("SELECT count(*) FROM core.datasets").fetchall() == [(0,)]
    finally:
        reader.close()
    fresh = wh.reader()
    assert fresh.execute("SELECT count(*) FROM core.datasets").fetchall() == [(1,)]
    fresh.close()


def test_publishing_unchanged_content_is_a_no_op(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    assert wh.publish() is True
    stamp = wh.path.stat().st_mtime_ns
    assert wh.publish() is False
    assert wh.path.stat().st_mtime_ns == stamp
    assert wh.publish(force=True) is True
    with wh.writer() as con:
        con.execute("INSERT INTO core.datasets (dataset, title) VALUES ('x', 'X')")
    assert wh.publish() is True


def _tables_differing(a: Path, b: Path) -> list[str]:
    """Tables whose rows (as multisets) or columns differ between two snapshots, publish times aside."""
    con = duckdb.connect()
    con.execute("ATTACH ? AS a (READ_ONLY)", [str(a)])
    con.execute("ATTACH ? AS b (READ_ONLY)", [str(b)])
    listed = "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY ALL"
    tables = con.execute(listed, ["a"]).fetchall()
    assert tables == con.execute(listed, ["b"]).fetchall()
    differ = []
    for schema, table in tables:
        if (schema, table) in (("marts", "fingerprint"), ("marts", "published")):
            continue
        x, y = f'a."{schema}"."{table}"', f'b."{schema}"."{table}"'
        rows = f"SELECT count(*) FROM ((FROM {x} EXCEPT ALL FROM {y}) UNION ALL (FROM {y} EXCEPT ALL FROM {x}))"
        columns = [
            con.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = ? AND schema_name = ? "
                "AND table_name = ? ORDER BY column_index",
                [db, schema, table],
            ).fetchall()
            for db in ("a", "b")
        ]
        if con.execute(rows).fetchone()[0] or columns[0] != columns[1]:
            differ.append(f"{schema}.{table}")
    con.close()
    return differ


def _built_in_full(wh: Warehouse, folder: Path) -> Path:
    """The snapshot a first publish of a copy of `wh`'s working database gives (every mart built)."""
    full = Warehouse(folder / "warehouse.duckdb")
    folder.mkdir()
    full.working_path.write_bytes(wh.working_path.read_bytes())
    assert full.publish() is True
    return full.path


def test_a_publish_rebuilds_only_the_marts_its_changes_reach(borsch_warehouse: Path, tmp_path: Path) -> None:
    """A corpus scan changes the corpus tables only: the snapshot is copied and the corpus marts rebuilt, and the
    result is what a full rebuild gives."""
    from pipeline.core.run_settings import Options
    from pipeline.flow.steps import run_pipeline

    wh = Warehouse(borsch_warehouse)
    wh.publish(force=True)
    with duckdb.connect(str(wh.path)) as con:  # a marker a full rebuild would drop (marts.dishes reads no corpus)
        con.execute("INSERT INTO marts.dishes SELECT * REPLACE ('marker' AS dataset) FROM marts.dishes LIMIT 1")
    shard = tmp_path / "shard.jsonl"
    shard.write_text('{"text": "Борщ з України, вареники."}\n', encoding="utf-8")
    assert run_pipeline("corpus", wh, Options(corpus_lang="uk", corpus_source=str(shard))) is True
    with duckdb.connect(str(wh.path)) as con:
        assert con.execute("SELECT count(*) FROM marts.dishes WHERE dataset = 'marker'").fetchone() == (1,)
        assert con.execute("SELECT sum(docs_with_dish) FROM marts.cooccurrence").fetchone()[0] >= 1
        con.execute("DELETE FROM marts.dishes WHERE dataset = 'marker'")
        # what each mart statement reads, found by this build on the snapshot, is kept for the next one
        reads = json.loads(con.execute("SELECT sources FROM marts.fingerprint").fetchone()[0])["reads"]
    assert any(tables and "core.corpus_dish_counts" in tables for tables in reads.values())
    assert _tables_differing(wh.path, _built_in_full(wh, tmp_path / "full")) == []


def test_a_publish_after_most_rows_changed_rebuilds_everything(
    borsch_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building on the snapshot deletes and re-inserts the changed tables' rows: when they are a large share of the
    warehouse (here the raw BORSch rows, 15% of all) and more than a few rows (the floor lowered here: this small
    warehouse has fewer in all), copying the working database and building every mart is cheaper (56 s against
    13 s on the demo build after new answers and scores), so the publish does that."""
    monkeypatch.setattr(publish_module, "_FEW_ROWS", 0)
    wh = Warehouse(borsch_warehouse)
    wh.publish(force=True)
    with duckdb.connect(str(wh.path)) as con:  # the marker a build on the snapshot would keep
        con.execute("INSERT INTO marts.dishes SELECT * REPLACE ('marker' AS dataset) FROM marts.dishes LIMIT 1")
    with duckdb.connect(str(wh.working_path)) as con:
        con.execute("UPDATE raw.borsch_dishes SET source = coalesce(source, '') || ' (re-read)'")
    assert wh.publish() is True
    with duckdb.connect(str(wh.path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM marts.dishes WHERE dataset = 'marker'").fetchone() == (0,)
    assert _tables_differing(wh.path, _built_in_full(wh, tmp_path / "full")) == []


def test_a_publish_after_few_rows_changed_builds_on_the_snapshot_whatever_their_share(
    borsch_warehouse: Path, tmp_path: Path
) -> None:
    """The same change of the raw BORSch rows (15% of this small warehouse's rows, but a few thousand): replacing
    them costs less than building every mart, so the snapshot is built on (its marker stays) and the result is still
    what a full rebuild gives."""
    wh = Warehouse(borsch_warehouse)
    wh.publish(force=True)
    with duckdb.connect(str(wh.path)) as con:
        con.execute("INSERT INTO marts.dishes SELECT * REPLACE ('marker' AS dataset) FROM marts.dishes LIMIT 1")
    with duckdb.connect(str(wh.working_path)) as con:
        con.execute("UPDATE raw.borsch_dishes SET source = coalesce(source, '') || ' (re-read)'")
        assert con.execute("SELECT count(*) FROM raw.borsch_dishes").fetchone()[0] < publish_module._FEW_ROWS
    assert wh.publish() is True
    with duckdb.connect(str(wh.path)) as con:
        assert con.execute("SELECT count(*) FROM marts.dishes WHERE dataset = 'marker'").fetchone() == (1,)
        con.execute("DELETE FROM marts.dishes WHERE dataset = 'marker'")
    assert _tables_differing(wh.path, _built_in_full(wh, tmp_path / "full")) == []


def test_a_full_build_keeps_what_each_statement_reads_so_the_next_publish_parses_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a mart statement reads is a function of the statement alone: a full build finds it for every statement
    and keeps it with the snapshot, so the first build on that snapshot (a copy of the warehouse too, as the tests'
    shared ones are) parses no statement again."""
    from warehouse import marts as marts_module

    wh = Warehouse(tmp_path / "w.duckdb")
    with wh.writer():
        pass
    wh.publish(force=True)
    with duckdb.connect(":memory:") as con:
        statements = {
            marts_module.statement_key(statement.query, marts_module.created_mart(statement))
            for mart in marts_module.MARTS.values()
            if mart.module is None
            for statement in con.extract_statements(mart.source)
        }
    with duckdb.connect(str(wh.path), read_only=True) as con:
        reads = json.loads(con.execute("SELECT sources FROM marts.fingerprint").fetchone()[0])["reads"]
        views = con.execute(  # core.items and core.images unite two steps' tables (migration 090)
            "SELECT schema_name || '.' || view_name, sql FROM duckdb_views() WHERE NOT internal "
            "AND schema_name IN ('raw', 'core')"
        ).fetchall()
    assert len(views) >= 2
    assert set(reads) == statements | {marts_module.statement_key(sql, view) for view, sql in views}

    parsed = []
    found = marts_module.statement_reads
    monkeypatch.setattr(marts_module, "statement_reads", lambda *args: parsed.append(args) or found(*args))
    with wh.writer() as con:
        con.execute("INSERT INTO core.datasets (dataset, title) VALUES ('x', 'X')")
    assert wh.publish() is True
    assert parsed == []
    with duckdb.connect(str(wh.path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM marts.dishes").fetchone() == (0,)
