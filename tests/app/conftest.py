"""Shared set-up of the dashboard tests. AppTest runs share one process and with it Streamlit's caches:
the app keys every cached connection and query by the snapshot file's identity (path, mtime, inode, size,
see app/data.py), so tests reading the same real warehouse reuse each other's query results, as a user's
server does, and a test that writes or picks another warehouse gets fresh ones."""

from __future__ import annotations

import pytest


@pytest.fixture
def warehouse_path(real_warehouse, monkeypatch: pytest.MonkeyPatch):
    """The app reads the real demo warehouse (BORSch + WorldCuisines, 12 models' answers)."""
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))
    return real_warehouse


def open_page(page: str, timeout: int = 60, **params: str):
    """The dashboard on `page` (e.g. "views/confusion.py") with link parameters; WorldCuisines by default."""
    from streamlit.testing.v1 import AppTest

    from tests.helpers import REPO

    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=timeout)
    at.query_params["dataset"] = "worldcuisines"
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at
