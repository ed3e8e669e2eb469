"""Every released warehouse opens with today's code (issue 51). tests/fixtures/warehouses holds one small warehouse
per release (made by that release's code: tests/fixtures/warehouses/build.py, the first from code before versions
existed), as a user has it: the snapshot, its working database and the two stores. Readers either read it or stop with
one line naming both schema versions and the command that upgrades it; a writing command migrates it in place keeping
every answer, annotation and probe; a warehouse newer than the code is refused in one line and left as it was."""

from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
import tomllib
from pathlib import Path

import duckdb
import pytest

from pipeline.export import tables as exporting
from pipeline.stores import annotations, probes
from tests.helpers import REPO, query, run_cli, shown
from warehouse import db, migrate
from warehouse.db import SchemaMismatch, Warehouse, code_schema_version
from warehouse.marts import EXPORTS
from warehouse.version import release

FIXTURES = REPO / "tests" / "fixtures" / "warehouses"
PAPER_RULE_SCORES = "('paper_jaccard', 'paper_dice', 'paper_overlap', 'paper_exact')"
RELEASES = sorted(path.name.removesuffix(".tar.xz") for path in FIXTURES.glob("*.tar.xz"))


def test_the_version_is_pyprojects_and_the_schema_version_the_newest_migrations(tmp_path: Path) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert release() == project["version"]
    result = run_cli(tmp_path / "w.duckdb", "--version")
    assert result.stdout.strip() == f"dish-atlas {release()} (warehouse schema version {code_schema_version()})"
    assert code_schema_version() == max(version for version, _, _ in db.migrations())
    assert not (tmp_path / "w.duckdb").exists()


def test_there_is_a_fixture_for_the_current_release_and_one_from_before_versions() -> None:
    assert release() in RELEASES, f"add tests/fixtures/warehouses/{release()}.tar.xz (build.py --name {release()})"
    assert any(name.startswith("pre-") for name in RELEASES)
    for name in RELEASES:
        assert (FIXTURES / f"{name}.tar.xz").stat().st_size < 1_500_000, "keep fixtures small"


