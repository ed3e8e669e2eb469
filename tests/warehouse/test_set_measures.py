"""The set measures have one home (warehouse/set_measures.py): the score stage's metrics are its functions, and the
marts call the same functions in SQL, so a linked answer scored in a mart gets what the score stage would give it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.score import metrics
from warehouse import set_measures
from warehouse.marts import MARTS, MARTS_DIR, created_mart, reads_of

CODES = ["UA", "RU", "PL", "GE", "FR", "IT"]
# Lists as the marts hold them: in the model's order, repeats allowed, empty allowed.
country_lists = st.lists(st.sampled_from(CODES), max_size=5)
pairs = st.lists(st.tuples(country_lists, country_lists), min_size=1, max_size=40)


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect()
    set_measures.register(con)
    yield con
    con.close()


def test_the_score_stage_scores_with_the_warehouse_functions() -> None:
    assert metrics.jaccard is set_measures.jaccard
    assert metrics.dice is set_measures.dice
    assert metrics.overlap is set_measures.overlap
    assert metrics.first_in_gold is set_measures.first_in_gold
    assert {name: metrics.get_metric(name) for name in ("jaccard", "dice", "overlap", "accuracy")} == {
        "jaccard": set_measures.jaccard,
        "dice": set_measures.dice,
        "overlap": set_measures.overlap,
        "accuracy": set_measures.first_in_gold,
    }


@settings(max_examples=60, deadline=None)
@given(pairs)
def test_each_sql_function_gives_what_its_python_function_gives(con: duckdb.DuckDBPyConnection, rows: list) -> None:
    lists = pa.list_(pa.string())
    answers = pa.table(
        [[p for p, _ in rows], [g for _, g in rows]], schema=pa.schema([("pred", lists), ("gold", lists)])
    )
    con.register("answers", answers)
    for name, measure in set_measures.SQL_FUNCTIONS.items():
        found = [value for (value,) in con.execute(f"SELECT {name}(pred, gold) FROM answers").fetchall()]
        assert found == [measure(p, g) for p, g in rows], name


def test_a_null_list_gives_null(con: duckdb.DuckDBPyConnection) -> None:
    for name in set_measures.SQL_FUNCTIONS:
        assert con.execute(f"SELECT {name}(NULL, ['UA']), {name}(['UA'], NULL)").fetchall() == [(None, None)]


def test_registering_twice_on_one_connection_is_harmless(con: duckdb.DuckDBPyConnection) -> None:
    set_measures.register(con)
    assert con.execute("SELECT set_jaccard(['UA', 'RU'], ['UA'])").fetchall() == [(0.5,)]


def test_the_sql_names_are_no_duckdb_function() -> None:
    with duckdb.connect() as fresh:
        taken = fresh.execute(
            "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_name IN "
            "(SELECT unnest(?::VARCHAR[]))",
            [list(set_measures.SQL_FUNCTIONS)],
        ).fetchall()
    assert taken == []


def test_no_mart_computes_a_set_measure_of_its_own() -> None:
    """The Jaccard idiom `len(list_intersect(a, b)) / len(list_distinct(list_concat(a, b)))` is gone from the marts
    (`set_jaccard` instead); list_intersect still says which items two lists share."""
    for path in sorted([*MARTS_DIR.glob("*.sql"), *MARTS_DIR.glob("*.py")]):
        code = re.sub(r"\s+", "", path.read_text(encoding="utf-8").lower())
        assert not re.search(r"len\(list_intersect\([^/;]*\)\)/len\(", code), path.name
        assert "/len(list_distinct(list_concat(" not in code, path.name


def test_the_dependency_reader_reads_past_the_functions_without_them() -> None:
    """A publish reads what each statement reads from DuckDB's parse tree, which names no function's owner: a
    connection without the set measures still finds the tables of the statements that call them."""
    [statement] = duckdb.extract_statements(MARTS["035_linked_origin_answers"].source)
    with duckdb.connect() as fresh:
        reads = reads_of(fresh, statement.query, created_mart(statement))
    assert reads == {"core.dish_links", "core.dishes", "core.dish_origins", "core.extractions", "marts.origin_scores"}
