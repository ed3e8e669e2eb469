"""A mart's declaration, the one home of its contract: `NAME.toml` beside `NAME.sql` (or `NAME.py`) names every
table the mart builds with all its columns and their DuckDB types, in order (the contract the exports, the app and
scripts outside the repository read), the table's data tests, the `export` command that writes it, and, for a
Python mart, the tables it reads (a SQL mart's are read from its SQL by DuckDB's own parser, `Mart.run`).

    depends_on = ["marts.origin_scores"]          # Python marts only

    ["marts.leaderboard"]
    not_null = ["dataset", "model"]               # data tests, as dbt names them
    unique = [["dataset", "task", "model", "lang"]]
    accepted_values = { method = ["paper", "atlas"] }
    relationships = { dish_key = "marts.dishes.dish_key" }

    ["marts.leaderboard".columns]
    dataset = "VARCHAR"
    ...

    ["marts.leaderboard".export]                  # `python -m pipeline export NAME`
    name = "leaderboard"
    help = "One row per ..."
    method = { help = "...", default = "atlas" }  # --method picks one method's rows (no default: required)

An export computed when it is written rather than built at publish (the papers' tables: `["paper_tables.cells"]` in
warehouse/paper_tables/paper_tables.toml, read with `read(path, schema="paper_tables")`) writes one CSV per group of
rows into a folder, and says so in its export block:

    files = "{paper}_{table}.csv"                 # one file per distinct (paper, table), named so, in --out
    out = "Folder for the ... files"              # --out's help (a folder, required)
    pick = { column = "paper", help = "..." }     # --paper: a required option, the rows whose paper it names
    data = "..."                                  # --data (env DATA): the data folder the export reads beside

`python tools/mart_declaration.py --warehouse W marts.T` prints a table's `columns` block from what the marts build
(a new mart, or a column added). Publishing checks each table's columns and types against its declaration and runs
its data tests in one query (`failed_data_tests`); either failure stops the publish with one line and leaves the
snapshot as it was.
"""

from __future__ import annotations

import functools
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

TESTS = ("not_null", "unique", "accepted_values", "relationships")
_TABLE_KEYS = {"columns", "export", *TESTS}
_EXPORT_KEYS = {"name", "help", "method"}
_FILES_KEYS = {"files", "out", "pick", "data"}  # an export written as one CSV per group of rows (see above)
SAMPLE = 3  # offending values a failed data test names


class DeclarationError(ValueError):
    """A declaration that cannot be read: the message names the file and the key."""


@dataclass(frozen=True)
class MethodOption:
    """`--method` of an export: the table holds several scoring methods, a file one (the column leaves it)."""

    help: str
    default: str | None  # None: the option is required


@dataclass(frozen=True)
class Files:
    """How a files export lays out its rows: one CSV per distinct value of the columns `name` names (`{column}`),
    in the folder `--out` (whose help is `out`); `--PICK` (required, help `pick_help`) picks the rows whose column
    `pick` it names; `data` is --data's help (env DATA), or None for no --data."""

    name: str
    out: str
    pick: str
    pick_help: str
    data: str | None = None


@dataclass(frozen=True)
class Export:
    """`python -m pipeline export NAME`: writes `table`, its contract columns in order (one file, or one per group
    of rows when `files` says so)."""

    name: str
    table: str
    help: str
    method: MethodOption | None = None
    files: Files | None = None


