"""VQA in Ukrainian and English: each model's VQA accuracy on the same questions asked in English and in
their Ukrainian translation, and the gap (ZNO-Vision Table 3); one model's answers to each question in both
languages side by side. Reads marts.vqa_* only."""

import streamlit as st

from app import data, empty_study, fmt
from app.safe import literal
from warehouse.queries import zno as q

st.title("VQA: Ukrainian vs English")
st.caption(
    "VQA accuracy: an answer counts min(#annotators who gave it / 3, 1), averaged over the ten subsets of nine "
    "of the ten annotators, after the official answer normalisation (which the official script applies only "
    "when annotators disagree; 'ours' always normalises). In percent, as Table 3. Gap = Ukrainian − English; "
    "'paired' restricts both to the questions the model answered in both languages."
)
table = data.query(q.vqa_languages)
if table.empty:
    empty_study.show(
        empty_study.EmptyStudy(
            "Each model's VQA accuracy on the same questions asked in English and in Ukrainian, and the gap "
            "(ZNO-Vision Table 3), and one model's answers to each question in both languages side by side.",
            (("Accuracy per language (Table 3)", "marts.vqa_languages"), ("Answers", "marts.vqa_answers")),
            (
                "python -m pipeline ingest vqa --source DIR   # uk/ and en/ VQA 2.0 question and annotation files",
                "python -m pipeline import-responses --format vqa ANSWERS.jsonl",
                "python -m pipeline score",
            ),
            "vqa",
        ),
        "No scored VQA answers in this warehouse yet.",
    )

models = table["model"].tolist()
st.markdown(f"**Answers by:** {literal(', '.join(models), 300)} ({len(models)} models, imported or generated).")
st.subheader("Per model (Table 3)")
fmt.dataframe(
    table,
    {
        name: st.column_config.NumberColumn(name, format="%.2f")
        for name in ("vqa_uk", "vqa_en", "gap", "paired_uk", "paired_en", "paired_gap", "vqa_uk_atlas", "vqa_en_atlas")
    },
)

st.subheader("One model, both languages")
model = st.selectbox("Model", models, key="vqa_model")
pairs = data.query(q.vqa_pairs, model)
fmt.dataframe(
    pairs,
    {
        "answer_uk": st.column_config.TextColumn("Answer (uk)", width="medium"),
        "answer_en": st.column_config.TextColumn("Answer (en)", width="medium"),
    },
)
st.caption("Largest difference between the two languages first. Answers are shown as plain text.")
