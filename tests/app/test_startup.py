"""A fresh dashboard server warms up before its first visitor, and each page has the browser load
the frontend parts it draws while its first run computes (issue 13: cold first draws)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest
from streamlit.web.server.app_discovery import discover_asgi_app

from app import dashboard
from tests.app.conftest import open_page
from tests.helpers import REPO

MAIN = REPO / "app" / "main.py"


def in_fresh_process(code: str, warehouse: Path) -> str:
    """Run `code` in a new interpreter (this one has imported everything already) against `warehouse`: its
    standard output, once it has exited 0."""
    env = {**os.environ, "DISH_ATLAS_WAREHOUSE": str(warehouse)}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def warm_in_fresh_process(warehouse: Path) -> dict:
    """Run `startup.warm()` in a new interpreter: the modules it leaves imported."""
    code = (
        "import json, sys\n"
        "from app import startup\n"
        "startup.warm()\n"
        "print(json.dumps(sorted(name for name in sys.modules if name.split('.')[0] in "
        "{'pandas', 'pyarrow', 'pydeck', 'babel', 'app', 'warehouse'})))\n"
    )
    return set(json.loads(in_fresh_process(code, warehouse).strip().splitlines()[-1]))


def test_streamlit_run_serves_main_as_an_app_with_a_warm_up():
    """`streamlit run app/main.py` finds the st.App in the file and serves it (with its lifespan)."""
    found = discover_asgi_app(MAIN)
    assert found.is_asgi_app and found.app_name == "server"


def test_the_warm_up_imports_what_the_pages_import(real_warehouse: Path):
    loaded = warm_in_fresh_process(real_warehouse)
    for module in ("pandas", "pyarrow", "pydeck", "app.maps", "app.ui", "app.vega", "app.dashboard"):
        assert module in loaded
    queries = {f"warehouse.queries.{path.stem}" for path in (REPO / "warehouse" / "queries").glob("[!_]*.py")}
    assert len(queries) >= 16 and queries <= loaded  # every query module, a new one too


def test_the_warm_up_leaves_the_shared_reads_of_a_first_page_in_the_caches(real_warehouse: Path):
    """After the warm-up, the map outlines, the sidebar's queries for the default dataset and babel's
    English names are served without touching the warehouse again, and the objects loaded so far are
    frozen (Streamlit collects garbage after every run: they would be walked each time)."""
    code = (
        "from app import data, fmt, maps, startup, ui\n"
        "from warehouse.queries import answers\n"
        "startup.warm()\n"
        "def closed(*args, **kwargs):\n"
        "    raise AssertionError('queried the warehouse again')\n"
        "data._query = closed\n"
        "assert maps.outlines().polygons['UA']\n"
        "dataset = ui.default_dataset(data.dataset_summary())\n"
        "tasks = data.query(answers.tasks, dataset)\n"
        "assert tasks and data.query(answers.models, dataset, tasks[0])\n"
        "assert data.query(answers.prompt_langs, dataset, tasks[0])\n"
        "data.languages(dataset), data.published_info()\n"
        "import babel.localedata\n"
        "assert 'en' in babel.localedata._cache\n"
        "import gc\n"
        "assert gc.get_freeze_count() > 100_000  # what the warm-up loaded stays out of Streamlit's collections\n"
        "print('cached')\n"
    )
    assert in_fresh_process(code, real_warehouse).strip().endswith("cached")


def test_a_server_without_a_published_warehouse_still_warms_up(tmp_path: Path):
    assert "app.dashboard" in warm_in_fresh_process(tmp_path / "none.duckdb")


def url_paths() -> None:
    """A script listing the pages' url paths (st.Page is built inside a script run)."""
    import json

    import streamlit as st

    from app import dashboard

    st.text(json.dumps([page.url_path for section in dashboard.pages().values() for page in section]))


def test_every_page_named_in_draws_is_a_page():
    """The first-draw hints are keyed by the pages' url paths: a renamed page must not lose its hint."""
    at = AppTest.from_function(url_paths).run()
    paths = json.loads(at.text[0].value)
    assert len(set(paths)) == len(paths) == len(dashboard.VIEWS)  # every view a page of its own path
    assert set(dashboard.DRAWS) <= set(paths)
    assert "map" in dashboard.DRAWS["map"]
    assert "map" not in dashboard.DRAWS["dish"]  # its small map is an SVG image: no deck.gl script to load early


def test_the_hints_are_gone_once_the_page_has_drawn(warehouse_path: Path):
    """The tiny elements sent first are removed: the sidebar holds no map, chart or table, and the Map
    page draws one map."""
    for page, draws in (("views/map.py", "deck_gl_json_chart"), ("views/overview.py", "vega_lite_chart")):
        at = open_page(page)
        kinds = {node.type for node in at.sidebar}
        assert not kinds & {"deck_gl_json_chart", "vega_lite_chart", "dataframe"}
        assert len(at.get(draws)) >= 1
        assert len(at.get("deck_gl_json_chart")) == (1 if page == "views/map.py" else 0)