@dataclass(frozen=True)
class DataTest:
    """One data test of one table: `kind` (one of TESTS) on `columns`; `argument` is the accepted values or the
    `schema.table.column` a relationship points at."""

    table: str
    kind: str
    columns: tuple[str, ...]
    argument: tuple[str, ...] | str | None = None
    shown: tuple[str, ...] = ()  # not_null: the columns a sample of offending rows shows (its value is NULL)

    @property
    def label(self) -> str:
        """`marts.t.col not_null`, `marts.t.(a, b) unique`: how a failure names the test."""
        column = self.columns[0] if len(self.columns) == 1 else "(" + ", ".join(self.columns) + ")"
        return f"{self.table}.{column} {self.kind}"

    def query(self) -> tuple[str, list]:
        """(SQL returning one row: offending rows, a sample of offending values as text; its parameters)."""
        table = _quoted_table(self.table)
        value = _as_text(self.columns)
        if self.kind == "not_null":
            shown = _as_text(self.shown or self.columns)
            return f'SELECT count(*), list({shown})[1:{SAMPLE}] FROM {table} WHERE "{self.columns[0]}" IS NULL', []
        if self.kind == "unique":
            keys = ", ".join(f'"{c}"' for c in self.columns)
            return (
                f"SELECT count(*), list({value})[1:{SAMPLE}] FROM "
                f"(SELECT {keys} FROM {table} GROUP BY ALL HAVING count(*) > 1)",
                [],
            )
        column = f'"{self.columns[0]}"'
        if self.kind == "accepted_values":
            return (
                f"SELECT count(*), list(DISTINCT {value})[1:{SAMPLE}] FROM {table} "
                f"WHERE {column} IS NOT NULL AND NOT list_contains(?, {column}::VARCHAR)",
                [list(self.argument)],
            )
        parent_table, _, parent_column = str(self.argument).rpartition(".")
        parent = _quoted_table(parent_table)
        return (  # NOT EXISTS, not NOT IN: a NULL among the parent's values would hide every offender
            f"SELECT count(*), list(DISTINCT {value})[1:{SAMPLE}] FROM {table} t WHERE {column} IS NOT NULL "
            f'AND NOT EXISTS (SELECT 1 FROM {parent} p WHERE p."{parent_column}" = t.{column})',
            [],
        )


@dataclass(frozen=True)
class TableContract:
    """A mart table's columns and types, in order, its data tests and its export."""

    table: str
    columns: dict[str, str]
    tests: tuple[DataTest, ...] = ()
    export: Export | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.columns)

    def broken(self, found: list[tuple[str, str]] | None) -> str | None:
        """Why the built table (its (column, type) pairs in order) breaks this contract, or None: the full column list
        and each type must match, so a column added, dropped, renamed, moved or retyped is caught here, at publish,
        rather than by a script reading an export."""
        if found is None:
            return f"{self.table}: not built"
        if [c for c, _ in found] != list(self.columns):
            return f"{self.table}: expected columns {list(self.columns)}, found {[c for c, _ in found]}"
        retyped = [f"{c} {t} (declared {self.columns[c]})" for c, t in found if t != self.columns[c]]
        if retyped:
            return f"{self.table}: columns of another type: {', '.join(retyped)}"
        return None


@dataclass(frozen=True)
class Declaration:
    """One mart's declaration file: its tables' contracts and, for a Python mart, the tables it reads."""

    path: Path
    tables: dict[str, TableContract] = field(default_factory=dict)
    depends_on: frozenset[str] | None = None


