"""Dish Atlas dashboard: `streamlit run app/main.py`.

Reads only the `marts.*` tables of the published warehouse snapshot (see app/data.py). The
pages are declared here, once; the sidebar (dataset, language), the sample banner and the
empty state are drawn here, around whichever page runs.

The page scripts live in app/views/, not app/pages/: a `pages/` folder beside the entry point
switches Streamlit to its legacy multipage mode until `st.navigation` first runs in the process
(and for every AppTest run), which runs a page file on its own, without this frame.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run` puts only app/ on the path
    sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import streamlit as st  # noqa: E402

from app import data, ui  # noqa: E402
from warehouse.db import NotPublished  # noqa: E402

VIEWS_DIR = Path(__file__).resolve().parent / "views"
PAGES = [
    st.Page(VIEWS_DIR / "overview.py", title="Overview", icon=":material/insights:", default=True),
    st.Page(VIEWS_DIR / "dishes.py", title="Dishes", icon=":material/restaurant_menu:"),
]


def not_published() -> None:
    st.warning(ui.NOT_PUBLISHED.format(path=data.warehouse_path()), icon=":material/database_off:")


def main() -> None:
    st.set_page_config(page_title="Dish Atlas", page_icon=":material/public:", layout="wide")
    page = st.navigation(PAGES)
    try:
        data.snapshot()
    except NotPublished:
        not_published()  # the empty state: this warning and nothing else, on every page
        return
    try:
        selected = ui.sidebar()
        if selected is None:
            st.warning(ui.NO_DATASETS.format(path=data.warehouse_path()), icon=":material/database_off:")
            return
        ui.sample_banner(selected)
        page.run()
    except NotPublished:  # the snapshot vanished mid-run
        not_published()
    except duckdb.Error as exc:
        st.error(
            f"Could not read the published warehouse at `{data.warehouse_path()}`: {exc}  \n"
            "It may predate this version of the app; rebuild it with `make demo` "
            "(or `python -m pipeline demo`)."
        )


main()
