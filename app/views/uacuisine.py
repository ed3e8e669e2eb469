"""UACUISINE: the ZNO-Vision paper's Table 4 (BERTScore, EM and IM per model) computed from the answers in
the warehouse, as published (Appendix C), with our own scores beside it, and which model computed BERTScore."""

import streamlit as st

from app import data, empty_study, fmt, ui
from app.safe import literal
from warehouse.queries import published_tables as queries

st.title("UACUISINE: Table 4")
st.caption(
    "The ZNO-Vision paper's scores for its Ukrainian dishes, computed from the answers in this warehouse. "
    "BERTScore: mean F1 of the recipes (Q5) against the gold recipe. EM: exact match at stem level, over the dish "
    "name (Q1-Q3), taste (Q6) and serving temperature (Q7) answers. IM: the paper's intersection match of the "
    "ingredients (Q4), shared words over all words either list names. Ours beside them: EM with taste and "
    "temperature read as the class the answer names, and IM as the share of gold ingredients named (lemmas)."
)

table = data.query(queries.uacuisine_table4)
if table.empty:
    empty_study.show(
        empty_study.EmptyStudy(
            "Per model, the paper's BERTScore of the recipes, exact match of names, taste and temperature, and "
            "intersection match of the ingredients (ZNO-Vision Table 4, Appendix C), with our scores beside them.",
            (("Table 4", "marts.uacuisine_table4"),),
            ("python -m pipeline import-responses --format uacuisine TABLE.csv   # imported and scored at once",),
            "uacuisine",
        ),
        "No UACUISINE answers in this warehouse yet.",
    )
    st.stop()

langs = sorted(table["lang"].unique(), reverse=True)
lang = st.selectbox("Prompt language", langs, format_func=fmt.language, key="uacuisine_lang")
rows = table[table["lang"] == lang]
scorers = sorted({str(m) for m in rows["bertscore_model"].dropna()})
st.caption(
    f"Answers of {len(rows)} models: {literal(', '.join(rows['model']))}. BERTScore computed with "
    + (literal(", ".join(scorers)) if scorers else "no model (no recipe answers)")
    + " (the paper used bert-base-multilingual-cased)."
)
shown = rows.drop(columns=["lang"])
score = {"format": "%.2f"}
fmt.dataframe(
    shown,
    {
        "model": "Model",
        "bertscore": st.column_config.NumberColumn("BERTScore", **score),
        "em": st.column_config.NumberColumn("EM", help="The paper's exact match at stem level.", **score),
        "im": st.column_config.NumberColumn("IM", help="The paper's |W(y) ∩ W(ŷ)| / |W(y) ∪ W(ŷ)|.", **score),
        "bertscore_model": "BERTScore model",
        "em_atlas": st.column_config.NumberColumn(
            "EM, ours", help="A dish name found in the answer; taste and temperature as classes.", **score
        ),
        "im_atlas": st.column_config.NumberColumn("IM, ours", help="Share of gold ingredient lemmas named.", **score),
        "em_identification": st.column_config.NumberColumn(
            "EM, dish name", help="The paper's: the whole answer is the name, up to stems.", **score
        ),
        "em_taste": st.column_config.NumberColumn("EM, taste", **score),
        "em_temperature": st.column_config.NumberColumn("EM, temperature", **score),
        "n_recipes": st.column_config.NumberColumn("Recipes", format="localized"),
        "n_em": st.column_config.NumberColumn("EM answers", format="localized"),
        "n_ingredients": st.column_config.NumberColumn("Ingredient lists", format="localized"),
        "em_identification_atlas": st.column_config.NumberColumn(
            "EM, dish name, ours", help="A dish name found anywhere in the answer, up to stems.", **score
        ),
    },
    key="uacuisine_table4",
)
ui.downloads(table, "uacuisine_table4", key="uacuisine_table4_dl")
