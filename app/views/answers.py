"""Answers: search inside the scored answers, and the list behind every aggregate other pages link to.

The sidebar chooses dataset, task, models and prompt languages; this page narrows them by text in
the answer, dish, gold origin, a country the answer named, and right / wrong / no country. Every
control is kept in the link (`?q=…&dish=…&gold=…&named=…&result=…`), which is how a leaderboard
cell, a dish or a confusion cell elsewhere opens exactly its answers here. The download holds the
table as shown.
"""

import streamlit as st

from app import data, fmt, links, ui, widgets
from app.safe import literal
from warehouse.queries import search as queries
from warehouse.queries.search import SEARCH_LIMIT, AnswerSearch

RESULTS = {"": "Any", "right": "Right", "wrong": "Wrong", "no_country": "No country"}
RESULT_HELP = (
    "Right: the first country named is a gold origin (the accuracy metric). Wrong: a country was named and "
    f"the first is not a gold origin. {ui.NO_COUNTRY}"
)

selected = ui.selection()
filters = ui.require_answers(selected)

st.title("Answers")
st.caption(
    "Search inside the models' answers, narrowed by the sidebar (task, models, prompt languages) and the "
    "controls below; every choice is kept in the link. Click a dish for its page."
)

countries = data.query(queries.countries, filters)
names = dict(zip(countries["country"], countries["name"], strict=True))
dishes = data.query(queries.answered_dishes, filters)
dish_names = dict(zip(dishes["dish_key"], dishes["dish_name"], strict=True))


def country_label(code: str) -> str:
    return "Any country" if code == widgets.ALL else f"{names.get(code, code)} ({code})"


top = st.columns([3, 2])
text = widgets.url_text("Text in the answer", param="q", placeholder="e.g. borscht, Україна, Italian", container=top[0])
dish = widgets.url_select(
    "Dish",
    [widgets.ALL, *dish_names],
    param="dish",
    format_func=lambda key: "Any dish" if key == widgets.ALL else f"{dish_names.get(key, key)} ({key})",
    what="dish with answers",
    container=top[1],
)
row = st.columns([2, 2, 3])
gold = widgets.url_select(
    "Gold origin", [widgets.ALL, *names], param="gold", format_func=country_label, what="gold origin", container=row[0]
)
named = widgets.url_select(
    "Country named",
    [widgets.ALL, *names],
    param="named",
    format_func=country_label,
    what="named country",
    container=row[1],
)
result = widgets.url_radio("Result", RESULTS, param="result", container=row[2])
row[2].caption(RESULT_HELP)

search = AnswerSearch(text=text or None, dish_key=dish or None, gold=gold or None, named=named or None,
                      result=result or None)  # fmt: skip
found = data.query(queries.answers, filters, search, limit=SEARCH_LIMIT)
if found.empty:
    st.info(
        "No answer matches. Clear the text or a filter above, or widen the sidebar's models and prompt languages.",
        icon=":material/search_off:",
    )
    st.stop()

total = int(found["n_total"].iloc[0])
shown_note = f"The first {fmt.count(len(found))} of {fmt.count(total)}" if total > len(found) else fmt.count(total)
accuracy = found["accuracy"].fillna(0).mean()
st.caption(
    f"{literal(shown_note)} matching answers; {literal(fmt.pct(accuracy))} of those shown are right."
    + (f" Answers containing “{literal(text)}”." if text else "")
)
table = links.with_dish_links(found.drop(columns=["n_total"]), selected.dataset, name="dish_name", filters=filters)
table = table[  # the answer beside its dish first: what a search is for
    ["dish", "response", "model", "lang", "predicted", "gold", "accuracy", "jaccard", "status", "item_id", "variant",
     "dish_key"]
]  # fmt: skip
fmt.dataframe(
    table,
    {
        "dish": links.dish_column(),
        "lang": "Prompt language",
        "accuracy": st.column_config.CheckboxColumn("Right", help=RESULT_HELP),
    },
    key="answers_table",
)
ui.downloads(links.as_shown(table, ["dish"]), f"{selected.dataset}_answers", key="answers_found")
