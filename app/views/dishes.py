"""Dishes: search the selected dataset's dishes, filter by origin country and by whether models answered
about them, see each dish's answers and accuracy, open its page, download the rows as shown."""

import streamlit as st

from app import data, fmt, links, ui, widgets
from app.safe import literal
from warehouse.queries import dish as queries

SHOW = {"": "All dishes", "answered": "With answers"}
ANSWERS_HELP = (
    "Answers: model answers to this dataset's origin questions about the dish, under the sidebar's task, "
    "models and prompt languages; accuracy: the share whose first country named is a gold origin. Linked: "
    "answers to questions about the same dish in another dataset (Dish page, 'the same dish in other "
    "records'), scored against this dish's origins."
)
COLUMNS = [
    "dish", "dish_id", "origins", "n_answers", "accuracy", "n_linked_answers", "linked_accuracy", "answers",
    "names_ru", "names_uk", "names_en", "source", "dish_key",
]  # fmt: skip

selected = ui.selection()

st.title("Dishes")

origin = data.dishes_per_origin(selected.dataset, selected.lang).sort_values("country_name")
names = dict(zip(origin["country"], origin["country_name"], strict=True))
search_col, country_col, show_col = st.columns([3, 2, 2])
search = widgets.url_text("Search", param="q", placeholder="name in any language, or id", container=search_col)
country = widgets.url_select(
    "Origin country",
    [widgets.ALL, *names],
    param="country",
    format_func=lambda code: "All countries" if code == widgets.ALL else f"{names[code]} ({code})",
    what="origin country",
    container=country_col,
)
show = widgets.url_radio("Show", SHOW, param="show", container=show_col)

rows = data.query(
    queries.catalogue,
    selected.dataset,
    selected.filters,
    lang=selected.lang,
    country=country or None,
    search=search or None,
    answered=show == "answered",
    limit=data.DISH_LIMIT,
)
table = links.with_dish_links(rows, selected.dataset, name="display_name", filters=selected.filters)
filters = selected.filters
table["answers"] = [
    links.answers_url(filters, f"{fmt.count(n)} answers", dish=key) if filters is not None and n else None
    for key, n in rows[["dish_key", "n_answers"]].itertuples(index=False)
]
columns = (["lang"] if selected.lang is None and len(selected.languages) > 1 else []) + COLUMNS
shown = table[columns]

answered = int(((rows["n_answers"] > 0) | (rows["n_linked_answers"] > 0)).sum())
count = f"{fmt.count(len(shown))} dish" + ("" if len(shown) == 1 else "es")
if len(shown) >= data.DISH_LIMIT:
    count = f"first {count}"
st.caption(f"{literal(count)}, {literal(fmt.count(answered))} with answers. {ANSWERS_HELP}")
fmt.dataframe(
    shown,
    {
        "dish": links.dish_column(),
        "n_answers": st.column_config.NumberColumn("Answers", format="localized", help=ANSWERS_HELP),
        "accuracy": st.column_config.NumberColumn("Accuracy", format="percent", step=0.001, help=ANSWERS_HELP),
        "n_linked_answers": st.column_config.NumberColumn("Linked answers", format="localized", help=ANSWERS_HELP),
        "linked_accuracy": st.column_config.NumberColumn(
            "Linked accuracy", format="percent", step=0.001, help=ANSWERS_HELP
        ),
        "answers": links.answers_column("List"),
    },
    key="dishes_table",
)
stem = "_".join([selected.dataset, selected.lang or "all", country or "all-countries", "dishes"])
ui.downloads(links.as_shown(shown, ["dish", "answers"]), stem, key="dishes")
