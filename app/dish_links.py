"""The Dish page's view of one dish across datasets: its linked records (method, score), where the
datasets disagree about its origin, and the real answers to questions about the linked records,
labelled with the dataset they were asked in, the model, the prompt language and whose gold scores
them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import data, fmt, ui, widgets
from app.safe import literal
from warehouse.queries import names as queries

LINK_HELP = (
    "How the records were linked: parallel (BORSch's RU↔UK pair), exact (same name, same language), "
    "alias (same name among another language's aliases), translit (same name after Cyrillic→Latin "
    "transliteration), fuzzy (rapidfuzz ratio ≥ 90). A name shared by k dishes scores 1/k; answers of "
    "links scoring 0.5 or more are shown."
)


def show(dish_key: str, dataset: str) -> None:
    """Links, origin disagreements and linked answers of `dish_key` (a dish of `dataset`)."""
    links = data.query(queries.links, dish_key)
    st.subheader("The same dish in other records")
    if links.empty:
        st.caption("No other dataset names this dish (no link found).")
    else:
        st.dataframe(
            links.drop(columns=["evidence"]),
            hide_index=True,
            column_config={
                "score": st.column_config.NumberColumn("score", format="%.2f", help=LINK_HELP),
                "method": st.column_config.TextColumn("method", help=LINK_HELP),
                "origins_agree": st.column_config.CheckboxColumn("same origins"),
            },
        )
        disagreements = data.query(queries.disagreements, dish_key)
        if not disagreements.empty:
            st.warning(
                "The datasets disagree about where this dish comes from: "
                + "; ".join(
                    f"{literal(dataset)} gives {literal(row.origins or 'no country')}, {literal(row.linked_dataset)} "
                    f"({literal(row.linked_display_name)}) gives {literal(row.linked_origins or 'no country')}"
                    for row in disagreements.drop_duplicates(["linked_dataset", "linked_origins"]).itertuples()
                ),
                icon=":material/call_split:",
            )
            st.caption("Each dataset's gold origins are kept as it gives them; nothing is merged.")
    _linked_answers(dish_key, dataset, links)
    _name_answers(dish_key)


def _linked_answers(dish_key: str, dataset: str, links: pd.DataFrame) -> None:
    answers = data.query(queries.linked_answers, dish_key)
    if answers.empty:
        if not links.empty:
            st.caption(
                "None of the linked records is among the questions models answered "
                "(WorldCuisines' 500 origin questions and 100 task-1 dishes), so there are no answers to borrow."
            )
        return
    origin = answers[answers["kind"] == "origin"]
    st.subheader("What models said about it, asked in another dataset")
    sources = sorted(set(origin["dataset"]) | set(answers["dataset"]))
    st.info(
        f"These are real answers to questions about the linked record in {literal(', '.join(sources))} "
        f"(its photo and question, in each prompt language), not answers to a {literal(dataset)} question. "
        f"'accuracy vs {literal(dataset)} gold' scores their first named country against this dish's gold origins; "
        "'accuracy vs linked gold' against the gold of the dataset that asked.",
        icon=":material/link:",
    )
    if not origin.empty:
        summary = data.query(queries.linked_summary, dish_key)
        cols = st.columns(3)
        cols[0].metric("Models", f"{summary['model'].nunique()}", border=True)
        cols[1].metric("Answers", f"{len(origin):,}", border=True)
        cols[2].metric(f"Accuracy vs {literal(dataset)} gold", _pct(origin["score_dish_gold"].mean()), border=True)
        st.dataframe(
            summary.rename(
                columns={
                    "accuracy_linked_gold": "accuracy vs linked gold",
                    "accuracy_this_gold": f"accuracy vs {dataset} gold",
                }
            ),
            hide_index=True,
            column_config={
                "accuracy vs linked gold": st.column_config.NumberColumn(format="%.2f"),
                f"accuracy vs {dataset} gold": st.column_config.NumberColumn(format="%.2f"),
            },
        )
    langs = sorted(answers["lang"].unique())
    lang = widgets.url_select(
        "Prompt language of the linked answers",
        ["all", *langs],
        param="llang",
        format_func=lambda code: "All prompt languages" if code == "all" else fmt.language(code),
        what="prompt language",
        default="en" if "en" in langs else "all",
        container=st,
        key="dish_linked_lang",
    )
    shown = answers if lang == "all" else answers[answers["lang"] == lang]
    st.dataframe(
        shown.drop(columns=["generation_id", "response"]),
        hide_index=True,
        column_config={
            "score_own_gold": st.column_config.NumberColumn("vs linked gold", format="%.2f"),
            "score_dish_gold": st.column_config.NumberColumn(f"vs {dataset} gold", format="%.2f"),
            "link_score": st.column_config.NumberColumn("link score", format="%.2f"),
        },
    )
    ui.downloads(shown.drop(columns=["generation_id"]), f"{dish_key}_linked_answers", key="dish_linked_answers")


def _name_answers(dish_key: str) -> None:
    answers = data.query(queries.dish_name_answers, dish_key)
    if answers.empty:
        return
    st.subheader("What models called this dish")
    accuracy = answers.groupby("model")[["exact", "lev1", "stem", "paper"]].mean().reset_index()
    number = st.column_config.NumberColumn(format="%.2f")
    st.dataframe(accuracy, hide_index=True, column_config=dict.fromkeys(accuracy.columns[1:], number))
    st.dataframe(answers.drop(columns=["generation_id"]), hide_index=True)


def _pct(value: float) -> str:
    return "–" if pd.isna(value) else f"{value:.0%}"
