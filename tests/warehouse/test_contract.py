"""A mart's declaration (warehouse/marts/NAME.toml, read by warehouse/marts/contract.py): every column with its type,
checked in full, and data tests that one query runs, each failure named with some offending values."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from warehouse.marts import contract
from warehouse.marts.contract import DataTest, DeclarationError, TableContract, built_columns, failed_data_tests


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    """Two small mart tables with the faults users' data brings: a repeated key, a NULL, an unknown status, a dish
    that no longer exists (and a dish without a key, which must hide no missing dish)."""
    con = duckdb.connect()
    con.execute("CREATE SCHEMA marts")
    con.execute(
        "CREATE TABLE marts.dishes AS SELECT * FROM "
        "(VALUES ('borsch:ru:1', 'ru'), ('borsch:uk:2', 'uk'), (NULL, 'en')) "
        "t(dish_key, lang)"
    )
    con.execute(
        "CREATE TABLE marts.answers AS SELECT * FROM (VALUES "
        "('g1', 'borsch:ru:1', 'ok', 'm'), ('g1', 'borsch:uk:2', 'ok', 'm'), ('g2', NULL, 'refusal', NULL), "
        "('g3', 'borsch:ru:9', 'maybe', 'm'), ('g4', 'borsch:uk:2', NULL, 'm')) "
        "t(generation_id, dish_key, status, model)"
    )
    yield con
    con.close()


def test_passing_data_tests_report_nothing(con: duckdb.DuckDBPyConnection) -> None:
    tests = [
        DataTest("marts.dishes", "unique", ("dish_key",)),
        DataTest("marts.dishes", "not_null", ("lang",)),
        DataTest("marts.dishes", "accepted_values", ("lang",), ("ru", "uk", "en")),
        DataTest("marts.answers", "unique", ("generation_id", "dish_key")),
        DataTest("marts.answers", "not_null", ("generation_id",)),
    ]
    assert failed_data_tests(con, tests) == []


def test_each_failing_data_test_is_counted_with_a_sample_of_offending_values(con: duckdb.DuckDBPyConnection) -> None:
    unique = DataTest("marts.answers", "unique", ("generation_id",))
    not_null = DataTest("marts.answers", "not_null", ("model",), shown=("generation_id",))
    accepted = DataTest("marts.answers", "accepted_values", ("status",), ("ok", "refusal", "empty"))
    related = DataTest("marts.answers", "relationships", ("dish_key",), "marts.dishes.dish_key")
    failed = failed_data_tests(con, [unique, not_null, accepted, related])
    assert failed == [
        (unique, 1, ["g1"]),
        (not_null, 1, ["g2"]),
        (accepted, 1, ["maybe"]),
        (related, 1, ["borsch:ru:9"]),
    ]
    assert unique.label == "marts.answers.generation_id unique"
    assert (
        DataTest("marts.answers", "unique", ("generation_id", "model")).label
        == "marts.answers.(generation_id, model) unique"
    )


def test_a_contract_is_every_column_and_type_in_order(con: duckdb.DuckDBPyConnection) -> None:
    found = built_columns(con)
    dishes = TableContract("marts.dishes", {"dish_key": "VARCHAR", "lang": "VARCHAR"})
    assert dishes.broken(found["marts.dishes"]) is None
    leading_only = TableContract("marts.dishes", {"dish_key": "VARCHAR"})  # a column the declaration does not name
    assert "expected columns ['dish_key'], found ['dish_key', 'lang']" in leading_only.broken(found["marts.dishes"])
    reordered = TableContract("marts.dishes", {"lang": "VARCHAR", "dish_key": "VARCHAR"})
    assert reordered.broken(found["marts.dishes"]) is not None
    retyped = TableContract("marts.dishes", {"dish_key": "VARCHAR", "lang": "BIGINT"})
    assert (
        retyped.broken(found["marts.dishes"]) == "marts.dishes: columns of another type: lang VARCHAR (declared BIGINT)"
    )
    assert dishes.broken(None) == "marts.dishes: not built"


def test_a_declaration_with_an_unknown_key_or_column_is_one_line_naming_its_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('["marts.t"]\nunqiue = [["a"]]\n["marts.t".columns]\na = "VARCHAR"\n', encoding="utf-8")
    with pytest.raises(DeclarationError, match=rf"{path}: marts.t: unknown keys \['unqiue'\]"):
        contract.read(path)
    path = tmp_path / "bad_column.toml"
    path.write_text('["marts.t"]\nnot_null = ["b"]\n["marts.t".columns]\na = "VARCHAR"\n', encoding="utf-8")
    with pytest.raises(DeclarationError, match=r"marts.t.b not_null: \['b'\] not among the declared columns"):
        contract.read(path)
    path = tmp_path / "not_toml.toml"
    path.write_text('["marts.t"\n', encoding="utf-8")
    with pytest.raises(DeclarationError, match=str(path)):
        contract.read(path)


def test_an_export_declares_its_command_s_help_and_method_option(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text(
        '["marts.t".columns]\nmethod = "VARCHAR"\nn = "BIGINT"\n'
        '["marts.t".export]\nname = "t-rows"\nhelp = "One row per t."\n'
        'method = { help = "paper or atlas", default = "atlas" }\n',
        encoding="utf-8",
    )
    spec = contract.read(path).tables["marts.t"]
    assert spec.names == ("method", "n")
    assert spec.export == contract.Export(
        "t-rows", "marts.t", "One row per t.", contract.MethodOption("paper or atlas", "atlas")
    )


def test_a_folder_export_declares_its_files_and_options_over_declared_columns(tmp_path: Path) -> None:
    """The papers' tables form (warehouse/paper_tables/paper_tables.toml): one CSV per group of rows, named by
    columns, into the folder --out names; --PICK picks the rows; a name or pick outside the columns is refused."""
    path = tmp_path / "cells.toml"
    body = (
        '["cells.t".columns]\npaper = "VARCHAR"\ntable = "VARCHAR"\nvalue = "DOUBLE"\n'
        '["cells.t".export]\nname = "cells"\nhelp = "One CSV per table."\nfiles = "{paper}_{table}.csv"\n'
        'out = "Folder."\npick = { column = "paper", help = "which paper" }\n'
    )
    path.write_text(body, encoding="utf-8")
    spec = contract.read(path, schema="cells").tables["cells.t"]
    assert spec.export.files == contract.Files("{paper}_{table}.csv", "Folder.", "paper", "which paper")
    with pytest.raises(DeclarationError, match=r"expected a \[\"marts.NAME\"\] table"):
        contract.read(path)  # a mart's declaration holds marts.* tables only
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(body.replace("{table}", "{tabel}"), encoding="utf-8")
    with pytest.raises(DeclarationError, match=r"\['tabel'\] not among the declared columns"):
        contract.read(wrong, schema="cells")
    no_out = tmp_path / "no_out.toml"
    no_out.write_text(body.replace('out = "Folder."\n', ""), encoding="utf-8")
    with pytest.raises(DeclarationError, match="a files export names files, out and pick"):
        contract.read(no_out, schema="cells")
