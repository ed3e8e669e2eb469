"""What a fresh dashboard server does once, before it takes its first visitor.

`streamlit run app/main.py` finds the `st.App` at the foot of app/main.py and serves it; its
lifespan runs `warm` before the server answers. Without it the first page of a fresh server paid,
inside its first run: importing pandas, pyarrow, pydeck, babel and the app's modules (0.7 s of CPU
idle, several seconds on a loaded machine), opening the published snapshot and the sidebar's first
query. Nothing here draws or decides anything: a server that cannot warm up (no published
warehouse yet, an old one) starts the same and shows the page's own message.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from collections.abc import AsyncIterator
from typing import Any

import duckdb

# The modules the pages import (the Live probe's model code stays lazy: it loads a model).
MODULES = (
    "pyarrow",
    "pydeck",
    "app.charts",
    "app.dashboard",
    "app.data",
    "app.dish_links",
    "app.fmt",
    "app.linked",
    "app.links",
    "app.maps",
    "app.ui",
    "app.vega",
    "app.widgets",
    "warehouse.queries",
)


def warm() -> None:
    """Import what every page needs and open the published snapshot (with the query the sidebar
    runs first), so that the first visitor's page finds them in memory and in the query cache."""
    for name in MODULES:
        importlib.import_module(name)
    queries = importlib.import_module("warehouse.queries")
    for module in pkgutil.iter_modules(queries.__path__):
        importlib.import_module(f"warehouse.queries.{module.name}")

    from app import data
    from warehouse.db import NotPublished

    with contextlib.suppress(NotPublished, duckdb.Error):
        data.dataset_summary()


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """`st.App`'s lifespan: warm up, then serve."""
    warm()
    yield
