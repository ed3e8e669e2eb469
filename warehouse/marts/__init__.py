"""The marts, in build order: one explicit list (no file-name discovery). A mart is a SQL file here, or a Python
`build(con)` for what SQL cannot say simply (bootstrap intervals), and beside it its declaration, `NAME.toml`
(warehouse/marts/contract.py): every table it builds with all its columns and types, its data tests, its export
and, for a Python mart, what it reads. Publishing builds the marts in this order, then checks each table against its
declaration and runs its data tests (warehouse/build.py). Adding a mart = its file + its declaration + a `Mart(...)`
entry in `MARTS`; adding an export = a `["marts.T".export]` block in the declaration of the mart building T.

Importing this package reads no Python mart (polars and friends load when a mart is built)."""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from warehouse import set_measures
from warehouse.marts import contract
from warehouse.marts.contract import Declaration, Export, TableContract
from warehouse.registry import Registry

MARTS_DIR = Path(__file__).parent

# What a statement reads that makes its result change between two builds of the same tables (tokens, lowercased).
_CLOCK = frozenset({"current_timestamp", "now", "current_date", "today", "random", "uuid", "gen_random_uuid"})


@dataclass(frozen=True)
class Mart:
    """One mart file and its declaration (read from `NAME.toml` beside it unless given). A Python mart (`NAME.py`)
    is the module `warehouse.marts.NAME`, whose `build(con)` builds it: imported when it runs, so that importing the
    marts stays light."""

    file: str
    declared: Declaration | None = None

    @property
    def module(self) -> str | None:
        """The Python mart's module, None for a SQL mart."""
        return f"{__name__}.{Path(self.file).stem}" if self.file.endswith(".py") else None

    @property
    def build(self) -> Callable[[duckdb.DuckDBPyConnection], None] | None:
        """The Python mart's `build(con)`, None for a SQL mart."""
        return None if self.module is None else importlib.import_module(self.module).build

    @property
    def path(self) -> Path:
        return MARTS_DIR / self.file

    @property
    def declaration(self) -> Declaration:
        return self.declared or contract.read(self.path.with_suffix(".toml"))

    @property
    def tables(self) -> dict[str, TableContract]:
        """Each table the mart builds -> its contract, in the declaration's order."""
        return self.declaration.tables

    @property
    def exports(self) -> dict[str, str]:
        """`export NAME` -> the table it writes."""
        return {spec.export.name: table for table, spec in self.tables.items() if spec.export is not None}

    @functools.cached_property
    def source(self) -> str:
        """The SQL file, or the Python mart's module."""
        if self.module is None:
            return self.path.read_text(encoding="utf-8")
        return inspect.getsource(importlib.import_module(self.module))

    @property
    def writes(self) -> frozenset[str]:
        return frozenset(self.tables)

    def run(self, con: duckdb.DuckDBPyConnection, changed: set[str] | None = None, known: dict | None = None) -> bool:
        """Build the mart; returns whether it ran. With `changed` (the source tables that differ from the snapshot
        the database was copied from, and the marts rebuilt so far, updated here), only what depends on them runs:
        a SQL statement that creates a mart table is skipped when it reads no changed table, does not read the clock
        and follows no other statement that read one (the copy already holds what it would build); other statements
        (temporary macros) always run; a Python mart runs when a table it declares in `depends_on` changed. What a
        SQL statement reads is what DuckDB's binder finds in it (`get_table_names`), never a text search. `known`:
        what earlier builds by this code found each statement reads (`statement_reads`), filled with what this one
        finds (a full build too: the first build on its tables then parses nothing). Every mart runs with the set
        measures as SQL functions (warehouse/set_measures.py: one definition for the score stage and the marts)."""
        set_measures.register(con)
        if self.module is not None:
            if changed is not None:
                if not self.declaration.depends_on & changed:
                    return False
                changed |= self.writes
            self.build(con)
            return True
        if changed is None:
            con.execute(self.source)
            if known is not None:  # found now for the next build on this one's tables
                for statement in con.extract_statements(self.source):
                    known_reads(con, statement.query, created_mart(statement), known)
            return True
        ran = tainted = False  # tainted: a temporary object built from changed tables (later statements may read it)
        for statement in con.extract_statements(self.source):
            creates = created_mart(statement)
            needed = needs_rebuild(con, statement.query, changed, creates, known)
            if creates and not (needed or tainted):
                continue
            con.execute(statement.query)
            if creates:
                changed.add(creates)
            ran = ran or bool(creates)
            tainted = tainted or (needed and not creates)
        return ran

    def broken_contracts(self, found: dict[str, list[tuple[str, str]]]) -> list[str]:
        """'marts.T: expected columns …, found …' for each table whose columns or types break its contract. `found`:
        every table's (column, type) pairs in order (`contract.built_columns`), read once for all the marts."""
        broken = (spec.broken(found.get(table)) for table, spec in self.tables.items())
        return [problem for problem in broken if problem is not None]


