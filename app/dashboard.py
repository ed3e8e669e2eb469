"""The dashboard's frame, run by app/main.py on every page view: the pages are declared here, once;
the sidebar (dataset, language), the sample banner and the empty state are drawn here, around
whichever page runs.

The page scripts live in app/views/, not app/pages/: a `pages/` folder beside the entry point
switches Streamlit to its legacy multipage mode until `st.navigation` first runs in the process
(and for every AppTest run), which runs a page file on its own, without this frame.
"""

from pathlib import Path

import duckdb
import streamlit as st

from app import data, preload, ui
from app.safe import code, literal
from warehouse.db import NotPublished

ROOT = Path(__file__).resolve().parent.parent
VIEWS_DIR = ROOT / "app" / "views"


def pages() -> list[st.Page]:
    """The pages, in the navigation's order (built in each run: st.Page belongs to a script run)."""
    return [
        st.Page(VIEWS_DIR / "overview.py", title="Overview", icon=":material/insights:", default=True),
        st.Page(VIEWS_DIR / "map.py", title="Map", icon=":material/public:", url_path="map"),
        st.Page(VIEWS_DIR / "confusion.py", title="Confusion", icon=":material/grid_on:", url_path="confusion"),
        st.Page(
            VIEWS_DIR / "language_pull.py", title="Language pull", icon=":material/translate:", url_path="language-pull"
        ),
        st.Page(VIEWS_DIR / "answers.py", title="Answers", icon=":material/search:", url_path="answers"),
        st.Page(VIEWS_DIR / "compare.py", title="Compare", icon=":material/compare:", url_path="compare"),
        st.Page(VIEWS_DIR / "consistency.py", title="Consistency", icon=":material/sync_alt:", url_path="consistency"),
        st.Page(
            VIEWS_DIR / "method_audit.py", title="Method audit", icon=":material/fact_check:", url_path="method-audit"
        ),
        st.Page(
            VIEWS_DIR / "language_switching.py",
            title="Language switching",
            icon=":material/g_translate:",
            url_path="language-switching",
        ),
        st.Page(VIEWS_DIR / "dish.py", title="Dish", icon=":material/ramen_dining:", url_path="dish"),
        st.Page(VIEWS_DIR / "dishes.py", title="Dishes", icon=":material/restaurant_menu:", url_path="dishes"),
        st.Page(VIEWS_DIR / "dish_names.py", title="Dish names", icon=":material/label:", url_path="dish-names"),
        st.Page(VIEWS_DIR / "cooccurrence.py", title="Co-occurrence", icon=":material/hub:", url_path="cooccurrence"),
        st.Page(VIEWS_DIR / "codemix.py", title="Code mixing", icon=":material/compare_arrows:", url_path="codemix"),
        st.Page(VIEWS_DIR / "imagined.py", title="Imagined dishes", icon=":material/palette:", url_path="imagined"),
        st.Page(VIEWS_DIR / "review.py", title="Review", icon=":material/rate_review:", url_path="review"),
        st.Page(VIEWS_DIR / "culturemix.py", title="Culture mix", icon=":material/blender:", url_path="culture-mix"),
        st.Page(VIEWS_DIR / "probe.py", title="Live probe", icon=":material/science:", url_path="probe"),
    ]


# What each page draws on arrival (by url_path), so that the browser fetches those parts of
# Streamlit's frontend while the page's first run computes (app/preload.py).
DRAWS: dict[str, tuple[preload.Kind, ...]] = {
    "": ("chart", "table"),  # Overview
    "map": ("map", "table"),
    "confusion": ("chart", "table"),
    "language-pull": ("chart", "table"),
    "answers": ("table",),
    "compare": ("chart", "table"),
    "consistency": ("chart", "table"),
    "method-audit": ("table",),
    "language-switching": ("table",),
    "dish": ("table",),
    "dishes": ("table",),
    "dish-names": ("chart", "table"),
    "cooccurrence": ("chart", "table"),
    "codemix": ("chart", "table"),
    "imagined": ("chart", "table"),
    "culture-mix": ("chart", "table"),
}


def not_published() -> None:
    st.warning(ui.NOT_PUBLISHED.format(path=code(data.warehouse_path())), icon=":material/database_off:")


def main() -> None:
    # A local favicon: a material-icon page_icon makes the browser fetch it from a font CDN.
    st.set_page_config(page_title="Dish Atlas", page_icon=str(ROOT / "assets" / "favicon.png"), layout="wide")
    page = st.navigation(pages())
    loading = preload.start(DRAWS.get(page.url_path, ()))
    try:
        data.snapshot()
    except NotPublished:
        preload.done(loading)
        not_published()  # the empty state: this warning and nothing else, on every page
        return
    try:
        try:
            selected = ui.sidebar()
        finally:  # the browser has begun loading them; and a page may end in st.stop(), after which nothing is sent
            preload.done(loading)
        if selected is None:
            st.warning(ui.NO_DATASETS.format(path=code(data.warehouse_path())), icon=":material/database_off:")
            return
        ui.sample_banner(selected)
        page.run()
    except NotPublished:  # the snapshot vanished mid-run
        not_published()
    except duckdb.Error as exc:
        st.error(
            f"Could not read the published warehouse at {code(data.warehouse_path())}: {literal(exc)}  \n"
            "It may predate this version of the app; rebuild it with `make demo` "
            "(or `python -m pipeline demo`)."
        )
