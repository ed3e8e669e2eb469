"""The Dish page's view of one dish across datasets: its linked records (method, score), where the
datasets disagree about its origin, the real answers to questions about the linked records,
labelled with the dataset they were asked in, the model, the prompt language and whose gold scores
them, and the answers about *other* dishes that name or mention it (warehouse/queries/about_dish.py).
When no question about the dish or any record of it was ever asked, the page says so plainly and
lists the nearest dishes that do have answers."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import data, fmt, ui, widgets
from app.safe import literal
from warehouse.queries import about_dish
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
        fmt.dataframe(
            links.drop(columns=["evidence"]),
            {
                "score": st.column_config.NumberColumn("Score", format="%.2f", help=LINK_HELP),
                "method": st.column_config.TextColumn("Method", help=LINK_HELP),
                "origins_agree": st.column_config.CheckboxColumn("Same origins"),
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
    keys = tuple(data.query(about_dish.group, dish_key))
    asked = data.query(about_dish.asked, keys)
    if asked.empty:
        _never_asked(dish_key, keys)
    else:
        _linked_answers(dish_key, dataset, links)
        _name_answers(dish_key)
    _named_or_mentioned(keys, prominent=asked.empty)


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
    rules = ["exact", "lev1", "stem", "paper"]
    accuracy = answers.groupby("model")[rules].mean().reset_index()
    fmt.dataframe(accuracy, {rule: st.column_config.NumberColumn(fmt.header(rule), format="%.2f") for rule in rules})
    fmt.dataframe(answers.drop(columns=["generation_id"]))  # plain headers, language names


def _never_asked(dish_key: str, keys: tuple[str, ...]) -> None:
    """No question about this dish or any record of it was put to a model: say so, and where to look."""
    others = [key for key in keys if key != dish_key]
    st.subheader("What models said about it")
    st.warning(
        "**No model was asked about this dish.** Neither this record"
        + (f" nor the {len(others)} records linked to it ({literal(', '.join(others))})" if others else "")
        + " is among the questions the models answered (WorldCuisines' 500 origin questions in 30 prompt "
        "languages and its 100 task-1 dishes; BORSch ships no answers). Below: the real answers about *other* "
        "dishes that named or mentioned it, and the nearest dishes that were asked about.",
        icon=":material/help:",
    )
    nearest = data.query(about_dish.nearest, keys)
    st.markdown("**Nearest dishes with answers**")
    if nearest.empty:
        st.caption("No dish shares a name, or a category and an origin, with this one and has answers.")
        return
    shown = nearest.assign(page=[f"/dish?dataset={row.dataset}&dish={row.dish_key}" for row in nearest.itertuples()])
    st.dataframe(
        shown[["display_name", "dataset", "origins", "n_answers", "relation", "page"]],
        hide_index=True,
        column_config={
            "display_name": "Dish",
            "n_answers": st.column_config.NumberColumn(
                "Answers", help="Asked about it, or borrowed through a dish link (labelled on its page)."
            ),
            "page": st.column_config.LinkColumn("Dish page", display_text="open"),
        },
    )


def _named_or_mentioned(keys: tuple[str, ...], *, prominent: bool) -> None:
    """Answers about other dishes that named this one (dish-name questions) or mentioned it by name
    (origin questions), with the countries the latter give it."""
    named = data.query(about_dish.named_it, keys)
    mentioned = data.query(about_dish.mentioned_it, keys)
    if named.empty and mentioned.empty:
        if prominent:
            st.caption("No answer about another dish names or mentions it either.")
        return
    container = st.container() if prominent else st.expander(
        f"Answers about other dishes that name or mention it ({len(named) + len(mentioned):,})"
    )  # fmt: skip
    with container:
        if prominent:
            st.markdown("**Answers about other dishes that name or mention it**")
        cols = st.columns(2)
        cols[0].metric(
            "Called it, shown another dish",
            f"{len(named):,}",
            border=True,
            help='Dish-name answers ("what is this dish called?") naming it for another dish\'s photo.',
        )
        total = int(mentioned["n_total"].iloc[0]) if not mentioned.empty else 0
        cols[1].metric("Mentioned it, asked about another dish", f"{total:,}", border=True,
                       help="Origin answers that name it while answering about another dish's photo.")  # fmt: skip
        if not named.empty:
            per_dish = (
                named.groupby(["asked_about", "asked_dish_key"])
                .agg(answers=("generation_id", "size"), models=("model", "nunique"), named_as=("named_name", "first"))
                .reset_index()
                .sort_values(["answers", "asked_about"], ascending=[False, True])
            )
            st.caption("The dishes models called by this dish's name, most often first:")
            st.dataframe(per_dish, hide_index=True)
            ui.downloads(named.drop(columns=["generation_id"]), "named_it", key="dish_named_it")
        if not mentioned.empty:
            named_countries = mentioned["predicted"].fillna("").str.split(",").explode()
            counts = named_countries[named_countries != ""].value_counts()
            if not counts.empty:
                listed = ", ".join(str(country) + " " + str(n) for country, n in counts.head(8).items())
                st.caption(
                    "Countries named in the answers that mention it: "
                    + literal(listed)
                    + " (compare the gold origins above; these answers were scored against the other dish's gold)."
                )
            st.dataframe(
                mentioned.drop(columns=["generation_id", "n_total"]),
                hide_index=True,
                column_config={"asked_about": "asked about", "asked_gold": "its gold", "predicted": "countries"},
            )
            ui.downloads(mentioned.drop(columns=["generation_id"]), "mentioned_it", key="dish_mentioned_it")


def _pct(value: float) -> str:
    return "–" if pd.isna(value) else f"{value:.0%}"
