"""Links between pages, so every name and every number on a page leads somewhere: a dish name opens
its Dish page, a country its Map view, an aggregate (a leaderboard cell, a bin, a cell) the answers
behind it on the Answers page.

A link is a relative URL to another page of this app (`dish?dataset=…&dish=…`), built from values
with `urlencode`, so nothing from the warehouse can make it point elsewhere; the text a table shows
travels in the fragment (`#Borscht`), which `st.column_config.LinkColumn` displays through the one
regex `SHOWN` (Streamlit decodes the capture group). A link opens in a new tab, i.e. a new session
that reads its state from the link, as every URL-state widget does (app/widgets.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote, unquote, urlencode

import pandas as pd
import streamlit as st

from warehouse.queries.answers import Filters

SHOWN = r"#(.+)$"  # the displayed text of a link: its fragment
DISH_PAGE, MAP_PAGE, ANSWERS_PAGE = "dish", "map", "answers"


def page_url(page: str, params: Mapping[str, object], text: object | None = None) -> str:
    """`page?k=v&…#text`: empty and None parameters are left out; lists are joined by commas (the
    URL-state widgets' own form)."""
    query = {}
    for name, value in params.items():
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        if value is not None and value != "":
            query[name] = str(value)
    url = f"{page}?{urlencode(query)}" if query else page
    return f"{url}#{quote(str(text), safe='')}" if text not in (None, "") else url


def filter_params(filters: Filters | None) -> dict[str, object]:
    """The sidebar's selection as link parameters, so the linked page shows the same answers."""
    if filters is None:
        return {}
    return {"dataset": filters.dataset, "task": filters.task, "models": filters.models, "langs": filters.langs}


def dish_url(dataset: str, dish_key: str, name: object | None = None, filters: Filters | None = None) -> str:
    """The Dish page of `dish_key` (shown as `name`), with the sidebar's task, models and languages."""
    return page_url(DISH_PAGE, {**filter_params(filters), "dataset": dataset, "dish": dish_key}, name or dish_key)


def country_url(dataset: str, country: str, name: object | None = None, filters: Filters | None = None) -> str:
    """The Map page with `country` selected (`?country=XX`)."""
    return page_url(MAP_PAGE, {**filter_params(filters), "dataset": dataset, "country": country}, name or country)


def answers_url(filters: Filters, text: object = "answers", **params: object) -> str:
    """The Answers page listing the answers under `filters` narrowed by `params` (q, dish, gold,
    named, result: the page's own link parameters)."""
    return page_url(ANSWERS_PAGE, {**filter_params(filters), **params}, text)


def with_dish_links(
    frame: pd.DataFrame,
    dataset: str | None,
    *,
    key: str = "dish_key",
    name: str = "dish",
    column: str = "dish",
    filters: Filters | None = None,
) -> pd.DataFrame:
    """`frame` with `column` replaced by (or added as, first) a link to each row's Dish page, shown
    as the row's `name`. `dataset` is one name, a column of names, or None: the dataset each dish key
    names (`borsch:uk:460` is a BORSch dish). A row with a name but no dish key (a one-sided parallel
    pair) links to the Dishes page searching that name, so the name is still shown and leads somewhere."""
    names = frame[name] if name in frame.columns else frame[key]
    if dataset is None:
        datasets = [str(k).split(":", 1)[0] if isinstance(k, str) else None for k in frame[key]]
    elif dataset in frame.columns:
        datasets = frame[dataset].astype(str).tolist()
    else:
        datasets = [dataset] * len(frame)
    urls = [
        dish_url(ds, k, n if isinstance(n, str) and n else k, filters)
        if isinstance(k, str) and k
        else page_url("dishes", {"dataset": ds, "q": n}, n)
        if isinstance(n, str) and n and ds
        else None
        for k, n, ds in zip(frame[key], names, datasets, strict=True)
    ]
    out = frame.copy()
    if column in out.columns:
        out[column] = urls
    else:
        out.insert(0, column, urls)
    return out


def dish_column(
    label: str = "Dish", help: str | None = "Opens the dish's page in a new tab."
) -> st.column_config.Column:
    """The column config of a `with_dish_links` column: the dish's name, linked to its page."""
    return st.column_config.LinkColumn(label, display_text=SHOWN, help=help)


def country_column(
    label: str = "Country", help: str | None = "Opens the country on the Map."
) -> st.column_config.Column:
    return st.column_config.LinkColumn(label, display_text=SHOWN, help=help)


def answers_column(label: str = "Answers", help: str | None = "Lists these answers.") -> st.column_config.Column:
    return st.column_config.LinkColumn(label, display_text=SHOWN, help=help)


def shown_text(url: object) -> object:
    """What a link column displays for `url`: its decoded fragment (anything else as it is)."""
    if not isinstance(url, str) or "#" not in url:
        return url
    return unquote(url.rsplit("#", 1)[1])


def as_shown(frame: pd.DataFrame, columns: tuple[str, ...] | list[str]) -> pd.DataFrame:
    """`frame` with its link `columns` replaced by the text they display: what a download holds, so
    the file is the table as the page shows it (names, not URLs)."""
    return frame.assign(**{column: frame[column].map(shown_text) for column in columns if column in frame.columns})