def _tokens(sql: str) -> list[tuple[str, duckdb.token_type]]:
    """(text, type) of each token of `sql`, as DuckDB's own tokenizer splits it (comments dropped). Its offsets
    count UTF-8 bytes."""
    raw = sql.encode()
    found = duckdb.tokenize(sql)
    ends = [start for start, _ in found[1:]] + [len(raw)]
    return [
        (raw[start:end].decode().strip(), kind) for (start, kind), end in zip(found, ends, strict=True)
        if kind != duckdb.token_type.comment
    ]  # fmt: skip


def created_mart(statement: duckdb.Statement) -> str | None:
    """The `marts.T` a CREATE [OR REPLACE] TABLE statement creates (None for a temporary table, a macro, a query)."""
    if statement.type != duckdb.StatementType.CREATE:
        return None
    words = []
    for text, kind in _tokens(statement.query):
        if kind == duckdb.token_type.keyword:
            if words:
                break
            if text.lower() in ("temp", "temporary", "macro", "view", "function", "sequence", "schema", "type"):
                return None
            continue
        words.append(text.lower().strip('"'))
        if len(words) == 3:
            break
    name = "".join(words)
    return name if name.startswith("marts.") else None


def needs_rebuild(
    con: duckdb.DuckDBPyConnection, sql: str, changed: set[str], creates: str | None, known: dict | None = None
) -> bool:
    """Whether `sql` reads a changed table (`schema.table`) or the clock or a random number. A statement whose reads
    DuckDB cannot tell ahead of running it is counted as needed (it runs: never a stale table). `known`: statement
    key -> `statement_reads`, read from it when there and written to it when not."""
    reads = statement_reads(con, sql, creates) if known is None else known_reads(con, sql, creates, known)
    return reads is None or bool(set(reads) & changed)


def known_reads(con: duckdb.DuckDBPyConnection, sql: str, creates: str | None, known: dict) -> list[str] | None:
    """`statement_reads`, from `known` (statement key -> reads) when there, found and added to it when not."""
    key = statement_key(sql, creates)
    if key not in known:
        known[key] = statement_reads(con, sql, creates)
    return known[key]


def statement_key(sql: str, creates: str | None) -> str:
    """What `statement_reads` depends on: the statement, the table it creates and the parser's version."""
    return hashlib.sha256(f"{duckdb.__version__}\0{creates}\0{sql}".encode()).hexdigest()[:24]


def statement_reads(con: duckdb.DuckDBPyConnection, sql: str, creates: str | None) -> list[str] | None:
    """The tables `sql` reads, sorted; None when it reads the clock or a random number, or DuckDB cannot tell (it
    must always run). A function of the statement alone: a publish keeps what the last one found (parsing every
    statement of every mart cost a fifth of a CPU-second, more than a corpus scan's publish otherwise does)."""
    if any(kind != duckdb.token_type.comment and text.lower() in _CLOCK for text, kind in _tokens(sql)):
        return None
    reads = reads_of(con, sql, creates)
    return None if reads is None else sorted(reads)


def reads_of(con: duckdb.DuckDBPyConnection, sql: str, creates: str | None = None) -> set[str] | None:
    """The schema-qualified tables one statement reads, from DuckDB's own parse tree (`json_serialize_sql` of its
    query: subqueries, CTEs and joins alike; a CREATE TABLE ... AS's query is the part after its name's AS). Other
    statements (a temporary macro): what `get_table_names` finds. None when neither can tell."""
    query = _query_part(sql) if creates else sql
    [(found,)] = con.execute("SELECT json_serialize_sql(?::VARCHAR)", [query]).fetchall()
    tree = json.loads(found)
    if not tree.get("error"):
        return set(_base_tables(tree))
    try:
        names = con.get_table_names(sql, qualified=True)
    except duckdb.Error:
        return None
    return {name.split(" AS ")[0].replace('"', "").lower() for name in names} - {creates}  # `core.x AS c` -> core.x


def _query_part(sql: str) -> str:
    """`CREATE [OR REPLACE] TABLE name AS query` -> `query` (split where DuckDB's tokenizer finds that AS)."""
    raw = sql.encode()
    for start, kind in duckdb.tokenize(sql):
        if kind == duckdb.token_type.keyword and raw[start : start + 3].lower().rstrip() in (b"as", b"as("):
            return raw[start + 2 :].decode()
    return sql


