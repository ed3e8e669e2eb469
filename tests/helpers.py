"""Helpers for tests: the CLI as a user runs it, and read-only queries on warehouse files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa

REPO = Path(__file__).resolve().parent.parent


def cli_environment() -> dict[str, str]:
    """The environment of a user's shell without the variables that would point the CLI elsewhere."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISH_ATLAS_WAREHOUSE", "DATA")}
    env["COLUMNS"] = "200"  # rich wraps at the terminal width; keep messages on one line
    return env


def cli_arguments(warehouse: Path, *args: str) -> list[str]:
    """What follows `python -m pipeline` for a command on `warehouse`."""
    return ["--warehouse", str(warehouse), *args]


def cli_command(warehouse: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pipeline", *cli_arguments(warehouse, *args)]


def run_cli(warehouse: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`python -m pipeline --warehouse W ARGS` in a process of its own (forked with its libraries imported:
    tests/cli_process.py)."""
    from tests import cli_process

    result = cli_process.run(cli_arguments(warehouse, *args), cwd=REPO, env=cli_environment(), timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"pipeline {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    return result


def started_cli(warehouse: Path, *args: str, env: dict[str, str] | None = None):
    """`python -m pipeline --warehouse W ARGS` running (tests/cli_process.py `started`): read its error output as it
    comes with `.lines()`, SIGKILL it with `.kill()`."""
    from tests import cli_process

    return cli_process.started(cli_arguments(warehouse, *args), cwd=REPO, env=env or cli_environment())


def query(path: Path, sql: str, params: list | None = None) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def shown(markdown: str) -> str:
    """What a reader sees of markdown written with app.safe.literal(): CommonMark shows a
    backslash-escaped punctuation character as the character itself, and the word joiner is invisible."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


def copy_warehouse(template: Path, target: Path) -> Path:
    """The published snapshot and the working database of `template`, copied to `target` (and its working database
    beside it), with the `models` folder `demo` keeps beside them (its tiny vision model: without it a rerun builds
    another)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, target)
    shutil.copyfile(template.with_suffix(".work" + template.suffix), target.with_suffix(".work" + target.suffix))
    models = template.with_name("models")
    if models.is_dir():
        shutil.copytree(models, target.with_name("models"), dirs_exist_ok=True)
    return target


def vega_rows(chart) -> list[dict]:
    """The rows a Vega-Lite chart element (AppTest `vega_lite_chart`) draws, all its layers together:
    the spec's inline `data.values` and whatever Streamlit moved out of the spec into Arrow data
    (it does for charts with a selection)."""

    def inline(spec: dict) -> list[dict]:
        rows = list(spec.get("data", {}).get("values", []))
        for layer in spec.get("layer", []):
            rows += inline(layer)
        return rows

    rows = inline(json.loads(chart.proto.spec))
    arrow = [chart.proto.data.data] if chart.proto.HasField("data") else []
    for table in [*arrow, *(dataset.data.data for dataset in chart.proto.datasets)]:
        rows += pa.ipc.open_stream(table).read_all().to_pylist()
    return rows


SVG_NS = "{http://www.w3.org/2000/svg}"
SVG_DATA = "data:image/svg+xml;base64,"


def svg_maps(at) -> list:
    """The small maps an AppTest run drew (st.image of an SVG: app/maps.py origins_map), parsed."""
    import base64
    from xml.etree import ElementTree

    urls = [url for image in at.get("image") for url in image.value if url.startswith(SVG_DATA)]
    return [ElementTree.fromstring(base64.b64decode(url[len(SVG_DATA) :])) for url in urls]
