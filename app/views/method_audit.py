"""Method audit: the paper's own scoring rule against ours, for every model and prompt language,
largest gap first; the answers the two score differently, each with the reason; and a headline per
language computed from those reasons and from what the gold strings of that language name."""

import pandas as pd
import streamlit as st

from app import data, fmt, links, ui
from app.safe import code, literal
from warehouse.queries import borsch as borsch_queries
from warehouse.queries import methods

REASON_HELP = {
    "gold string wrong": "the gold answer string of this language names another country, or none",
    "answer in English": "the answer switched to English, so the gold string in the prompt's language is absent",
    "adjective": 'the answer names the country with an adjective ("italiana") the gold noun is not a substring of',
    "inflection": "the answer names the country in another case or number than the gold string",
    "place in the country": "the answer names a city, island or region of the gold country",
    "older name": 'the answer uses an older name of the country ("Persia", "Siam")',
    "alias": "the answer uses another name (a historical or local name, an abbreviation, a region)",
    "named second": "ours scores the first country named; the gold one came later",
    "dropped as negated or spread": 'we read the mention as "not from" or "popular in"',
    "inside another word": "the gold string occurs inside a longer word",
    "extractor missed it": "our extractor found no country in the answer",
    "named another country": "ours read another country first",
}


def language_label(code: str) -> str:
    """'yue' -> 'yue — Cantonese' (app/fmt.py, the one rule)."""
    return fmt.language(code)


def headline(row: pd.Series) -> str:
    direction = "undercounted" if row["mean_gap"] > 0 else "overcounted"
    text = (
        f"**{literal(language_label(row['lang']))}** is {direction} by about {abs(row['mean_gap']):.0f} points "
        f"by the paper's rule (mean over {int(row['n_models'])} models)"
    )
    if isinstance(row["reason"], str):
        text += f': "{row["reason"]}" explains {row["reason_share"]:.0%} of the answers the two score differently'
    if row["reason"] == "gold string wrong" and pd.notna(row["n_items"]):
        wrong = int(row["names_other"]) + int(row["names_none"])
        text += (
            f", because most gold strings name another country: {wrong} of {int(row['n_items'])} gold strings "
            f"of this language name another country ({int(row['names_other'])}) or none ({int(row['names_none'])})"
        )
    return text + "."


selected = ui.selection()
filters = ui.require_answers(selected)

st.title("Method audit")
st.caption(
    "The benchmark's own scoring rule (WorldCuisines: an answer is right when the gold string, lower-cased, "
    "occurs in the lower-cased answer; it reproduces the published tables) against ours (the country the "
    "answer names, read by our extractor). Gap = ours minus the paper's, in accuracy points."
)

if filters.dataset == "borsch":  # issue 35: BORSch's rule (§4.1, every country named) against our reading
    st.subheader("Our reading against BORSch's rule, per prompt variant")
    st.caption(
        "BORSch counts every country an answer names (NER and a country list, §4.1); we read the answer as its "
        "question asks (`origin` or `served`, declared per variant), dropping negated, corrected and, for origin "
        "questions, spread-only mentions."
    )
    fmt.dataframe(data.query(borsch_queries.method_by_variant, filters), key="audit_borsch_variants")
    differing = data.query(borsch_queries.method_differences, filters)
    differing = links.with_dish_links(differing, "borsch", name="dish_key", column="dish_key", filters=filters)
    fmt.dataframe(differing, {"dish_key": links.dish_column()}, key="audit_borsch_answers")
    st.caption("Answers are shown as plain text; up to 200, all of them through `export origin-scores`.")
    st.stop()

by_lang = data.query(methods.audit_by_language, filters)
if by_lang.empty:
    st.info(
        f"Task {code(filters.task)} declares no paper rule to compare with: nothing to audit.", icon=":material/info:"
    )
    st.stop()

for _, row in by_lang[by_lang["mean_gap"].abs() >= 5].head(3).iterrows():
    st.info(headline(row), icon=":material/fact_check:")

audit = data.query(methods.audit, filters)
st.subheader("Paper vs ours, per model and prompt language")
table = audit.rename(
    columns={
        "paper_accuracy": "paper %",
        "atlas_accuracy": "ours %",
        "gap": "gap (points)",
        "n_ours_only": "right only by ours",
        "n_paper_only": "right only by the paper",
        "top_reason": "commonest reason",
        "top_reason_n": "answers",
    }
)
picked = st.dataframe(
    fmt.display(table),
    hide_index=True,
    on_select="rerun",
    selection_mode="single-row",
    key="audit_table",
    column_config=fmt.columns(
        table,
        {
            "gap (points)": st.column_config.NumberColumn("Gap (points)", format="%+.1f"),
            "paper %": st.column_config.NumberColumn("Paper", format="%.1f%%"),
            "ours %": st.column_config.NumberColumn("Ours", format="%.1f%%"),
        },
    ),
)
ui.downloads(audit, f"{filters.dataset}_{filters.task}_method_audit", key="audit")
st.caption("Sorted by the size of the gap. Select a row to see the answers behind it.")

rows = (picked.get("selection") or {}).get("rows") or [] if picked else []
first = audit.iloc[rows[0]] if rows else audit.iloc[0]
st.subheader(f"Answers scored differently: {literal(first['model'])}, {literal(language_label(first['lang']))}")
answers = data.query(methods.disagreements, filters, first["model"], first["lang"])
if answers.empty:
    st.caption("The two methods agree on every answer here.")
else:
    counts = answers.groupby(["direction", "reason"]).size().reset_index(name="answers")
    counts["why"] = counts["reason"].map(REASON_HELP)
    fmt.dataframe(counts)
    reason = st.selectbox("Reason", ["all", *counts["reason"].tolist()], key="audit_reason")
    shown = answers if reason == "all" else answers[answers["reason"] == reason]
    shown = links.with_dish_links(shown, filters.dataset, name="dish_name", filters=filters).drop(
        columns=["dish_name"]
    )  # each dish name opens its Dish page
    shown = shown.rename(columns={"gold_text": "gold string", "gold_countries": "gold", "predicted": "ours read"})
    fmt.dataframe(shown, {"dish": links.dish_column()}, key="audit_answers")
    st.caption(
        "Answers are shown as plain text. Up to 500 per model and language; the download holds them all "
        "through `python -m pipeline export origin-scores`."
    )

with st.expander("What the gold strings of each language name"):
    fmt.dataframe(
        by_lang[
            [
                "lang",
                "mean_gap",
                "n_models",
                "reason",
                "reason_share",
                "n_items",
                "names_gold",
                "names_other",
                "names_none",
            ]
        ],
        {"mean_gap": st.column_config.NumberColumn("Mean gap (points)", format="%+.1f")},
    )