def _base_tables(node: object) -> Iterator[str]:
    """Every `schema.table` a parse tree (json_serialize_sql) names as a table it reads."""
    if isinstance(node, dict):
        if node.get("type") == "BASE_TABLE" and node.get("schema_name"):
            yield f"{node['schema_name']}.{node['table_name']}".lower()
        for value in node.values():
            yield from _base_tables(value)
    elif isinstance(node, list):
        for value in node:
            yield from _base_tables(value)


# The marts in build order (the same `Registry` form as every pluggable kind, keyed by file name without its suffix):
# adding a mart = its file, its declaration beside it and one `Mart(...)` entry here.
MARTS: Registry[Mart] = Registry("mart", ordered=True)
for _mart in (
    Mart("010_dishes.sql"),
    Mart("020_composition.sql"),
    Mart("030_origin_scores.sql"),
    Mart("035_linked_origin_answers.sql"),
    Mart("leaderboard.py"),
    Mart("accuracy.py"),
    Mart("language_gap.py"),
    Mart("046_language_switching.sql"),
    Mart("method_audit.py"),
    Mart("045_uacuisine_classes.sql"),
    Mart("130_uacuisine_table4.sql"),
    Mart("050_countries.sql"),
    Mart("map_outlines.py"),
    Mart("060_language_pull.sql"),
    Mart("070_dish_pages.sql"),
    Mart("080_corpus_exports.sql"),
    Mart("085_dish_identity.sql"),
    Mart("090_corpus_analyses.sql"),
    Mart("culturemix.py"),
    Mart("140_culturemix_analyses.sql"),
    Mart("culturemix_mitigation.py"),
    Mart("100_imagined.sql"),
    Mart("imagined_correlations.py"),
    Mart("120_zno.sql"),
    Mart("captions.py"),
    Mart("121_vqa.sql"),
    Mart("110_surzhyk.sql"),
    Mart("borsch_table4.py"),
    Mart("borsch_human_eval.py"),
    Mart("111_borsch_figures.sql"),
    Mart("112_imagined_reference.sql"),
    Mart("116_borsch_worldcuisines_coverage.sql"),
    Mart("115_borsch_table4_published.sql"),
    Mart("114_answer_photos.sql"),
    Mart("113_imagined_regions.sql"),
    Mart("150_finetune.sql"),
    Mart("160_answer_sheets.sql"),
):
    MARTS.add(Path(_mart.file).stem, _mart)


def _exports(registry: Registry[Export]) -> None:
    for mart in MARTS.values():
        for spec in mart.tables.values():
            if spec.export is not None:
                registry.add(spec.export.name, spec.export)


# Every export, declared beside the mart that builds its table (read on first use): `export NAME` writes the table,
# its contract columns in order (pipeline/export/tables.py); the CLI's commands are generated from these.
EXPORTS: Registry[Export] = Registry("export", ordered=True, load=_exports)

# Declarations of what is computed when exported rather than built at publish, by schema: the papers' tables
# (warehouse/paper_tables), written one CSV per paper table into a folder (the declaration's `files`).
COMPUTED = {"paper_tables": MARTS_DIR.parent / "paper_tables" / "paper_tables.toml"}


def _computed_tables() -> dict[str, TableContract]:
    return {
        table: spec for schema, path in COMPUTED.items() for table, spec in contract.read(path, schema).tables.items()
    }


def _folder_exports(registry: Registry[Export]) -> None:
    for spec in _computed_tables().values():
        if spec.export is not None:
            registry.add(spec.export.name, spec.export)


# The exports that write a folder of files (`export paper-tables --out DIR`), declared beside the code that computes
# their rows; the CLI's commands follow the marts' exports.
FOLDER_EXPORTS: Registry[Export] = Registry("folder export", ordered=True, load=_folder_exports)


def export_contract(name: str) -> tuple[str, ...]:
    """The columns `export NAME` guarantees, in order: its table's contract (a folder export's: each file's)."""
    spec = FOLDER_EXPORTS[name] if name in FOLDER_EXPORTS else EXPORTS[name]
    return contract_of(spec.table).names


def contract_of(table: str) -> TableContract:
    """The contract of the mart table `table` (`marts.T`), or of a table computed when exported (`COMPUTED`)."""
    for mart in MARTS.values():
        if table in mart.tables:
            return mart.tables[table]
    computed = _computed_tables()
    if table in computed:
        return computed[table]
    raise KeyError(table)