@pytest.fixture(scope="module", params=RELEASES)
def fixture(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The release's warehouse unpacked (read-only for the tests that use it: each writer works on a copy) and what
    it holds (its manifest)."""
    folder = tmp_path_factory.mktemp(request.param)
    with tarfile.open(FIXTURES / f"{request.param}.tar.xz") as tar:
        tar.extractall(folder, filter="data")
    return folder / "warehouse.duckdb", json.loads((FIXTURES / f"{request.param}.json").read_text(encoding="utf-8"))


def _copy(fixture: tuple[Path, dict], target: Path) -> Path:
    shutil.copytree(fixture[0].parent, target)
    return target / "warehouse.duckdb"


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _one_line_refusal(text: str, path: Path, found: int) -> None:
    assert "\n" not in text.strip(), text
    assert f"{path}: built with schema version {found}" in text, text
    assert f"reads schema version {code_schema_version()}" in text, text
    assert f"`python -m pipeline --warehouse {path} publish`" in text, text


def test_every_export_reads_the_warehouse_or_names_both_versions_and_the_upgrade(fixture, tmp_path: Path) -> None:
    path, manifest = fixture
    before = _digests(path.parent)
    warehouse = Warehouse(path)
    for name in EXPORTS:
        if manifest["schema_version"] == code_schema_version():
            assert exporting.export_frame(warehouse, name).width > 0, name
        else:
            with pytest.raises(SchemaMismatch) as refused:
                exporting.export_frame(warehouse, name)
            _one_line_refusal(str(refused.value), path, manifest["schema_version"])
    result = run_cli(path, "export", "origin-scores", "--out", str(tmp_path / "scores.csv"), check=False)
    assert "Traceback" not in result.stderr
    if manifest["schema_version"] == code_schema_version():
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 2, result.stderr
        [line] = result.stderr.strip().splitlines()
        assert line.startswith("error: ")
        _one_line_refusal(line, path, manifest["schema_version"])
    assert _digests(path.parent) == before, "a reader changed a file"


def test_the_dashboard_reads_the_warehouse_or_names_both_versions_and_the_upgrade(
    fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    path, manifest = fixture
    before = _digests(path.parent)
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(path))
    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=90).run()
    assert not at.exception, [e.value for e in at.exception]
    if manifest["schema_version"] == code_schema_version():
        assert not at.error, [e.value for e in at.error]
        assert any("worldcuisines" in str(box.value) for box in at.selectbox)
        assert any(f"Dish Atlas {release()} · snapshot published" in shown(c.value) for c in at.sidebar.caption)
    else:
        [error] = at.error
        _one_line_refusal(error.value.replace("\\", ""), path, manifest["schema_version"])
    assert _digests(path.parent) == before, "the dashboard changed a file"


def test_a_writing_command_migrates_in_place_keeping_every_answer_annotation_and_probe(fixture, tmp_path: Path) -> None:
    path = _copy(fixture, tmp_path / "w")
    manifest = fixture[1]
    run_cli(path, "ingest", "sample")  # a writing command with nothing new to write: the session migrates
    for database in (path, path.with_suffix(".work.duckdb")):
        [(version,)] = query(database, "SELECT max(version) FROM meta.schema_migrations")
        assert version == code_schema_version()
        for name, sql in {
            "answers": "SELECT count(*) FROM core.generations",
            "extractions": "SELECT count(*) FROM core.extractions",
            # the scores it had; migration 091 adds BORSch's own rule's four (once the mart's) to every answer
            # the paper's rule read
            "scores": f"SELECT count(*) FROM core.scores WHERE metric NOT IN {PAPER_RULE_SCORES}",
            "dishes": "SELECT count(*) FROM core.dishes",
        }.items():
            assert query(database, sql) == [(manifest["counts"][name],)], (database.name, name)
        assert query(
            database,
            f"""SELECT count(*) FILTER (NOT EXISTS (SELECT 1 FROM core.scores s WHERE s.generation_id = e.generation_id
                                                   AND s.metric IN {PAPER_RULE_SCORES}))
                FROM core.extractions e WHERE e.paper_countries IS NOT NULL""",
        ) == [(0,)]
    saved = annotations.load(path=path.with_name("annotations.duckdb"))
    assert sorted(saved[["sample_id", "annotator", "category"]].values.tolist()) == manifest["annotations"]
    recorded = probes.recent(50, path=path.with_name("probes.duckdb"))
    assert sorted(recorded[["dish_text", "status"]].values.tolist()) == manifest["probes"]
    for name in EXPORTS:
        assert exporting.export_frame(Warehouse(path), name).width > 0, name


def test_publish_alone_upgrades_the_working_database_too(fixture, tmp_path: Path) -> None:
    path = _copy(fixture, tmp_path / "w")
    Warehouse(path).publish()
    [(version,)] = query(path.with_suffix(".work.duckdb"), "SELECT max(version) FROM meta.schema_migrations")
    assert version == code_schema_version()
    assert exporting.export_frame(Warehouse(path), "origin-scores").height == fixture[1]["counts"]["answers"]


def test_a_migration_that_fails_leaves_the_warehouse_at_its_old_version(
    fixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All pending migrations are one transaction: one that fails undoes those before it."""
    path = _copy(fixture, tmp_path / "w")
    migrations = tmp_path / "migrations"
    shutil.copytree(migrate.MIGRATIONS_DIR, migrations)
    (migrations / "999_broken.sql").write_text("ALTER TABLE core.no_such_table ADD COLUMN x TEXT;\n")
    monkeypatch.setattr(migrate, "MIGRATIONS_DIR", migrations)
    working = path.with_suffix(".work.duckdb")
    before = query(working, "SELECT version FROM meta.schema_migrations ORDER BY 1")
    counts = query(working, "SELECT count(*) FROM core.generations")
    with pytest.raises(duckdb.Error, match="no_such_table"), Warehouse(path).writer():
        pass
    assert query(working, "SELECT version FROM meta.schema_migrations ORDER BY 1") == before
    assert query(working, "SELECT count(*) FROM core.generations") == counts


def test_a_warehouse_newer_than_the_code_is_refused_in_one_line(fixture, tmp_path: Path) -> None:
    path = _copy(fixture, tmp_path / "w")
    newer = code_schema_version() + 1
    for database in (path, path.with_suffix(".work.duckdb")):
        con = duckdb.connect(str(database))
        con.execute("INSERT INTO meta.schema_migrations (version, name) VALUES (?, 'from_the_future')", [newer])
        con.close()
    before = _digests(path.parent)
    for args in (("export", "dishes", "--out", str(tmp_path / "d.csv")), ("score",), ("publish",)):
        result = run_cli(path, *args, check=False)
        [line] = result.stderr.strip().splitlines()
        assert result.returncode == 2 and line.startswith("error: "), result.stderr
        assert f"schema version {newer} is newer than this code's {code_schema_version()}" in line, line
    after = _digests(path.parent)
    assert {k: v for k, v in after.items() if k != "warehouse.lock"} == before
