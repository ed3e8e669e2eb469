"""Adding a study, as a contributor would: a copy of the project gets a toy dataset module, its task file and its
page, plus one registration line for the dataset and one for the page, and nothing else. The copy then ingests
the toy's files, knows its task, publishes, exports its dishes and draws its page: no other file needed a change."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import REPO
from tests.helpers import shown as markdown_shown

DATASET_MODULE = '''
"""Toy: three dishes with their countries of origin, one CSV (a study added in a test)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from pipeline.core.text import display_name
from pipeline.datasets import DATASETS
from pipeline.datasets.base import Dataset, no_items
from pipeline.datasets.common import (
    DatasetInfo, IngestResult, already_loaded, clean, delete_dataset_dishes, dish_key, name_row, read_csv,
    record_dataset, record_source, sha256_files,
)
from warehouse.io import insert, transaction

DATASET = DatasetInfo(dataset="toy", title="Toy study", home="a test", license="MIT")


def ingest(con: duckdb.DuckDBPyConnection, source: Path, run_id: str, force: bool = False) -> IngestResult:
    path = source / "toy.csv"
    sha = sha256_files([path])
    if already_loaded(con, sha, "toy") and not force:
        return IngestResult("toy", skipped=True)
    dishes, names, origins = [], [], []
    for record in read_csv(path, ["dish_id", "name", "origin"]):
        key = dish_key("toy", "en", clean(record["dish_id"]))
        name = clean(record["name"])
        dishes.append({"dish_key": key, "dataset": "toy", "lang": "en", "dish_id": clean(record["dish_id"]),
                       "name": name, "display_name": display_name(name), "source": "toy", "description": None})
        names.append(name_row(key, "en", name, is_primary=True))
        origins.append({"dish_key": key, "country": clean(record["origin"]), "position": 0})
    with transaction(con):
        record_dataset(con, DATASET)
        delete_dataset_dishes(con, "toy")
        insert(con, "core.dishes", dishes)
        insert(con, "core.dish_names", names)
        insert(con, "core.dish_origins", origins)
        record_source(con, sha256=sha, kind="toy", path=path, rows_loaded=len(dishes), run_id=run_id)
    return IngestResult("toy", counts={"dishes": len(dishes)})


DATASETS.add("toy", Dataset(DATASET, lambda: [], ingest, no_items))
'''

TASK_FILE = """
dataset = "toy"

[tasks.origin_qa]
modality = "text"
inputs = "name"
answer_kind = "countries"
extractor = "countries"
metrics = ["jaccard"]
langs = ["en"]
description = "Where is this toy dish from?"

[tasks.origin_qa.prompts.en]
1 = "Which country is {dish} from?"
"""

VIEW = '''
"""Toy: the toy study's dishes."""

import streamlit as st

from app import data
from app.safe import literal

st.title("Toy dishes")
rows = data.dishes("toy").sort_values("name")
for name, origins in zip(rows["name"], rows["origins"], strict=True):
    st.markdown(literal(f"{name}: {origins}"))
'''

# The two registration lines, each added after an existing line of its registry.
REGISTRATIONS = {
    "pipeline/datasets/__init__.py": ('    "culturemix": "pipeline.datasets.culturemix",\n',
                                      '    "toy": "pipeline.datasets.toy",\n'),
    "app/dashboard.py": (
        '    View("overview.py", "Findings", "What models believe", ":material/insights:", "", ("chart", "table")),\n',
        '    View("toy.py", "Explore", "Toy", ":material/science:", "toy", ("table",)),\n',
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def project_with_a_toy_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("project")
    for folder in ("pipeline", "warehouse", "app", "assets", ".streamlit"):
        shutil.copytree(REPO / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    (copy / "pipeline/datasets/toy.py").write_text(DATASET_MODULE, encoding="utf-8")
    (copy / "pipeline/tasks/toy.toml").write_text(TASK_FILE, encoding="utf-8")
    (copy / "app/views/toy.py").write_text(VIEW, encoding="utf-8")
    for file, (anchor, line) in REGISTRATIONS.items():
        text = (copy / file).read_text(encoding="utf-8")
        assert text.count(anchor) == 1, f"{file}: the registration anchor moved"
        (copy / file).write_text(text.replace(anchor, anchor + line), encoding="utf-8")
    data = copy / "toy-data"
    data.mkdir()
    (data / "toy.csv").write_text("dish_id,name,origin\n1,Borscht,UA\n2,Paella,ES\n3,Pierogi,PL\n", encoding="utf-8")
    return copy


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DISH_ATLAS_WAREHOUSE", "DATA", "PYTHONPATH")}
    command = [sys.executable, "-m", "pipeline", "--warehouse", str(project / "w.duckdb"), *args]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=300)


def test_a_toy_study_runs_with_its_module_task_file_and_page_alone(project_with_a_toy_study: Path) -> None:
    project = project_with_a_toy_study
    ingested = _cli(project, "ingest", "toy", "--source", str(project / "toy-data"))
    assert ingested.returncode == 0, ingested.stderr
    assert "toy: loaded 3 dishes" in " ".join(ingested.stderr.split())

    exported = _cli(project, "export", "dishes", "--format", "csv")
    assert exported.returncode == 0, exported.stderr
    assert [line.split(",")[:4] for line in exported.stdout.splitlines() if line.startswith("toy,")] == [
        ["toy", "en", "1", "Borscht"],
        ["toy", "en", "2", "Paella"],
        ["toy", "en", "3", "Pierogi"],
    ]

    known = subprocess.run(
        [sys.executable, "-c", "from pipeline.tasks import get_task; print(get_task('toy.origin_qa').metrics)"],
        cwd=project, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert known.stdout.strip() == "('jaccard',)", known.stderr

    page = textwrap.dedent(
        """
        import json, sys
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file("app/main.py", default_timeout=60)
        at.run()
        at.switch_page("views/toy.py").run()
        print(json.dumps({"errors": [str(e.value) for e in at.exception],
                          "text": [m.value for m in at.markdown], "title": [t.value for t in at.title]}))
        """
    )
    env = {**os.environ, "DISH_ATLAS_WAREHOUSE": str(project / "w.duckdb")}
    drawn = subprocess.run([sys.executable, "-c", page], cwd=project, env=env, capture_output=True, text=True,
                           timeout=180)  # fmt: skip
    assert drawn.returncode == 0, drawn.stderr
    shown = json.loads(drawn.stdout.strip().splitlines()[-1])
    assert shown["errors"] == []
    assert "Toy dishes" in shown["title"]
    assert [markdown_shown(text) for text in shown["text"]] == ["Borscht: UA", "Paella: ES", "Pierogi: PL"]
