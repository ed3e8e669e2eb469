"""Shared set-up of the dashboard tests: AppTest runs share one process, and st.cache_data /
st.cache_resource live as long as it does, so every test starts and ends with empty caches."""

from __future__ import annotations

import pytest
import streamlit as st


@pytest.fixture(autouse=True)
def fresh_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


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
