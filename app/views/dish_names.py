"""Dish names: what models call the dish in a photo, scored by each benchmark's rule.

Accuracy per model x prompt language under the chosen rule (`?rule=`), every model under every
rule, the dishes most often mistaken for one another (true -> named, with their photos when the
browser can load them) and, for a chosen pair, the answers themselves (`?pair=TRUE|NAMED`).
The sidebar's models and prompt languages apply.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import data, fmt, ui, vega, widgets
from app.safe import literal
from warehouse.queries import names as queries

PAIR_PARAM = "pair"
RULE_NOTES = {
    "lev1": "a name read from the answer is within one Levenshtein edit of an accepted name of the dish "
    "(its names in the prompt language or English, or the dataset's gold string)",
    "exact": "a name read from the answer equals an accepted name after normalisation",
    "stem": "a name read from the answer has the same word stems as an accepted name "
    "(pymorphy3 lemmas for Russian/Ukrainian, Snowball stemmers elsewhere)",
    "similarity": "CultureMix's food-match similarity with an accepted name of at least 0.8 (the project's measure: "
    "the paper publishes neither measure nor threshold)",
    "paper": "the dataset's gold string occurs in the answer (WorldCuisines' own rule, with its failures: "
    "a gold written in another script never matches)",
}


def heatmap(frame: pd.DataFrame, models: list[str]) -> None:
    pivot = frame.pivot(index="model", columns="lang", values="accuracy").reindex(models)
    top = max(0.05, float(pivot.max().max()))
    vega.model_language_heatmap(pivot, label="accuracy", share=True, key="dish_names_heatmap", domain=[0, top])


def photo(url: object, caption: str) -> None:
    """The dish photo straight from its URL (the browser fetches it; offline it shows its caption)."""
    if isinstance(url, str) and url.startswith("https://"):
        st.image(url, caption=literal(caption), width=160)
    else:
        st.caption(f"{literal(caption)} (no photo)")


def render() -> None:
    selected = ui.selection()
    st.title("Dish names")
    tasks = data.query(queries.tasks, selected.dataset)
    if not tasks:
        with_names = [name for name in data.dataset_summary()["dataset"] if data.query(queries.tasks, name)]
        st.info(
            f"No dish-name answers are scored for {literal(selected.dataset)} in this warehouse."
            + (" These datasets have them:" if with_names else ""),
            icon=":material/info:",
        )
        row = st.container(horizontal=True)
        for name in with_names:
            row.button(
                f"Show {name}",
                key=f"dish_names_switch_{name}",
                on_click=ui.switch_dataset,
                args=(name,),
                icon=":material/arrow_forward:",
            )
        return
    task = tasks[0] if len(tasks) == 1 else st.selectbox("Task", tasks, key="dish_names_task")
    rule = widgets.url_select(
        "Scoring rule",
        list(queries.RULES),
        param="rule",
        format_func=lambda key: queries.RULES[key],
        what="rule",
        container=st,
    )
    st.caption(f"Right when {RULE_NOTES[rule]}.")
    filters = selected.filters
    models = filters.models if filters else ()
    langs = filters.langs if filters else ()

    accuracy = data.query(queries.accuracy, selected.dataset, task, rule)
    if models:
        accuracy = accuracy[accuracy["model"].isin(models)]
    if langs:
        accuracy = accuracy[accuracy["lang"].isin(langs)]
    if accuracy.empty:
        st.info("No answers under the sidebar's models and prompt languages.", icon=":material/info:")
        return
    overall = accuracy.groupby("model")[["n", "correct"]].sum()
    overall["accuracy"] = overall["correct"] / overall["n"]
    order = overall.sort_values("accuracy", ascending=False).index.tolist()
    st.caption(
        f"{int(overall['n'].sum()):,} real answers of {len(order)} models ({literal(selected.dataset)} "
        f"{literal(task)}); "
        f"accuracy from {overall['accuracy'].min():.1%} to {overall['accuracy'].max():.1%} under this rule."
    )
    heatmap(accuracy, order)

    st.subheader("Every model under every rule")
    rules = data.query(queries.rules_by_model, selected.dataset, task)
    if models:
        rules = rules[rules["model"].isin(models)]
    table = rules.pivot(index="model", columns="rule", values="accuracy").reindex(order)[list(queries.RULES)]
    st.dataframe(
        table.reset_index(),
        hide_index=True,
        column_config={"model": "Model"} | {
            key: st.column_config.ProgressColumn(label, min_value=0, max_value=1, format="percent")
            for key, label in queries.RULES.items()
        },
    )  # fmt: skip
    ui.downloads(table.reset_index(), f"{selected.dataset}_{task}_name_accuracy", key="dish_names_rules")

    st.subheader("Dishes mistaken for one another")
    confusions = data.query(queries.confusions, selected.dataset, task, tuple(models), tuple(langs))
    if confusions.empty:
        st.caption("No answer names another dish of the knowledge base.")
        return
    st.caption(
        "An answer that names another dish of the knowledge base instead of the one in the photo "
        "(photos load from Wikimedia when the browser can reach it)."
    )
    for row in confusions.head(6).itertuples(index=False):
        left, arrow, right, info = st.columns([2, 1, 2, 3], vertical_alignment="center")
        with left:
            photo(row.image_url, str(row.dish_name))
        arrow.markdown("→")
        with right:
            photo(row.named_image_url, str(row.named_dish_name))
        info.markdown(f"**{fmt.count(row.n)}** answers by **{fmt.count(row.n_models)}** models")
    labels = {
        f"{row.dish_key}|{row.named_dish_key}": f"{row.dish_name} → {row.named_dish_name} ({row.n})"
        for row in confusions.itertuples(index=False)
    }
    fmt.dataframe(confusions.drop(columns=["image_url", "named_image_url"]))
    pair = widgets.url_select(
        "Show the answers of",
        list(labels),
        param=PAIR_PARAM,
        format_func=lambda key: labels[key],
        what="pair",
        container=st,
    )
    true_key, named_key = pair.split("|", 1)
    answers = data.query(queries.answers, selected.dataset, task, true_key, named_key, tuple(models), tuple(langs))
    fmt.dataframe(answers.drop(columns=["generation_id"]))
    st.page_link(
        "views/dish.py",
        label=f"Open {literal(answers['dish_name'].iloc[0] if not answers.empty else true_key)} on the Dish page",
        icon=":material/ramen_dining:",
        query_params={"dataset": selected.dataset, "dish": true_key},
    )


if __name__ == "__main__":  # run as a page by st.navigation
    render()
