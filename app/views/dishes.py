"""Dishes: search the selected dataset's dishes, filter by origin country, download the rows."""

import streamlit as st

from app import data, ui, widgets

COLUMNS = ["dish_id", "name", "display_name", "origins", "source", "names_ru", "names_uk", "names_en"]

selected = ui.selection()

st.title("Dishes")

origin = data.dishes_per_origin(selected.dataset, selected.lang).sort_values("country_name")
names = dict(zip(origin["country"], origin["country_name"], strict=True))
search_col, country_col = st.columns([3, 2])
search = widgets.url_text("Search", param="q", placeholder="name in any language, or id", container=search_col)
country = widgets.url_select(
    "Origin country",
    [widgets.ALL, *names],
    param="country",
    format_func=lambda code: "All countries" if code == widgets.ALL else f"{names[code]} ({code})",
    what="origin country",
    container=country_col,
)

rows = data.dishes(selected.dataset, lang=selected.lang, country=country or None, search=search or None)
columns = (["lang"] if selected.lang is None and len(selected.languages) > 1 else []) + COLUMNS
shown = rows[columns]

count = f"{len(shown):,} dish" + ("" if len(shown) == 1 else "es")
if len(shown) >= data.DISH_LIMIT:
    count = f"first {count}"
st.caption(count)
st.dataframe(shown, hide_index=True)
stem = "_".join([selected.dataset, selected.lang or "all", country or "all-countries", "dishes"])
ui.downloads(shown, stem, key="dishes")
