"""The marts are one explicit ordered list, each with its declaration beside it (warehouse/marts/NAME.toml): every
table it builds with all its columns and types, its data tests, its export and (Python marts) what it reads."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

import warehouse.marts as marts
from tests.helpers import REPO
from tools.docs_reference import BEGIN, END
from warehouse.db import Warehouse, WarehouseError
from warehouse.marts import (
    EXPORTS,
    FOLDER_EXPORTS,
    MARTS,
    MARTS_DIR,
    created_mart,
    export_contract,
    needs_rebuild,
    reads_of,
    statement_key,
)
from warehouse.marts.contract import DataTest, TableContract
from warehouse.registry import Registry

NOT_MARTS = {"__init__.py", "contract.py"}  # the list itself and the declarations' reader


def test_every_mart_file_is_listed_once_and_every_listed_file_exists_with_its_declaration() -> None:
    files = {p.name for p in MARTS_DIR.iterdir() if p.suffix in (".sql", ".py") and p.name not in NOT_MARTS}
    listed = [mart.file for mart in MARTS.values()]
    assert len(listed) == len(set(listed))
    assert set(listed) == files
    declarations = {p.name for p in MARTS_DIR.glob("*.toml")}
    assert declarations == {Path(file).with_suffix(".toml").name for file in listed}
    for mart in MARTS.values():  # a Python mart says what it reads; a SQL mart's reads come from DuckDB's parser
        assert (mart.declaration.depends_on is not None) == (mart.build is not None), mart.file


def _readme_contracts() -> dict[str, tuple[str, ...]]:
    """`export NAME` -> the columns docs/contracts.md promises by hand, in order (what scripts outside rely on); the
    table generated from the code on the same page is left out, or the code would promise itself."""
    text = (REPO / "docs" / "contracts.md").read_text(encoding="utf-8")
    text = text[: text.index(BEGIN)] + text[text.index(END) + len(END) :]
    rows = re.findall(r"^\| `export ([a-z0-9-]+)[^`]*` \| `([^`]+)`", text, flags=re.M)
    return {name: tuple(c.strip() for c in columns.split(",")) for name, columns in rows}


def test_every_export_is_declared_beside_its_mart_and_documented() -> None:
    documented = _readme_contracts()
    assert sorted(documented) == sorted([*EXPORTS, *FOLDER_EXPORTS])  # the papers' tables beside their code
    for name, export in EXPORTS.items():
        assert any(mart.exports.get(name) == export.table for mart in MARTS.values()), name


def test_each_export_s_contract_begins_with_the_columns_readme_promises() -> None:
    """The table's contract is the export's (publish refuses a mart that breaks it); the promised columns are its start,
    `method` aside: `export accuracy --method M` writes one method, without the column."""
    for name, promised in _readme_contracts().items():
        contract = tuple(c for c in export_contract(name) if not (name == "accuracy" and c == "method"))
        assert contract[: len(promised)] == promised, name


def _with_table(contract_of_table: Callable[[TableContract], TableContract]) -> Registry:
    """MARTS with marts.dishes's declaration changed by `contract_of_table`."""
    changed = Registry("mart", ordered=True)
    for name, mart in MARTS.items():
        declaration = mart.declaration
        if "marts.dishes" in declaration.tables:
            tables = {**declaration.tables, "marts.dishes": contract_of_table(declaration.tables["marts.dishes"])}
            mart = replace(mart, declared=replace(declaration, tables=tables))
        changed.add(name, mart)
    return changed


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """An empty warehouse published once, after a publish refused for a broken contract: nothing was published."""
    wh = Warehouse(tmp_path_factory.mktemp("marts") / "w.duckdb")
    with wh.writer():
        pass
    leading_only = _with_table(lambda table: replace(table, columns={"dish_key": "VARCHAR", "dataset": "VARCHAR"}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(marts, "MARTS", leading_only)
        with pytest.raises(WarehouseError, match=r"010_dishes.sql: column contract broken: marts.dishes: expected"):
            wh.publish()
    assert not wh.path.exists()
    assert wh.publish()
    return wh


def test_a_mart_that_breaks_its_contract_stops_the_publish(published: Warehouse) -> None:
    """(The refusal is in the fixture: it costs a full build.) The contract is every column, so a declaration naming
    only the leading ones is broken too; the snapshot published next is whole."""
    reader = published.reader()
    try:
        assert reader.execute("SELECT count(*) FROM marts.dishes").fetchall() == [(0,)]
    finally:
        reader.close()


def test_every_table_a_mart_builds_is_declared_by_that_mart_alone(published: Warehouse) -> None:
    reader = published.reader()
    try:
        built = {
            t
            for (t,) in reader.execute(
                "SELECT 'marts.' || table_name FROM duckdb_tables() WHERE schema_name = 'marts'"
            ).fetchall()
        }
    finally:
        reader.close()
    declared = [table for mart in MARTS.values() for table in mart.tables]
    assert len(declared) == len(set(declared))
    assert built - {"marts.fingerprint"} == set(declared)


def test_a_failing_data_test_stops_the_publish_in_one_line_and_the_snapshot_stays(
    published: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = published.path.read_bytes()
    no_dishes_allowed = _with_table(
        lambda table: replace(table, tests=(DataTest("marts.dishes", "accepted_values", ("lang",), ("xx",)),))
    )
    with published.writer() as con:  # one real dish, whose language the changed declaration refuses
        con.execute(
            "INSERT INTO core.dishes (dish_key, dataset, lang, dish_id, name, display_name) "
            "VALUES ('borsch:ru:1', 'borsch', 'ru', '1', 'БОРЩ', 'Борщ')"
        )
        con.execute("INSERT INTO core.datasets (dataset, title) VALUES ('borsch', 'BORSch')")
    monkeypatch.setattr(marts, "MARTS", no_dishes_allowed)
    with pytest.raises(WarehouseError) as failure:
        published.publish()
    assert str(failure.value) == (
        "marts/010_dishes.sql: data test failed: marts.dishes.lang accepted_values: 1 offending rows, e.g. ['ru'] — "
        "nothing was published"
    )
    assert published.path.read_bytes() == before


class _Recording:
    """A connection that notes every query a Python mart sends (what it reads, as DuckDB parses it)."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con, self.queries = con, []

    def execute(self, query: str, *args, **kwargs):
        self.queries.append(query)
        return self._con.execute(query, *args, **kwargs)

    def sql(self, query: str, *args, **kwargs):
        self.queries.append(query)
        return self._con.sql(query, *args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._con, name)


def test_a_python_mart_declares_every_table_it_reads(published: Warehouse, tmp_path: Path) -> None:
    """An incremental publish reruns a Python mart only when a table in its `depends_on` changed: one it reads but
    does not declare would leave its tables stale."""
    scratch = tmp_path / "scratch.duckdb"
    shutil.copyfile(published.path, scratch)
    con = duckdb.connect(str(scratch))
    try:
        for mart in MARTS.values():
            if mart.build is None:
                continue
            recording = _Recording(con)
            mart.build(recording)
            reads = set()
            for query in recording.queries:
                for statement in con.extract_statements(query):
                    reads |= reads_of(con, statement.query, created_mart(statement)) or set()
            assert reads - mart.writes <= mart.declaration.depends_on, mart.file
    finally:
        con.close()


def test_what_a_statement_reads_comes_from_duckdb_s_parse_tree() -> None:
    con = duckdb.connect()
    con.execute("CREATE SCHEMA core; CREATE SCHEMA marts")
    con.execute("CREATE TABLE core.items (item_id TEXT, task_id TEXT); CREATE TABLE core.tasks (task_id TEXT)")
    con.execute("CREATE TABLE core.scores (item_id TEXT)")
    [create] = con.extract_statements(
        "-- reads marts.not_this (a comment — with a non-ASCII dash before the name)\n"
        "CREATE OR REPLACE TABLE marts.items AS WITH t AS (SELECT * FROM core.tasks)\n"
        "SELECT i.*, 'core.nope' AS note FROM core.items i JOIN t USING (task_id)\n"
        "WHERE i.item_id IN (SELECT item_id FROM core.scores)"
    )
    assert created_mart(create) == "marts.items"
    assert reads_of(con, create.query, "marts.items") == {"core.tasks", "core.items", "core.scores"}
    [macro] = con.extract_statements("CREATE OR REPLACE TEMP MACRO n() AS (SELECT count(*) FROM core.tasks)")
    assert created_mart(macro) is None and reads_of(con, macro.query) == {"core.tasks"}
    assert needs_rebuild(con, "SELECT now() AS at", set(), None)  # the clock: rebuilt every time
    assert not needs_rebuild(con, "SELECT 'now()' AS at FROM core.items", {"core.tasks"}, None)
    con.close()


def test_what_a_statement_reads_is_found_once_and_then_read_from_what_earlier_builds_found() -> None:
    """A publish keeps what each statement reads (`known`, stored with the snapshot): a statement found there is not
    parsed again, so what is stored is what decides; one read from the clock is stored as always needed."""
    con = duckdb.connect()
    con.execute("CREATE SCHEMA core; CREATE TABLE core.items (item_id TEXT); CREATE TABLE core.tasks (task_id TEXT)")
    known: dict = {}
    query = "SELECT * FROM core.items"
    assert needs_rebuild(con, query, {"core.items"}, "marts.x", known)
    assert known == {statement_key(query, "marts.x"): ["core.items"]}
    assert not needs_rebuild(con, query, {"core.tasks"}, "marts.x", known)
    known[statement_key(query, "marts.x")] = ["core.tasks"]  # what an earlier build found is not parsed again
    assert needs_rebuild(con, query, {"core.tasks"}, "marts.x", known)
    assert needs_rebuild(con, "SELECT now() AS at", set(), "marts.y", known)
    assert known[statement_key("SELECT now() AS at", "marts.y")] is None
    assert statement_key(query, "marts.x") != statement_key(query, "marts.z")
    con.close()


def test_the_declaration_tool_prints_the_columns_block_a_declaration_holds(published: Warehouse) -> None:
    """tools/mart_declaration.py writes a new mart's `columns` block from what it builds: the same text as ours."""
    from tools.mart_declaration import columns_block
    from warehouse.marts.contract import built_columns

    reader = published.reader()
    try:
        found = built_columns(reader)
    finally:
        reader.close()
    for mart in (MARTS["010_dishes"], MARTS["leaderboard"]):
        text = mart.path.with_suffix(".toml").read_text(encoding="utf-8")
        for table in mart.tables:
            assert columns_block(found[table], table) in text, table
