"""The frame around every page: the sidebar selection (in the link), the empty states, download buttons."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app import data, fmt
from app.safe import literal
from app.widgets import ALL, mirror, unknown_in_link, url_multiselect, url_select
from warehouse.queries import answers
from warehouse.queries.answers import Filters
from warehouse.version import release

SAMPLE_BANNER = "Sample data: hand-written demo dishes, not a benchmark."
# The embedded bundle (pipeline/datasets/bundle.py) is real data, cut: say how, and how to load it whole.
SUBSET_BANNER = (
    "Embedded bundle of real results — {subset}. For the whole dataset: `make demo DATA=DIR` with a copy of the "
    "public data, or `python -m pipeline data fetch` and then `make demo`."
)

# The one wording of the one definition (marts.origin_scores.no_country), wherever a page shows a
# no-country share or the no-country column.
NO_COUNTRY = (
    "No country: the extraction found no country in the answer: the model named none (or only a broad "
    "region), refused, or answered nothing."
)

NOT_PUBLISHED = (
    "No published warehouse yet at {path}. Build one with `make demo` "
    "(or `python -m pipeline demo`; `python -m pipeline ingest sample` for the small embedded sample), "
    "then reload this page."
)

NO_DATASETS = (
    "The published warehouse at {path} holds no datasets yet. Load one with `make demo` "
    "(or `python -m pipeline demo`), then reload this page."
)


@dataclass(frozen=True)
class Selection:
    """What the sidebar selected; every page reads it through `selection()`."""

    dataset: str
    lang: str | None  # None: all of the dataset's language lists
    languages: tuple[str, ...]
    summary: dict
    filters: Filters | None = None  # task, models, prompt languages; None when nothing is scored
    models: tuple[str, ...] = ()  # every model of the task, for pages that list them all
    prompt_langs: tuple[str, ...] = ()


NO_ANSWERS = (
    "This warehouse holds no scored model answers for this dataset. Pick a dataset with answers in the "
    "sidebar, or import answers with `python -m pipeline import-responses FILE...` and score them with "
    "`python -m pipeline score`."
)


def answered() -> pd.DataFrame:
    """Datasets with scored answers (dataset, n_answers, n_models), most answers first."""
    return data.query(answers.answered_datasets)


def default_dataset(summary: pd.DataFrame) -> str:
    """The dataset the dashboard opens on: the real one with the most scored answers (WorldCuisines in
    the demo), so a first visit lands on model answers; else the first real dataset."""
    real = [str(name) for name, sample in zip(summary["dataset"], summary["is_sample"], strict=True) if not sample]
    for name in answered()["dataset"]:
        if name in real:
            return str(name)
    return real[0] if real else str(summary["dataset"].iloc[0])


def switch_dataset(dataset: str) -> None:
    st.session_state["url_dataset"] = dataset  # a callback: runs before the sidebar selector is drawn


def no_answers(selected: Selection) -> None:
    """The empty state of a page about answers: which datasets do have answers, one click away each."""
    others = answered()
    others = others[others["dataset"] != selected.dataset]
    if others.empty:
        st.info(NO_ANSWERS, icon=":material/info:")
        return
    titles = dict(zip(data.dataset_summary()["dataset"], data.dataset_summary()["title"], strict=True))
    st.info(
        f"No model answers are scored for **{literal(titles.get(selected.dataset, selected.dataset))}** in this "
        "warehouse. These datasets have answers:",
        icon=":material/info:",
    )
    row = st.container(horizontal=True)
    for other in others.itertuples(index=False):
        row.button(
            f"{other.dataset}: {fmt.count(other.n_answers)} answers, {fmt.count(other.n_models)} models",
            key=f"switch_{other.dataset}",
            on_click=switch_dataset,
            args=(str(other.dataset),),
            icon=":material/arrow_forward:",
        )


def answer_filters(dataset: str) -> tuple[Filters | None, tuple[str, ...], tuple[str, ...]]:
    """Task, models and prompt languages for the pages about model answers (sidebar, in the URL)."""
    tasks = data.query(answers.tasks, dataset)
    if not tasks:
        for param in ("task", "models", "langs"):
            if param in st.query_params:
                del st.query_params[param]
        return None, (), ()
    st.sidebar.divider()
    task = url_select("Task", tasks, param="task", what="task")
    all_models, all_langs = task_choices(dataset, task)
    models = url_multiselect(
        "Models", all_models, param="models", format_func=fmt.model, help="None selected: all models."
    )
    langs = url_multiselect(
        "Prompt languages", all_langs, param="langs", format_func=fmt.language, help="None selected: all languages."
    )
    return Filters(dataset=dataset, task=task, models=models, langs=langs), all_models, all_langs


def task_choices(dataset: str, task: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The models and prompt languages with answers to `task`: the choices of the sidebar's two lists."""
    return tuple(data.query(answers.models, dataset, task)), tuple(data.query(answers.prompt_langs, dataset, task))


