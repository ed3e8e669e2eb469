"""The layout as docs/ARCHITECTURE.md describes it, checked on the code rather than trusted: one folder per stage,
the warehouse below the pipeline, no import cycles, no import from a lower layer into a higher one, every module
listed with its job, and every step's real writes equal to its declaration."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import duckdb
import pytest

from pipeline.flow import steps as flow
from tests.helpers import REPO, cli_environment, run_cli
from tools import docs_reference

# Lowest first: a module may import its own package and the packages before it, never one after it. The order is
# that of dependence (what a stage's code needs), not of the data flow: the probe (answers) reads a dish's countries
# with the score stage's functions, so score sits below answers.
LAYERS = (
    "warehouse",
    "pipeline.core",
    "pipeline.reference",
    "pipeline.tasks",
    "pipeline.extract",
    "pipeline.datasets",
    "pipeline.score",
    "pipeline.backends",
    "pipeline.tiny",
    "pipeline.answers",
    "pipeline.corpus",
    "pipeline.compose",
    "pipeline.imagine",
    "pipeline.finetune",
    "pipeline.stores",
    "pipeline.export",
    "pipeline.executors",
    "pipeline.flow",
    "pipeline.cli",
    "pipeline.__main__",
    "app",
)
ENTRY_POINTS = {"__init__.py", "__main__.py", "cli.py"}


@cache
def modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the three packages."""
    found = {}
    for top in ("pipeline", "warehouse", "app"):
        for path in sorted((REPO / top).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _owner(target: str) -> str | None:
    """The module an import target names (`pipeline.score.metrics.jaccard` -> `pipeline.score.metrics`)."""
    while target and target not in modules():
        target = target.rpartition(".")[0]
    return target or None


@cache
def imports() -> dict[str, set[str]]:
    """Module -> the project's modules it imports, at module level or inside functions alike."""
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in modules().items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                targets = [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                owner = _owner(target)
                if owner and owner != name and owner != "pipeline":  # `import pipeline`: the package's own path
                    edges[name].add(owner)
    return edges


def layer(module: str) -> str:
    return next(prefix for prefix in sorted(LAYERS, key=len, reverse=True) if re.match(rf"{prefix}(\.|$)", module))


def test_every_module_belongs_to_a_layer() -> None:
    unplaced = [m for m in modules() if m != "pipeline" and not any(re.match(rf"{p}(\.|$)", m) for p in LAYERS)]
    assert unplaced == []


def test_the_pipeline_root_holds_only_entry_points() -> None:
    assert sorted(p.name for p in (REPO / "pipeline").glob("*.py")) == sorted(ENTRY_POINTS)


def test_no_import_cycles() -> None:
    edges = imports()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for target in sorted(edges.get(module, ())):
            if state.get(target) == 1:
                cycles.append([*trail[trail.index(target) :], target] if target in trail else [module, target])
            elif target not in state:
                visit(target, [*trail, target])
        state[module] = 2

    for module in sorted(modules()):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_warehouse_imports_nothing_from_the_pipeline_or_the_app() -> None:
    upward = {(m, t) for m, targets in imports().items() if m.startswith("warehouse") for t in targets}
    assert {(m, t) for m, t in upward if not t.startswith("warehouse")} == set()


def test_no_import_runs_from_a_lower_layer_into_a_higher_one() -> None:
    rank = {prefix: i for i, prefix in enumerate(LAYERS)}
    upward = sorted(
        (module, target)
        for module, targets in imports().items()
        for target in targets
        if rank[layer(target)] > rank[layer(module)]
    )
    assert upward == []


def test_architecture_md_lists_every_module_with_its_job() -> None:
    """A module added without a line in docs/ARCHITECTURE.md (or a line left for a removed one) fails here; each line
    is the module's own docstring (tools/docs_reference.py writes the tables, tests/test_docs.py checks they are
    current)."""
    text = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| `((?:pipeline|warehouse|app)/[\w/]+\.py)` \| (.*) \|$", text, flags=re.M))
    actual = {str(path.relative_to(REPO)): path for path in modules().values()}
    assert sorted(actual.keys() - listed.keys()) == [], "modules missing from docs/ARCHITECTURE.md"
    assert sorted(listed.keys() - actual.keys()) == [], "docs/ARCHITECTURE.md lists modules that do not exist"
    assert {name: listed[name] for name in actual} == {
        name: docs_reference._cell(docs_reference.module_job(path)) for name, path in actual.items()
    }


def _weak_job(job: str) -> str | None:
    """Why a module's stated job says too little, or None when it says enough: under six words, a label with nothing
    after it ("BORSch:"), or a short label followed by under four words ("Dish Atlas dashboard: `streamlit run …`")."""
    label, colon, rest = job.partition(":")
    if len(job.split()) < 6:
        return "under six words"
    if colon and len(label.split()) <= 4 and len(rest.split()) < 4:
        return "a name, then too little"
    return None


def test_the_job_rule_refuses_a_name_alone_and_accepts_a_sentence() -> None:
    assert _weak_job("BORSch:") and _weak_job("The `app` package.") and _weak_job("")
    assert _weak_job("Dish Atlas dashboard: `streamlit run app/main.py`.")
    assert _weak_job("BORSch: Russian- and Ukrainian-named dishes with their countries of origin.") is None


def test_every_module_docstring_states_its_job_in_its_first_sentence() -> None:
    """The first sentence of every module's docstring says what the module is for, in words a newcomer can act on:
    the module tables of docs/ARCHITECTURE.md are made of these sentences."""
    weak = {
        str(path.relative_to(REPO)): f"{reason}: {job!r}"
        for path in modules().values()
        if (reason := _weak_job(job := docs_reference.module_job(path)))
    }
    assert weak == {}


# --- the steps' declarations, checked on real runs ---------------------------------------------------------------


def test_real_runs_write_only_the_tables_their_steps_declare(
    worldcuisines_warehouse: Path, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the write audit on, each step's changed tables are compared with its declaration after it ran: a
    command whose step wrote an undeclared table fails. Ingest, an import of real WorldCuisines answers, scoring
    and answer languages, and a publish, on a warehouse holding the real WorldCuisines files."""
    monkeypatch.setenv(flow.AUDIT_ENV, "1")
    answers = tmp_path / "task2_oe_Some-Model.jsonl"
    source = sorted((data_dir / "worldcuisines" / "predictions").glob("task2_oe_*.jsonl"))[0]
    lines = source.read_text(encoding="utf-8").splitlines()[:40]
    answers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for command in (
        ("ingest", "sample"),
        ("import-responses", "--format", "worldcuisines", str(answers)),
        ("score",),
        ("publish",),
    ):
        result = run_cli(worldcuisines_warehouse, *command, check=False)
        assert result.returncode == 0, (command, result.stderr)
        assert "does not declare" not in result.stderr


def test_the_write_audit_is_on_for_every_command_the_suite_runs() -> None:
    """tests/conftest.py turns it on for the whole suite: every CLI command a test starts inherits it."""
    assert cli_environment().get(flow.AUDIT_ENV) == "1"


def test_the_write_audit_stops_a_step_that_writes_an_undeclared_table(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("CREATE SCHEMA core; CREATE TABLE core.a (x INT); CREATE TABLE core.b (x INT)")

    def writes_b(ctx) -> None:
        ctx.con.execute("INSERT INTO core.b VALUES (1)")

    step = flow.Step("toy", reads=(), writes=("core.a",), run=writes_b)
    before = flow.table_fingerprints(con)
    step.run(flow.Context(con, flow.Options()))
    with pytest.raises(flow.UndeclaredWrite, match=r"'toy' wrote core\.b"):
        flow.audit_writes(step, before, flow.table_fingerprints(con))
    flow.audit_writes(flow.Step("toy", (), ("core.b",), writes_b), before, flow.table_fingerprints(con))


@cache
def _top_level_names(module: str) -> frozenset[str]:
    """What `module` defines or imports at its top level (functions, classes, assignments, imports)."""
    path = modules()[module]
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For):  # optional imports, guarded definitions
            for sub in ast.walk(node):
                if isinstance(sub, ast.FunctionDef | ast.ClassDef):
                    names.add(sub.name)
                elif isinstance(sub, ast.Import | ast.ImportFrom):
                    names |= {(alias.asname or alias.name).split(".")[0] for alias in sub.names}
                elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
    return frozenset(names)


def test_every_import_of_a_project_module_names_something_it_defines() -> None:
    """A module moved or a name moved between modules leaves no stale import behind, not even inside a function
    (which only fails when that function runs)."""
    stale = []
    importers = {**modules()}
    for path in sorted([*(REPO / "tests").rglob("*.py"), *(REPO / "bench").rglob("*.py")]):
        parts = path.relative_to(REPO).with_suffix("").parts
        importers[".".join(parts)] = path
    for name, path in importers.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                if base.split(".")[0] not in ("pipeline", "warehouse", "app"):
                    continue
                if base not in modules():
                    stale.append(f"{path.relative_to(REPO)}:{node.lineno}: no module {base}")
                    continue
                for alias in node.names:
                    if f"{base}.{alias.name}" not in modules() and alias.name not in _top_level_names(base):
                        stale.append(f"{path.relative_to(REPO)}:{node.lineno}: {base} has no {alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in ("pipeline", "warehouse", "app") and alias.name not in modules():
                        stale.append(f"{path.relative_to(REPO)}:{node.lineno}: no module {alias.name}")
    assert stale == []


def test_the_tests_mirror_the_source_tree() -> None:
    """A test file lives in the folder of the code it specifies: tests/pipeline/score/ for pipeline/score/, so a
    newcomer finds a module's tests by its path. Every folder of tests under tests/pipeline, tests/warehouse and
    tests/app is a folder of the source tree."""
    folders = {
        path.parent.relative_to(REPO / "tests")
        for top in ("pipeline", "warehouse", "app")
        for path in (REPO / "tests" / top).rglob("test_*.py")
    }
    assert sorted(str(folder) for folder in folders if not (REPO / folder).is_dir()) == []
