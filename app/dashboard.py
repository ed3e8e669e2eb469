"""The dashboard's frame, run by app/main.py on every page view: the pages are declared here, once;
the sidebar (dataset, language), the sample banner and the empty state are drawn here, around
whichever page runs.

The page scripts live in app/views/, not app/pages/: a `pages/` folder beside the entry point
switches Streamlit to its legacy multipage mode until `st.navigation` first runs in the process
(and for every AppTest run), which runs a page file on its own, without this frame.
"""

from dataclasses import dataclass
from pathlib import Path

import duckdb
import streamlit as st

from app import data, preload, ui
from app.safe import code, literal
from warehouse.db import NotPublished, WarehouseError
from warehouse.registry import Registry

ROOT = Path(__file__).resolve().parent.parent
VIEWS_DIR = ROOT / "app" / "views"


@dataclass(frozen=True)
class View:
    """One page of the dashboard: its script in app/views/, its section of the navigation, its title and icon, its
    URL path ("" for the default page) and what it draws on arrival, so that the browser fetches those parts of
    Streamlit's frontend while the page's first run computes (app/preload.py)."""

    script: str
    section: str
    title: str
    icon: str
    url_path: str
    draws: tuple[preload.Kind, ...] = ()


# The navigation's sections, in order, for the people who read them: what the loaded answers show, the answers and
# dishes themselves, one section per study, how the scores are made, and the tools.
SECTIONS = ("Findings", "Explore", "BORSch", "ZNO-Vision", "CultureMix", "WorldCuisines", "Methods", "Tools")
# The pages, in the navigation's order (the same `Registry` form as every pluggable kind, keyed by script name):
# adding a page adds its script and one line here.
VIEWS: Registry[View] = Registry("page", ordered=True)
for _view in (
    View("overview.py", "Findings", "What models believe", ":material/insights:", "", ("chart", "table")),
    View("map.py", "Findings", "Map", ":material/public:", "map", ("map", "table")),
    View("language_pull.py", "Findings", "Language pull", ":material/translate:", "language-pull", ("chart", "table")),
    View("compare.py", "Findings", "Compare models", ":material/compare:", "compare", ("chart", "table")),
    View("consistency.py", "Findings", "Consistency", ":material/sync_alt:", "consistency", ("chart", "table")),
    View("answers.py", "Explore", "Answers", ":material/search:", "answers", ("table",)),
    View("dishes.py", "Explore", "Dishes", ":material/restaurant_menu:", "dishes", ("table",)),
    View("dish.py", "Explore", "Dish", ":material/ramen_dining:", "dish", ("table",)),
    View("confusion.py", "Explore", "Confusion", ":material/grid_on:", "confusion", ("chart", "table")),
    View("borsch_paper.py", "BORSch", "BORSch paper", ":material/menu_book:", "borsch-paper", ("chart", "table")),
    View("cooccurrence.py", "BORSch", "Co-occurrence", ":material/hub:", "cooccurrence", ("chart", "table")),
    View("codemix.py", "BORSch", "Code mixing", ":material/compare_arrows:", "codemix", ("chart", "table")),
    View("review.py", "BORSch", "Corpus review", ":material/rate_review:", "review"),
    View("imagined.py", "BORSch", "Imagined dishes", ":material/palette:", "imagined", ("chart", "table")),
    View("zno.py", "ZNO-Vision", "ZNO exam", ":material/school:", "zno", ("chart", "table")),
    View("captions.py", "ZNO-Vision", "Captions", ":material/closed_caption:", "captions", ("table",)),
    View("vqa.py", "ZNO-Vision", "VQA UA vs EN", ":material/quiz:", "vqa", ("table",)),
    View("uacuisine.py", "ZNO-Vision", "UACUISINE", ":material/soup_kitchen:", "uacuisine", ("table",)),
    View("language_switching.py", "ZNO-Vision", "Language switching", ":material/g_translate:", "language-switching",
         ("table",)),
    View("culturemix.py", "CultureMix", "Culture mix", ":material/blender:", "culture-mix", ("chart", "table")),
    View("dish_names.py", "WorldCuisines", "Dish names", ":material/label:", "dish-names", ("chart", "table")),
    View("language_gap.py", "WorldCuisines", "Language gap", ":material/trending_down:", "language-gap",
         ("chart", "table")),
    View("method_audit.py", "Methods", "Method audit", ":material/fact_check:", "method-audit", ("table",)),
    View("finetune.py", "Methods", "Fine-tuning", ":material/model_training:", "fine-tuning", ("chart", "table")),
    View("probe.py", "Tools", "Live probe", ":material/science:", "probe"),
):  # fmt: skip
    VIEWS.add(_view.script.removesuffix(".py"), _view)
# What each page draws on arrival, by URL path (app/preload.py).
DRAWS: dict[str, tuple[preload.Kind, ...]] = {view.url_path: view.draws for view in VIEWS.values() if view.draws}


def pages() -> dict[str, list[st.Page]]:
    """The pages of `VIEWS` by section (built in each run: st.Page belongs to a script run); the first is the
    default."""
    sections: dict[str, list[st.Page]] = {section: [] for section in SECTIONS}
    for view in VIEWS.values():
        sections[view.section].append(
            st.Page(
                VIEWS_DIR / view.script,
                title=view.title,
                icon=view.icon,
                url_path=view.url_path or None,
                default=not view.url_path,
            )
        )
    return {section: listed for section, listed in sections.items() if listed}


def not_published() -> None:
    st.warning(ui.NOT_PUBLISHED.format(path=code(data.warehouse_path())), icon=":material/database_off:")


def main() -> None:
    with data.one_snapshot():  # one snapshot for the whole run, whatever a publish renames into place meanwhile
        _main()


def _main() -> None:
    # A local favicon: a material-icon page_icon makes the browser fetch it from a font CDN.
    st.set_page_config(page_title="Dish Atlas", page_icon=str(ROOT / "assets" / "favicon.png"), layout="wide")
    page = st.navigation(pages(), position="top")  # sections as menus across the top: no list past the fold
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
    except WarehouseError as exc:  # e.g. a DISH_ATLAS_DUCKDB_THREADS the connection cannot be opened with
        st.error(literal(str(exc)))
    except duckdb.Error as exc:
        st.error(
            f"Could not read the published warehouse at {code(data.warehouse_path())}: {literal(exc)}  \n"
            "It may predate this version of the app; rebuild it with `make demo` "
            "(or `python -m pipeline demo`)."
        )
