"""The landing page's headline findings: one sentence each, with its number and a link to the page that holds the
evidence, over whatever answers the sidebar selects (warehouse/queries/findings.py computes the numbers).

Names that come from files (models) and reference data (countries) are shown with `literal()`: a model name is
text from an answer file, never markdown.
"""

from __future__ import annotations

import streamlit as st

from app import data, fmt, links
from app.safe import literal
from warehouse.queries import findings as queries
from warehouse.queries.answers import Filters


def _link(page: str, filters: Filters, label: str, **params: object) -> str:
    url = links.page_url(page, {**links.filter_params(filters), **params})
    return f"[{label}]({url})"


def sentences(filters: Filters) -> list[str]:
    """The findings that the selected answers support, most general first (markdown, values escaped)."""
    said: list[str] = []
    overall = data.query(queries.overall, filters)
    if overall.empty:
        return said
    row = overall.iloc[0]
    said.append(
        f"**{fmt.pct(row['accuracy'])}** of {fmt.count(row['n_answers'])} answers are right: "
        f"{fmt.count(row['n_models'])} models asked in {fmt.count(row['n_langs'])} prompt languages; "
        f"{fmt.pct(row['no_country_share'])} name no country at all. "
        + _link("map", filters, "Where they are right and wrong, on the map →")
    )
    extremes = data.query(queries.model_range, filters)
    if len(extremes) == 2 and extremes["model"].nunique() == 2:
        best, worst = extremes.iloc[0], extremes.iloc[1]
        said.append(
            f"The most accurate model, **{literal(best['model'])}**, is right in {fmt.pct(best['accuracy'])} of its "
            f"answers; the least, **{literal(worst['model'])}**, in {fmt.pct(worst['accuracy'])}. "
            + _link("compare", filters, "Compare the two question by question →", a=best["model"], b=worst["model"])
        )
    pull = data.query(queries.language_pull, filters)
    if not pull.empty:
        row = pull.iloc[0]
        said.append(
            f"When a model is wrong in a language other than English, **{fmt.pct(row['pull_share'])}** of its wrong "
            "answers name a country where the prompt's language is spoken, against "
            f"{fmt.pct(row['base_share'])} of its wrong answers to English prompts; the strongest pull is "
            f"{literal(fmt.language(row['top_lang']))} ({fmt.pct(row['top_pull_share'])} against "
            f"{fmt.pct(row['top_base_share'])}, {fmt.count(row['top_n_wrong'])} wrong answers). "
            + _link("language-pull", filters, "The pull of each language →")
        )
    confusion = data.query(queries.top_confusion, filters)
    if not confusion.empty:
        row = confusion.iloc[0]
        said.append(
            f"Dishes from **{literal(row['true_name'])}** are given to **{literal(row['named_name'])}** in "
            f"{fmt.pct(row['share'])} of their {fmt.count(row['n_true'])} answers, the most common single mistake "
            "for any origin. "
            + _link(
                "confusion", filters, "What each origin is taken for →", countries=[row["true_country"], row["named"]]
            )
        )
    same = data.query(queries.consistency, filters)
    if not same.empty and same.iloc[0]["n_items"]:
        row = same.iloc[0]
        said.append(
            "Ask a model one question in two prompt languages and it names the same countries in "
            f"**{fmt.pct(row['pair_agreement'])}** of the pairs (over {fmt.count(row['n_items'])} model–question "
            f"pairs; {fmt.pct(row['all_agree'])} are answered alike in every language). "
            + _link("consistency", filters, "Which answers change with the language →")
        )
    gap = data.query(queries.language_gap, filters)
    if not gap.empty and gap.iloc[0]["gap"] < 0:
        row = gap.iloc[0]
        said.append(
            f"Prompts in {literal(fmt.language(row['lang']))} fare worst against English on the same questions: "
            f"**{abs(row['gap']):.1f} points** lower on average over {fmt.count(row['n_models'])} models "
            f"({fmt.count(row['n_models_worse'])} of them lower beyond their 95% interval). "
            + _link("language-gap", filters, "Every language against English →")
        )
    return said


def headline(filters: Filters) -> None:
    """The findings as a list under a heading; says plainly when the selection supports none."""
    st.subheader("What the models believe")
    said = sentences(filters)
    if not said:
        st.caption("The selected answers are too few for a headline finding; pick more models or languages.")
        return
    st.markdown("\n".join(f"- {sentence}" for sentence in said))
