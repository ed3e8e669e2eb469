"""warehouse/io.py's delete by rebuilding: the rows a DELETE would leave, with the table's own constraints kept."""

from __future__ import annotations

import duckdb
import pytest

from warehouse.io import delete_rebuilding, transaction

DDL = """CREATE SCHEMA core;
CREATE TABLE core.t (id TEXT PRIMARY KEY, n INTEGER NOT NULL DEFAULT 7 CHECK (n > 0), tags TEXT[]);"""
# NULL for the rows whose tags are NULL or empty: those stay, as DELETE leaves them
CONDITION = "tags[1] <> 'y'"
ROWS = "INSERT INTO core.t VALUES ('c', 3, ['x']), ('a', 1, NULL), ('b', 2, []), ('e', 4, ['y'])"


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(DDL)
    con.execute(ROWS)
    return con


def test_the_rows_a_delete_leaves_in_their_order_and_the_constraints_stay(con: duckdb.DuckDBPyConnection) -> None:
    expected = duckdb.connect()
    expected.execute(DDL)
    expected.execute(ROWS)
    expected.execute(f"DELETE FROM core.t WHERE {CONDITION}")
    with transaction(con):
        delete_rebuilding(con, "core.t", CONDITION)
    assert con.execute("SELECT * FROM core.t").fetchall() == expected.execute("SELECT * FROM core.t").fetchall()
    assert con.execute("SELECT * FROM core.t").fetchall() == [("a", 1, None), ("b", 2, []), ("e", 4, ["y"])]
    con.execute("INSERT INTO core.t (id) VALUES ('c')")  # the key is free again, the default still there
    assert con.execute("SELECT n FROM core.t WHERE id = 'c'").fetchall() == [(7,)]
    with pytest.raises(duckdb.ConstraintException):
        con.execute("INSERT INTO core.t VALUES ('a', 1, NULL)")  # the primary key
    with pytest.raises(duckdb.ConstraintException):
        con.execute("INSERT INTO core.t VALUES ('d', 0, NULL)")  # the check


def test_a_table_with_an_index_of_its_own_is_deleted_from(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE INDEX t_n ON core.t (n)")
    with transaction(con):
        delete_rebuilding(con, "core.t", "n >= 3")
    assert con.execute("SELECT id FROM core.t ORDER BY id").fetchall() == [("a",), ("b",)]
    assert con.execute("SELECT count(*) FROM duckdb_indexes() WHERE index_name = 't_n'").fetchall() == [(1,)]
