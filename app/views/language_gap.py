"""Language gap: per model, how much worse (or better) each prompt language does than English on the same
items, with a paired bootstrap 95% interval (warehouse/marts/language_gap.py); a chart of one model's
languages sorted by gap; the items it got right in English and wrong in a language (and the reverse) with
both answers side by side; a filter by the languages' script. Model, language and script are in the link."""

import streamlit as st

from app import data, fmt, links, paper_tables, ui, vega, widgets
from app.safe import literal
from warehouse.queries import language_gap as queries

CHANGES = {
    "lost": "Right in English, wrong in this language",
    "gained": "Wrong in English, right in this language",
}


def gap_bars(rows, model: str) -> dict:
    """One bar per prompt language (its gap in points), the interval as a rule, largest loss on top."""
    shown = rows.assign(language=rows["lang"].map(fmt.language))
    return {
        "data": {"values": vega.records(shown)},
        "height": {"step": 20},
        "title": f"{model}: accuracy minus English, same items",
        "encoding": {
            "y": {
                "field": "language",
                "type": "nominal",
                "sort": None,
                "title": "prompt language",
                "axis": {"labelLimit": 0, "labelOverlap": False},
            },
            "tooltip": [
                {"field": "language"},
                {"field": "script"},
                {"field": "gap", "title": "gap (points)", "format": "+.1f"},
                {"field": "low", "title": "95% interval from", "format": "+.1f"},
                {"field": "high", "title": "95% interval to", "format": "+.1f"},
                {"field": "accuracy", "title": "accuracy (%)", "format": ".1f"},
                {"field": "accuracy_en", "title": "accuracy in English (%)", "format": ".1f"},
                {"field": "n", "title": "items", "format": fmt.D3_COUNT},
            ],
        },
        "layer": [
            {
                "mark": {"type": "bar"},
                "encoding": {
                    "x": {"field": "gap", "type": "quantitative", "title": "gap (percentage points)"},
                    "color": {"condition": {"test": "datum.gap < 0", "value": "#c0392b"}, "value": "#2a7ab9"},
                },
            },
            {
                "mark": {"type": "rule", "color": "black"},
                "encoding": {
                    "y": {"field": "language", "type": "nominal", "sort": None, "bandPosition": 0.5},
                    "x": {"field": "low", "type": "quantitative"},
                    "x2": {"field": "high"},
                },
            },
        ],
    }


selected = ui.selection()
filters = ui.require_answers(selected)
dataset = filters.dataset

st.title("Language gap")
st.caption(
    "For each model, its accuracy in each prompt language minus its accuracy in English, counted only on the "
    "items it answered in both (the same questions, so no language is judged on easier items). Bars: the gap in "
    "percentage points, negative when the language does worse; lines: a paired bootstrap 95% interval "
    "(items resampled with their English answer). Every number comes from the answers of the model named beside it."
)

task_options = data.query(queries.tasks, dataset)
if not task_options:
    st.info(
        "No task of this dataset has answers in English and in another prompt language, so there is no gap to "
        "show. WorldCuisines (30 prompt languages) has one.",
        icon=":material/info:",
    )
    st.stop()
controls = st.columns(3)
task = widgets.url_select(
    "Question",
    task_options,
    param="gap_task",
    what="task",
    default=filters.task if filters.task in task_options else None,
    container=controls[0],
)
method = ui.scoring_method(controls[1])
script_options = data.query(queries.scripts, dataset, task)
chosen_scripts = widgets.url_multiselect(
    "Script", script_options, param="scripts", what="script", container=controls[2], help="None selected: all."
)

rows = data.query(queries.gaps, dataset, task, method, filters.models, filters.langs, chosen_scripts)
if rows.empty:
    st.info("No prompt language matches this selection. Clear the script or language filters.", icon=":material/info:")
    st.stop()

model_names = sorted(rows["model"].unique())
st.caption(
    f"Models ({len(model_names)}): {literal(', '.join(model_names))}. Score per answer: "
    f"{literal(rows['metric'].iloc[0])} ({literal(ui.SCORING_METHODS[method])})."
)

model = widgets.url_select("Model", model_names, param="model", what="model", format_func=fmt.model, container=st)
one = rows[rows["model"] == model]
vega.draw(gap_bars(one, model), key="language_gap_chart")

st.subheader("Every model and prompt language")
st.caption("Largest loss first. Accuracy in percent, gap and interval in percentage points.")
table = rows.drop(columns=["metric"])
points = {
    "accuracy": st.column_config.NumberColumn("Accuracy (%)", format="%.1f"),
    "accuracy_en": st.column_config.NumberColumn("Accuracy in English (%)", format="%.1f"),
    "gap": st.column_config.NumberColumn("Gap (points)", format="%+.1f"),
    "low": st.column_config.NumberColumn("95% low", format="%+.1f"),
    "high": st.column_config.NumberColumn("95% high", format="%+.1f"),
    "n": st.column_config.NumberColumn("Items", format="localized"),
    "n_lost": st.column_config.NumberColumn("Lost", help="Right in English, wrong here."),
    "n_gained": st.column_config.NumberColumn("Gained", help="Wrong in English, right here."),
}
fmt.dataframe(table, points, key="language_gap_table", height=360)
ui.downloads(rows, f"{dataset}_{task}_language_gap_{method}", key="language_gap_dl")

st.subheader(f"The items behind one gap: {literal(model)}")
left, right = st.columns(2)
langs = one["lang"].tolist()
lang = widgets.url_select(
    "Prompt language", langs, param="gap_lang", what="language", format_func=fmt.language, container=left
)
change = widgets.url_select(
    "Items", list(CHANGES), param="change", what="item kind", format_func=CHANGES.__getitem__, container=right
)
items = data.query(queries.gap_items, dataset, task, method, model, lang, change)
if items.empty:
    st.caption(f"No such item for {literal(model)} in {literal(fmt.language(lang))}.")
    st.stop()
st.caption(
    f"Answers of {literal(model)}, in English and in {literal(fmt.language(lang))}, to the same question "
    f"(up to {fmt.count(queries.ITEM_LIMIT)}). Click a dish for its page."
)
shown = links.with_dish_links(items, dataset, name="dish_name", filters=filters)
columns = [c for c in ("dish", "item_id", "variant", "gold_en", "response_en", "gold", "response") if c in shown]
fmt.dataframe(
    shown[columns],
    {
        "dish": links.dish_column(),
        "item_id": "Item",
        "gold_en": "Gold (English)",
        "response_en": "Answer in English",
        "gold": f"Gold ({lang})",
        "response": f"Answer in {lang}",
    },
    key="language_gap_items",
)

st.subheader("The paper's tables and figures, ours beside the printed numbers")
paper_tables.show("worldcuisines", key="worldcuisines_paper_tables")
