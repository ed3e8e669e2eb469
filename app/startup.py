"""What a fresh dashboard server does once, before it takes its first visitor.

`streamlit run app/main.py` finds the `st.App` at the foot of app/main.py and serves it; its
lifespan runs `warm` before the server answers. Without it the first page of a fresh server paid,
inside its first run: importing pandas, pyarrow, pydeck, babel and the app's modules (0.7 s of CPU
idle, several seconds on a loaded machine), opening the published snapshot and the sidebar's first
query. Nothing here draws or decides anything: a server that cannot warm up (no published
warehouse yet, an old one, a bad DISH_ATLAS_DUCKDB_THREADS) starts the same and shows the page's own message.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
from collections.abc import AsyncIterator
from typing import Any

import duckdb


def warm() -> None:
    """Import what every page needs and open the published snapshot, so that the first visitor's
    page finds them in memory and in the caches: the sidebar's queries for the default dataset, the
    map outlines (read once per snapshot for every map: 0.3–0.7 s) and babel's English locale data
    (the language names of the sidebar and tables: 0.1–0.2 s). All of it is shared by every visitor,
    whatever page or dish they open. The imports are the pages' own (the Live probe's model code
    stays lazy: it loads a model)."""
    import pyarrow  # noqa: F401
    import pydeck  # noqa: F401

    import warehouse.queries.about_dish
    import warehouse.queries.answers
    import warehouse.queries.borsch
    import warehouse.queries.compare
    import warehouse.queries.confusion
    import warehouse.queries.consistency
    import warehouse.queries.corpus
    import warehouse.queries.culturemix
    import warehouse.queries.culturemix_paper
    import warehouse.queries.dish
    import warehouse.queries.findings
    import warehouse.queries.finetune
    import warehouse.queries.geo
    import warehouse.queries.imagined
    import warehouse.queries.language
    import warehouse.queries.language_gap
    import warehouse.queries.linked
    import warehouse.queries.methods
    import warehouse.queries.names
    import warehouse.queries.probe
    import warehouse.queries.published_tables
    import warehouse.queries.search
    import warehouse.queries.templates
    import warehouse.queries.zno  # noqa: F401
    from app import (  # noqa: F401
        charts,
        dashboard,
        data,
        dish_links,
        empty_study,
        findings,
        fmt,
        linked,
        links,
        maps,
        ui,
        vega,
        widgets,
    )
    from warehouse.db import WarehouseError

    with contextlib.suppress(WarehouseError, duckdb.Error):  # not published, or a bad setting: the page says which
        summary = data.dataset_summary()
        if not summary.empty:
            ui.read_sidebar(ui.default_dataset(summary))
        maps.outlines()
    fmt.language_name("en")  # babel's English locale data (the sidebar's language names)
    # Streamlit's first element of a process walks the stack (`inspect.stack()`, its "not run with
    # `streamlit run`" check), and inspect maps every loaded module to its file on its first lookup
    # (0.1–0.2 s of the first page's run): map them now.
    inspect.getmodule(inspect.currentframe())
    # Streamlit collects all garbage after every run of every page (`runner.postScriptGC`): 0.1–0.3 s
    # holding the interpreter lock, most of it walking the ~150,000 objects loaded here, which live as
    # long as the server. Freezing them keeps them out of those collections.
    gc.freeze()


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """`st.App`'s lifespan: warm up, then serve."""
    warm()
    yield
