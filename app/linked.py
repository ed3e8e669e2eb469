"""The answers an analysis page reads: the dataset's own, or — until it has native runs — real
answers borrowed from a linked record of another dataset, always labelled.

BORSch ships no model answers, but hundreds of its dishes are WorldCuisines dishes that 12 real
models answered in 30 prompt languages (marts.linked_origin_answers). The Co-occurrence, Code
mixing and Language pull pages call `answers_for(selected, page)`: with the dataset's own scored
answers it returns the sidebar filters unchanged; without them it says plainly whose answers are
shown instead (which models, which prompt languages, which dataset asked), lets the reader pick
the models, the prompt languages and whose gold scores them (kept in the link as `?gold=`,
`?lmodels=`, `?llangs=`), and returns filters over those linked rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app import data, ui, widgets
from app.safe import code, literal
from warehouse.queries import linked as queries
from warehouse.queries.answers import Filters
from warehouse.queries.linked import OWN, AnswerSource

__all__ = ["OWN", "AnswerSource", "Answers", "answers_for", "gold_label"]


@dataclass(frozen=True)
class Answers:
    """The filters of a page and where its answers come from (`label` names them for captions)."""

    filters: Filters
    source: AnswerSource = OWN
    label: str = ""
    asked: str = ""  # the dataset whose questions the linked answers answered

    @property
    def column(self) -> str:
        """What a table's `answers` column says about linked rows."""
        return f"linked: {self.asked} {self.filters.task}"

    @property
    def linked(self) -> bool:
        return self.source.answers_from == "linked"


def gold_label(gold: str, dataset: str) -> str:
    return f"{gold} gold" + (" (this dish's own dataset)" if gold == dataset else " (the dataset that asked)")


def answers_for(selected: ui.Selection, page: str, *, required: bool = True) -> Answers | None:
    """The sidebar's filters over the dataset's own answers; else linked answers with their
    labels and selectors; else the empty state and a stop (`required`), or None (the page explains)."""
    if selected.filters is not None:
        return Answers(selected.filters)
    summary = data.query(queries.summary, selected.dataset)
    if summary.empty:
        if required:
            ui.no_answers(selected)  # which datasets do have answers, one click away
            st.stop()
        return None
    row = summary.iloc[0]  # the asking dataset and task with the most answers
    asked, task = str(row["answer_dataset"]), str(row["task"])
    models, langs = [str(m) for m in row["models"]], [str(lang) for lang in row["langs"]]
    dataset = selected.dataset
    st.info(
        f"**{literal(dataset)} has no model answers of its own yet**, so this page shows **linked answers**: "
        f"{int(row['n_answers']):,} real answers of {len(models)} models to {literal(asked)}'s question "
        f"(task {code(task)}, its photo and prompt, in {len(langs)} prompt languages) about "
        f"{int(row['n_linked_records']):,} {literal(asked)} dishes that are the same dish as "
        f"{int(row['n_dishes']):,} {literal(dataset)} dishes (dish identity links of score ≥ 0.5, see each Dish "
        f"page). They are not answers to a {literal(dataset)} question; native {literal(dataset)} runs will "
        "replace them here.",
        icon=":material/link:",
    )
    columns = st.columns(3)
    gold = widgets.url_select(
        "Scored against",
        [dataset, asked],
        param="gold",
        format_func=lambda g: gold_label(g, dataset),
        container=columns[0],
        key=f"{page}_linked_gold",
        help=f"Whose gold origins decide right and wrong: {dataset}'s for the dish, or {asked}'s for its question.",
    )
    chosen_models = widgets.url_multiselect(
        "Models (linked answers)", models, param="lmodels", container=columns[1], key=f"{page}_linked_models",
        help="None selected: all models.",
    )  # fmt: skip
    chosen_langs = widgets.url_multiselect(
        "Prompt languages (linked answers)", langs, param="llangs", container=columns[2],
        key=f"{page}_linked_langs", help="None selected: all prompt languages.",
    )  # fmt: skip
    shown_models = ", ".join(chosen_models) if chosen_models else f"all {len(models)} models"
    shown_langs = ", ".join(chosen_langs) if chosen_langs else f"all {len(langs)} prompt languages"
    label = (
        f"Linked answers: {shown_models}; {shown_langs}; asked by {asked} (task {task}); "
        f"scored against {gold_label(gold, dataset)}."
    )
    filters = Filters(dataset=dataset, task=task, models=chosen_models, langs=chosen_langs)
    return Answers(filters, AnswerSource("linked", gold), label, asked)
