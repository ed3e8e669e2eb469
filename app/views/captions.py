"""Captions: each model's one-sentence captions of Flickr photos (Multi30K-UK, or any caption set in its
layout) against the reference caption, as ZNO-Vision's Table 2 reports them (mean ± std of sentence
SacreBLEU and BERTScore F1) beside the corpus-level SacreBLEU; and one model's captions with their
references. Reads marts.caption_* only."""

import streamlit as st

from app import data, empty_study, fmt
from app.safe import literal
from warehouse.queries import zno as q

st.title("Captions")
st.caption(
    "Sentence BLEU is sacrebleu's sentence_bleu (0-100); corpus BLEU pools every caption of a model, split and "
    "language as sacrebleu's corpus_bleu does. BERTScore F1 uses the model set at scoring time "
    "(DISH_ATLAS_CAPTION_BERTSCORE_MODEL; by default bert-base-multilingual-cased, as the paper). "
    "± is the standard deviation over captions (Table 2)."
)
scores = data.query(q.caption_scores)
if scores.empty:
    empty_study.show(
        empty_study.EmptyStudy(
            "Each model's one-sentence captions of Flickr photos against the Ukrainian reference (ZNO-Vision Table 2: "
            "mean ± std of sentence SacreBLEU and BERTScore F1) beside corpus SacreBLEU, and one model's captions.",
            (("Scores per model (Table 2)", "marts.caption_scores"), ("Captions", "marts.caption_answers")),
            (
                "python -m pipeline data fetch multi30k     # image lists and captions of the paper's splits",
                "python -m pipeline ingest multi30k --source ~/.cache/dish-atlas/data/multi30k",
                "python -m pipeline import-responses --format multi30k CAPTIONS.jsonl",
                "python -m pipeline score",
            ),
            "multi30k",
        ),
        "No scored captions in this warehouse yet.",
    )

models = sorted(scores["model"].unique())
st.markdown(f"**Captions by:** {literal(', '.join(models), 300)} ({len(models)} models, imported or generated).")
st.subheader("Per model (Table 2)")
table = scores.assign(
    bleu=[f"{m:.2f} ± {s:.2f}" for m, s in zip(scores["bleu_mean"], scores["bleu_std"], strict=True)],
    bertscore=[
        "" if b != b else f"{b:.3f} ± {s:.3f}"
        for b, s in zip(scores["bertscore_mean"], scores["bertscore_std"], strict=True)
    ],
)[["model", "split", "lang", "n", "bleu", "bertscore", "corpus_bleu"]]
fmt.dataframe(table, {"corpus_bleu": st.column_config.NumberColumn("Corpus BLEU", format="%.2f")})

st.subheader("One model's captions")
pick = st.columns(3)
model = pick[0].selectbox("Model", models, key="captions_model")
rows = scores[scores["model"] == model]
split = pick[1].selectbox("Split", sorted(rows["split"].unique()), key="captions_split")
lang = pick[2].selectbox("Language", sorted(rows[rows["split"] == split]["lang"].unique()), key="captions_lang")
answers = data.query(q.caption_answers, model, split, lang)
fmt.dataframe(
    answers,
    {
        "response": st.column_config.TextColumn("Caption", width="large"),
        "reference": st.column_config.TextColumn("Reference", width="large"),
    },
)
st.caption("Lowest sentence BLEU first. Captions and references are shown as plain text.")
