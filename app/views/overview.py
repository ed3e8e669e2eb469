"""Overview: what the selected dataset contains and what the ingest had to work around."""

import streamlit as st

from app import charts, data, ui

selected = ui.selection()
summary = selected.summary

st.title("Overview")
st.caption(summary["title"])

metrics = st.columns(5)
for column, (label, field, help_text) in zip(
    metrics,
    [
        ("Dishes", "n_dishes", "Dish entries, all language lists of the dataset added up."),
        ("Origin countries", "n_origin_countries", "Distinct countries named as a dish origin."),
        ("Items", "n_items", "Benchmark items (questions) built from the dataset."),
        ("Answers", "n_generations", "Model answers imported or generated for those items."),
        ("Models", "n_models", "Distinct models that answered."),
    ],
    strict=True,
):
    column.metric(label, f"{int(summary[field]):,}", help=help_text, border=True)

st.subheader("Dishes per origin country")
origin = data.dishes_per_origin(selected.dataset, selected.lang)
if origin.empty:
    st.caption("No dish of this selection names an origin country.")
else:
    charts.dishes_per_origin(origin, top=30)
    note = "Top 30 countries; Post-Soviet countries in red. A dish with several origins counts for each."
    if selected.lang is None and len(selected.languages) > 1:
        note += " Language lists are added up, so a dish listed in both counts twice."
    st.caption(note)
    with st.expander(f"All {len(origin)} countries as a table"):
        st.dataframe(origin, hide_index=True)
    ui.downloads(origin, f"{selected.dataset}_{selected.lang or 'all'}_dishes_per_origin", key="origin")

st.subheader("Dishes per collection round")
per_source = data.dishes_per_source(selected.dataset, selected.lang)
st.dataframe(per_source, hide_index=True)
ui.downloads(per_source, f"{selected.dataset}_{selected.lang or 'all'}_dishes_per_source", key="source")

st.subheader("Data quirks handled at ingest")
quirks = data.ingest_report(selected.dataset)
if quirks.empty:
    st.caption("The ingest recorded no data quirks for this dataset.")
else:
    st.dataframe(quirks, hide_index=True)

answers = data.answers_per_model(selected.dataset)
if not answers.empty:
    st.subheader("Answers per model")
    st.dataframe(answers, hide_index=True)
