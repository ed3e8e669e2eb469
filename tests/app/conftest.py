"""Shared set-up of the dashboard tests. AppTest runs share one process and with it Streamlit's caches:
the app keys every cached connection and query by the snapshot file's identity (path, mtime, inode, size,
see app/data.py), so tests reading the same real warehouse reuse each other's query results, as a user's
server does, and a test that writes or picks another warehouse gets fresh ones."""

from __future__ import annotations

from pathlib import Path

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
    wanted = page_hash(page)
    if wanted is not None:  # the first run opens the page, as a browser's link to it does (see page_hash)
        at._page_hash = wanted
    at.run()
    if wanted is not None:
        assert at._finished_page_script_hash == wanted, f"{page} did not run: is it still in app/dashboard.py VIEWS?"
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_hash(page: str) -> str | None:
    """The hash Streamlit gives the page `page` ("views/NAME.py") of the navigation (`st.Page` hashes its URL path);
    None for the default page, the one a first run opens anyway.

    AppTest's own way there (`switch_page`) needs a run first, which ran the main script and its default page, the
    overview, before every page a test opened: 0.12-0.20 CPU-s a page, against 0.05-0.07 for a run that asks for the
    page by its hash (warm, the components' scan cached: tests/conftest.py). That run is the main script and that
    page alone, as opening the page's link is."""
    from streamlit.util import calc_hash

    from app.dashboard import VIEWS

    url_path = VIEWS[Path(page).stem].url_path
    return calc_hash(url_path) if url_path else None