@functools.cache
def read(path: Path, schema: str = "marts") -> Declaration:
    """The declaration at `path`, of tables in `schema`; a missing file, bad TOML, an unknown key or a test naming an
    undeclared column stops with one line naming the file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DeclarationError(f"{path}: {exc}") from exc
    depends_on = data.pop("depends_on", None)
    tables = {}
    for table, spec in data.items():
        if not isinstance(spec, dict) or not table.startswith(f"{schema}."):
            raise DeclarationError(f'{path}: {table!r}: expected a ["{schema}.NAME"] table (or depends_on)')
        tables[table] = _table(path, table, spec)
    return Declaration(path, tables, None if depends_on is None else frozenset(depends_on))


def _table(path: Path, table: str, spec: dict) -> TableContract:
    unknown = set(spec) - _TABLE_KEYS
    if unknown:
        raise DeclarationError(f"{path}: {table}: unknown keys {sorted(unknown)}; known: {sorted(_TABLE_KEYS)}")
    columns = spec.get("columns") or {}
    if not columns:
        raise DeclarationError(f"{path}: {table}: no columns declared")
    shown = tuple(columns)[:3]
    tests = [DataTest(table, "not_null", (c,), shown=shown) for c in spec.get("not_null", [])]
    tests += [DataTest(table, "unique", tuple(cs)) for cs in spec.get("unique", [])]
    tests += [DataTest(table, "accepted_values", (c,), tuple(v)) for c, v in spec.get("accepted_values", {}).items()]
    tests += [DataTest(table, "relationships", (c,), ref) for c, ref in spec.get("relationships", {}).items()]
    for test in tests:
        missing = [c for c in test.columns if c not in columns]
        if missing:
            raise DeclarationError(f"{path}: {test.label}: {missing} not among the declared columns")
    return TableContract(table, dict(columns), tuple(tests), _export(path, table, spec.get("export"), columns))


def _export(path: Path, table: str, spec: dict | None, columns: dict) -> Export | None:
    if spec is None:
        return None
    unknown = set(spec) - _EXPORT_KEYS - _FILES_KEYS
    if unknown or "name" not in spec or "help" not in spec:
        raise DeclarationError(f"{path}: {table}.export: expected name, help and optionally method (or files)")
    method = spec.get("method")
    option = None if method is None else MethodOption(method["help"], method.get("default"))
    return Export(spec["name"], table, spec["help"], option, _files(path, table, spec, columns))


def _files(path: Path, table: str, spec: dict, columns: dict) -> Files | None:
    """A files export's layout; its file name and `pick` name declared columns."""
    if not set(spec) & _FILES_KEYS:
        return None
    pick = spec.get("pick") or {}
    if "files" not in spec or "out" not in spec or set(pick) != {"column", "help"} or "method" in spec:
        raise DeclarationError(f"{path}: {table}.export: a files export names files, out and pick (column, help)")
    named = [name for _, name, _, _ in string.Formatter().parse(spec["files"]) if name is not None]
    missing = [name for name in [*named, pick["column"]] if name not in columns]
    if missing:
        raise DeclarationError(f"{path}: {table}.export: {missing} not among the declared columns")
    return Files(spec["files"], spec["out"], pick["column"], pick["help"], spec.get("data"))


def built_columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str]]]:
    """'schema.table' -> its (column, type) pairs in order, for the current database: one catalog query (one per
    mart table was a tenth of a small warehouse's publish)."""
    rows = con.execute(
        "SELECT schema_name || '.' || table_name, list((column_name, data_type) ORDER BY column_index) "
        "FROM duckdb_columns() WHERE database_name = current_database() GROUP BY ALL"
    ).fetchall()
    return {table: [tuple(column) for column in columns] for table, columns in rows}


def failed_data_tests(con: duckdb.DuckDBPyConnection, tests: list[DataTest]) -> list[tuple[DataTest, int, list]]:
    """(test, offending rows, sample) for each failing test, in the order given: every test is one aggregate
    subquery of a single statement (DuckDB runs them in parallel; a statement each cost more than the checks)."""
    if not tests:
        return []
    parts, params = [], []
    for i, test in enumerate(tests):
        sql, test_params = test.query()
        parts.append(f"SELECT {i} AS i, * FROM ({sql})")
        params += test_params
    rows = con.execute(f"SELECT * FROM ({' UNION ALL '.join(parts)}) WHERE #2 > 0 ORDER BY i", params).fetchall()
    return [(tests[i], n, sample) for i, n, sample in rows]


def _quoted_table(table: str) -> str:
    return ".".join(f'"{part}"' for part in table.split("."))


def _as_text(columns: tuple[str, ...]) -> str:
    if len(columns) == 1:
        return f'"{columns[0]}"::VARCHAR'
    return "(" + ", ".join(f'"{c}"' for c in columns) + ")::VARCHAR"
