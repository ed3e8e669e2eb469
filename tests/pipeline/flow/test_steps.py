"""The stages as declared steps (pipeline/flow/steps.py): one writer per table, pipelines made of known
steps in data-flow order, and every writing command ending in publish."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import duckdb

from pipeline.flow.steps import LEDGER, PIPELINES, STEPS, UNION_VIEWS, _warm_ups, read_tables
from tests.helpers import run_cli
from warehouse.db import migrate
from warehouse.marts import reads_of

FLOW = (
    "reference",
    "ingest",
    "link",
    "finetune",
    "answers",
    "corpus",
    "score",
    "languages",
    "culturemix_parse",
    "compose",
    "imagine",
)


def _can_write(name: str) -> set[str]:
    """Every table the step may change: what it owns (`writes`) and what it appends to (`ledger`)."""
    step = STEPS.get(name)
    return set(step.writes) | set(step.ledger) - set(LEDGER)


def test_no_two_steps_write_the_same_table() -> None:
    writers = Counter(table for name in STEPS.names() for table in _can_write(name))
    assert [table for table, n in writers.items() if n > 1] == []


def test_a_ledger_names_only_meta_tables() -> None:
    """The meta.* ledger (loaded files, quirks) is shared by design, each step appending rows of its own kind; every
    other table has its one writer (the answers step's translation items and the imagine step's images live in
    tables of their own, united with ingest's by the views core.items and core.images)."""
    assert {
        (name, table) for name in STEPS.names() for table in STEPS.get(name).ledger if not table.startswith("meta.")
    } == set()


def test_the_union_views_are_the_ones_the_schema_holds_and_read_what_steps_declare(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(con)
    views = {
        f"{schema}.{view}": reads_of(con, sql, f"{schema}.{view}")
        for schema, view, sql in con.execute(
            "SELECT schema_name, view_name, sql FROM duckdb_views() "
            "WHERE NOT internal AND schema_name IN ('raw', 'core')"
        ).fetchall()
    }
    assert views == {view: set(parts) for view, parts in UNION_VIEWS.items()}
    assert read_tables(("core.items", "core.dishes")) == {
        "core.ingested_items",
        "core.translation_items",
        "core.dishes",
    }


def test_every_raw_and_core_table_has_exactly_one_writing_step(tmp_path: Path) -> None:
    """A table no step writes is dead schema; the image tables wait for their issues."""
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(con)
    tables = {
        f"{schema}.{table}"
        for schema, table in con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE schema_name IN ('raw', 'core')"
        ).fetchall()
    }
    declared = {table for name in STEPS.names() for table in STEPS.get(name).writes}
    waiting = {"core.composite_images"}
    assert tables - declared - waiting == set()
    assert declared - tables == set()


def test_a_step_reads_only_what_a_step_before_it_in_the_flow_writes() -> None:
    """A union view counts as written once its first part is (ingest's): a later part is what a later step adds."""
    written_before: set[str] = set()
    for name in FLOW:
        step = STEPS.get(name)
        assert set(step.reads) <= written_before, (name, set(step.reads) - written_before)
        written_before |= set(step.writes)
        written_before |= {view for view, parts in UNION_VIEWS.items() if written_before & set(parts)}


def test_pipelines_are_known_steps_in_flow_order() -> None:
    assert {"demo", "run", "score", "publish"} <= set(PIPELINES)
    for name, steps in PIPELINES.items():
        assert all(step in STEPS for step in steps), name
        positions = [FLOW.index(step) for step in steps]
        assert positions == sorted(positions), name


def test_a_step_warms_up_as_soon_as_the_last_step_writing_its_inputs_is_done() -> None:
    """The curated languages' gazetteers build from the start (they depend on nothing) while the reference tables
    load; the answer languages' once the answers are imported, while the corpus step runs."""
    starts = _warm_ups(PIPELINES["demo"])
    assert {PIPELINES["demo"][index]: [step.name for step in steps] for index, steps in starts.items()} == {
        "reference": ["ingest"],
        "corpus": ["score", "languages"],
    }
    assert _warm_ups(("score",)) == {}  # nothing runs before it: it builds what it needs in its own turn


def test_a_no_op_rerun_still_publishes_a_lost_snapshot(warehouse: Path) -> None:
    """`ingest sample` twice: the second finds nothing to load, yet publishes when the snapshot is gone."""
    assert run_cli(warehouse, "ingest", "sample").returncode == 0
    warehouse.unlink()
    again = run_cli(warehouse, "ingest", "sample")
    assert "nothing to do" in again.stderr
    assert "published" in again.stderr
    assert warehouse.exists()
    score = run_cli(warehouse, "score")
    assert "nothing changed" in score.stderr


def test_the_executor_is_resolved_once_by_the_flow_and_never_chosen_inside_a_step() -> None:
    """Only `run_pipeline` looks the executor up (by the run's `--executor`); the steps hand the bound executor to
    their stages' drivers (pipeline/answers/stage.py, pipeline/corpus/stage.py, pipeline/score/stage.py), which
    never import pipeline/executors."""
    import ast
    import inspect

    from pipeline.flow import steps

    tree = ast.parse(inspect.getsource(steps))
    looked_up_in = {
        function.name
        for function in tree.body
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and node.id == "EXECUTORS"
    }
    assert looked_up_in == {"run_pipeline"}
    drivers = [Path(steps.__file__).parent.parent / stage / "stage.py" for stage in ("answers", "corpus", "score")]
    assert [path for path in drivers if "pipeline.executors" in path.read_text(encoding="utf-8")] == []
