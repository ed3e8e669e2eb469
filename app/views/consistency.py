"""Consistency: does a model give the same answer to the same question in every prompt language?

Per model, the agreement of its answers across prompt languages (warehouse/queries/consistency.py
defines the measures); for one model, which prompt languages leave the common answer most, and the
questions that flip most, each linked to its dish and its answers. The model is kept in the link
(`?model=…`).
"""

from dataclasses import replace

import streamlit as st

from app import data, fmt, links, ui, vega, widgets
from app.safe import literal
from warehouse.queries import consistency as queries
from warehouse.queries.consistency import FLIP_LIMIT

MEASURES = (
    "An answer is the set of countries it named (none is an answer too). **Pair agreement**: the share of a "
    "question's prompt-language pairs whose answers name the same set. **Modal share**: the share of its "
    "languages giving the most common set. **All agree**: the share of questions answered with one set in "
    "every language. Means over questions answered in at least two of the selected prompt languages."
)


def agreement_bars(frame) -> dict:
    """Pair agreement per model, most consistent on top."""
    shown = frame.sort_values("pair_agreement", ascending=False)
    rows = shown[["model", "pair_agreement", "modal_share", "all_agree", "n_items"]]
    return {
        "data": {"values": vega.records(rows)},
        "height": {"step": 26},
        "mark": {"type": "bar", "color": "#2a7ab9"},
        "encoding": {
            "y": {"field": "model", "type": "nominal", "sort": None, "title": None, "axis": {"labelLimit": 0}},
            "x": {
                "field": "pair_agreement",
                "type": "quantitative",
                "title": "pair agreement across prompt languages",
                "scale": {"domain": [0, 1]},
                "axis": {"format": fmt.D3_PCT_AXIS},
            },
            "tooltip": [
                {"field": "model"},
                {"field": "pair_agreement", "title": "pair agreement", "format": fmt.D3_PCT},
                {"field": "modal_share", "title": "modal share", "format": fmt.D3_PCT},
                {"field": "all_agree", "title": "all agree", "format": fmt.D3_PCT},
                {"field": "n_items", "title": "questions", "format": fmt.D3_COUNT},
            ],
        },
    }


selected = ui.selection()
filters = ui.require_answers(selected)

st.title("Consistency across prompt languages")
st.markdown(MEASURES)

models = data.query(queries.by_model, filters)
if models.empty:
    st.info(
        "No question has answers in two or more of the selected prompt languages. Select more prompt languages "
        "in the sidebar (none selected: all).",
        icon=":material/info:",
    )
    st.stop()

vega.draw(agreement_bars(models), key="consistency_models_chart")
fmt.dataframe(
    models,
    {
        "n_items": st.column_config.NumberColumn("Questions", format="localized"),
        "pair_agreement": st.column_config.NumberColumn("Pair agreement", format="percent", step=0.001),
        "modal_share": st.column_config.NumberColumn("Modal share", format="percent", step=0.001),
        "all_agree": st.column_config.NumberColumn("All agree", format="percent", step=0.001),
        "mean_langs": st.column_config.NumberColumn("Languages per question", format="%.1f"),
    },
    key="consistency_models",
)
ui.downloads(models, f"{filters.dataset}_{filters.task}_consistency_models", key="consistency_models_dl")

st.subheader("One model")
names = models["model"].tolist()
model = widgets.url_select("Model", names, param="model", what="model", format_func=fmt.model, container=st)

per_lang = data.query(queries.by_language, filters, model)
left, right = st.columns([2, 3])
with left:
    st.caption(
        f"How often {literal(model)}'s answer in each prompt language is the question's most common answer; "
        "least agreeing first."
    )
    lang_table = per_lang.assign(
        answers=[
            links.answers_url(replace(filters, models=(model,), langs=(code,)), f"{fmt.count(n)} answers")
            for code, n in per_lang[["lang", "n_items"]].itertuples(index=False)
        ]
    )
    fmt.dataframe(
        lang_table,
        {
            "n_items": st.column_config.NumberColumn("Questions", format="localized"),
            "agrees": st.column_config.NumberColumn("Gives the common answer", format="percent", step=0.001),
            "answers": links.answers_column(),
        },
        key="consistency_langs",
        height=420,
    )
    ui.downloads(links.as_shown(lang_table, ["answers"]), f"{model}_consistency_languages", key="consistency_langs_dl")

with right:
    flips = data.query(queries.items, filters, model, limit=FLIP_LIMIT)
    st.caption(
        f"The questions {literal(model)} answers least consistently across prompt languages (most flips first). "
        "Answers: each set named, with how many languages gave it. Click a dish for its page, *answers* for "
        "every answer to it."
    )
    flip_table = links.with_dish_links(flips, filters.dataset, name="dish_name", filters=filters)
    flip_table = flip_table.assign(
        flips=flips["n_sets"] - 1,
        answers=[
            links.answers_url(replace(filters, models=(model,)), "answers", dish=key) for key in flips["dish_key"]
        ],
    )[["dish", "gold", "flips", "pair_agreement", "modal_share", "modal_set", "answer_sets", "accuracy", "answers"]]
    fmt.dataframe(
        flip_table,
        {
            "dish": links.dish_column(),
            "flips": st.column_config.NumberColumn("Flips", help="Distinct answers − 1."),
            "pair_agreement": st.column_config.NumberColumn("Pair agreement", format="percent", step=0.001),
            "modal_share": st.column_config.NumberColumn("Modal share", format="percent", step=0.001),
            "modal_set": "Most common answer",
            "answer_sets": "Answers (× languages)",
            "answers": links.answers_column(),
        },
        key="consistency_flips",
        height=420,
    )
    ui.downloads(
        links.as_shown(flip_table, ["dish", "answers"]), f"{model}_consistency_flips", key="consistency_flips_dl"
    )