def read_sidebar(dataset: str) -> None:
    """The warehouse reads `sidebar` makes for `dataset` with its first task, without drawing anything: the
    server's warm-up (app/startup.py) runs them so that the first visitor's sidebar finds them cached."""
    data.languages(dataset)
    data.published_info()
    tasks = data.query(answers.tasks, dataset)
    if tasks:
        task_choices(dataset, tasks[0])


def sidebar() -> Selection | None:
    """Dataset (always in the URL) and, for multi-language datasets, language list selectors.

    None when the published warehouse holds no dataset at all.
    """
    summary = data.dataset_summary()
    if summary.empty:
        return None
    rows = {str(row["dataset"]): row for row in summary.to_dict("records")}
    st.sidebar.title("Dish Atlas")
    dataset = url_select(
        "Dataset",
        list(rows),
        param="dataset",
        default=default_dataset(summary),
        format_func=lambda name: f"{name} (demo sample)" if rows[name]["is_sample"] else name,
        what="dataset",
        keep_default_in_url=True,
    )
    langs = tuple(data.languages(dataset))
    lang = None
    if len(langs) > 1:
        chosen = url_select(
            "Dish list language",
            [ALL, *langs],
            param="lang",
            format_func=lambda lang: "All languages" if lang == ALL else fmt.language(lang),
            what="language",
        )
        lang = chosen or None
    elif "lang" in st.query_params:  # a single-language dataset has no language selector
        del st.query_params["lang"]
    row = rows[dataset]
    filters, all_models, all_langs = answer_filters(dataset)
    st.sidebar.divider()
    st.sidebar.caption(f"**{literal(row['title'])}**  \n{literal(row['home'])}")
    footer()
    selected = Selection(
        dataset=dataset,
        lang=lang,
        languages=langs,
        summary=row,
        filters=filters,
        models=all_models,
        prompt_langs=all_langs,
    )
    st.session_state["_selection"] = selected
    return selected


def footer() -> None:
    """Under the dataset in the sidebar: the release of the code (`python -m pipeline --version`) and the snapshot
    it reads (when it was published, its schema version)."""
    line = f"Dish Atlas {literal(release())}"
    published = data.published_info()
    if not published.empty:
        info = published.iloc[0]
        stamp = pd.Timestamp(info["published_at"]).strftime("%Y-%m-%d %H:%M UTC")
        line += f" · snapshot published {literal(stamp)}, schema v{literal(info['schema_version'])}"
    st.sidebar.caption(line)


def selection() -> Selection:
    """The sidebar selection of the current run (set by app/main.py before the page runs)."""
    return st.session_state["_selection"]


def sample_banner(selected: Selection) -> None:
    if selected.summary.get("is_sample"):
        st.info(SAMPLE_BANNER, icon=":material/science:")
    elif isinstance(subset := selected.summary.get("subset"), str) and subset:
        st.info(SUBSET_BANNER.format(subset=literal(subset)), icon=":material/inventory_2:")


def downloads(frame: pd.DataFrame, stem: str, *, key: str) -> None:
    """CSV and Parquet download buttons for `frame`; the files are built only when clicked."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)
    row = st.container(horizontal=True)
    row.download_button(
        "CSV",
        functools.partial(data.to_csv, frame),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        icon=":material/download:",
        on_click="ignore",
    )
    row.download_button(
        "Parquet",
        functools.partial(data.to_parquet, frame),
        file_name=f"{name}.parquet",
        mime="application/vnd.apache.parquet",
        key=f"{key}_parquet",
        icon=":material/download:",
        on_click="ignore",
    )


def require_answers(selected: Selection) -> Filters:
    """The answer filters, or the empty state (and stop) when the dataset has no scored answers."""
    if selected.filters is None:
        no_answers(selected)
        st.stop()
    return selected.filters


SCORING_METHODS = {
    "atlas": "Ours (country extractor)",
    "paper": "The paper's rule (gold string in the answer)",
}


def scoring_method(container=st.sidebar) -> str:
    """The scoring-method switch shared by the leaderboard and the map, kept in the link as `?method=`:
    `atlas` (ours, the default) or `paper` (the benchmark's own rule, as published). The choice follows
    the user from page to page: a page switch drops the other page's widget state and the query string,
    so it is remembered under a plain session key and handed to the widget on every run."""
    key, remembered = "url_method", "_scoring_method"
    if remembered not in st.session_state:
        raw = st.query_params.get("method") or "atlas"
        if raw not in SCORING_METHODS:
            unknown_in_link(container, "scoring method", [str(raw)], fallback=SCORING_METHODS["atlas"])
            raw = "atlas"
        st.session_state[remembered] = raw
    st.session_state[key] = st.session_state[remembered]
    value = container.selectbox(
        "Scoring method",
        list(SCORING_METHODS),
        key=key,
        format_func=SCORING_METHODS.__getitem__,
        on_change=lambda: st.session_state.__setitem__(remembered, st.session_state[key]),
    )
    mirror("method", None if value == "atlas" else value)
    return value
