"""Language switching: do models answer in the prompt's language? Per model and prompt language, the
share of answers in it, mixed, or in another; which languages they switch to; examples with the
switched segments marked; accuracy of switched answers against the others."""

import json

import pandas as pd
import streamlit as st

from app import data, fmt, ui
from app.safe import code
from warehouse.queries import methods

selected = ui.selection()
filters = ui.require_answers(selected)

st.title("Language switching")
st.caption(
    "Each answer is cut into segments where its script changes and at sentence ends; each segment gets a "
    "language (by script, by the letters only Ukrainian or Russian has, and by lingua). An answer is in the "
    "prompt's language, mixed (another language holds at least 15% of its letters), or in another language. "
    'Answers without letters ("2") are left out. In the prompt languages lingua does not know (Javanese, '
    "Sundanese, Sardinian, Min Nan), a Latin-script segment counts as English where lingua takes it for English "
    "(on 25 letters or more) and as the prompt's language otherwise; a short Cyrillic segment with no letter only "
    "one of Russian and Ukrainian has (\u201cБорщ\u201d) is in the prompt's language. Every answer language the "
    "atlas shows or exports is this one."
)

summary = data.query(methods.switching_summary, filters)
if summary.empty:
    st.info("No answer languages detected for this selection yet: run `python -m pipeline score`.")
    st.stop()

pivot = summary.pivot_table(index="model", columns="lang", values="share_in_prompt_lang")
st.subheader("Share of answers in the prompt's language")
st.dataframe(
    pivot.style.format(lambda share: fmt.pct(share, 0)),  # a share under 0.5% reads "<1%", never "0%"
    column_config={
        "model": st.column_config.TextColumn("Model", pinned=True),
        **{lang: st.column_config.Column(lang, help=fmt.language(lang)) for lang in pivot.columns},
    },
)

st.subheader("Per model and prompt language")
table = summary.rename(
    columns={
        "share_in_prompt_lang": "in prompt language",
        "share_mixed": "mixed",
        "share_other": "other language",
        "switched_to": "switched to (answers)",
        "accuracy_switched": "accuracy, switched",
        "accuracy_not_switched": "accuracy, not switched",
    }
)
fmt.dataframe(
    table,
    {
        name: st.column_config.NumberColumn(name[:1].upper() + name[1:], format="percent", step=0.001)
        for name in ("in prompt language", "mixed", "other language", "accuracy, switched", "accuracy, not switched")
    },
)
ui.downloads(summary, f"{filters.dataset}_{filters.task}_language_switching", key="switching")

st.subheader("Examples")
columns = st.columns(2)
model = columns[0].selectbox("Model", sorted(summary["model"].unique()), key="switching_model")
langs = sorted(summary.loc[summary["model"] == model, "lang"].unique())
lang = columns[1].selectbox("Prompt language", langs, key="switching_lang", format_func=fmt.language)
examples = data.query(methods.switching_examples, filters, model, lang)
if examples.empty:
    st.caption("Every answer of this model in this language stays in the prompt's language.")
prompt_lang = summary.loc[(summary["model"] == model) & (summary["lang"] == lang), "prompt_lang"]
prompt_lang = prompt_lang.iloc[0] if len(prompt_lang) else lang
segments = []
for row in examples.itertuples(index=False):
    text = row.response or ""
    for segment in json.loads(row.segments or "[]"):
        segments.append(
            {
                "item": row.item_id,
                "segment": text[segment["start"] : segment["end"]][:300],
                "language": segment["lang"],
                "switched": segment["lang"] != prompt_lang,
                "answer": row.kind,
                "scored right by ours": None if pd.isna(row.accuracy) else bool(row.accuracy > 0.5),
            }
        )
if segments:
    frame = pd.DataFrame(segments)
    highlight = frame.style.apply(
        lambda r: ["background-color: #ffe0b2" if r["switched"] else "" for _ in r], axis=1
    )  # the switched segments, in orange; answers are shown as plain text, never markdown
    st.dataframe(highlight, hide_index=True)
    st.caption(f"Segments of up to 50 switched answers; the prompt's language is {code(prompt_lang)}.")
