"""A study page with no answers yet is never a dead end: it says what it would show (each figure and table with the
columns its mart guarantees), the exact commands that fill it, and a template answer file in that study's import
format to download (pipeline/answers/templates.py), which imports as it is."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app import data
from app.safe import code, literal
from pipeline.answers.templates import template
from warehouse.marts import contract_of
from warehouse.queries import templates as queries


@dataclass(frozen=True)
class EmptyStudy:
    """What one study page needs to explain itself before it has answers."""

    what: str  # what the page shows once answers exist (markdown, written here)
    shows: tuple[tuple[str, str], ...]  # (figure or table as the paper names it, the mart table it reads)
    commands: tuple[str, ...]  # shell commands, in order
    answer_format: str | None = None  # `import-responses --format` whose template the page offers


def contract_columns(table: str) -> tuple[str, ...]:
    """The columns a mart table guarantees (its mart's declaration, warehouse/marts/NAME.toml), in order."""
    return contract_of(table).names


def template_file(answer_format: str) -> tuple[str, bytes]:
    """The format's template: the warehouse's items of its dataset when loaded, else the documented examples."""
    chosen = template(answer_format)
    sheet = data.query(queries.answer_sheet, chosen.dataset)
    rows = [
        {"source_ref": ref, "lang": lang if isinstance(lang, str) else None} for ref, lang in sheet.itertuples(False)
    ]
    return chosen.filename, chosen.render(rows)


def template_download(answer_format: str) -> None:
    """The format's template answer file as a download button, and what to put in it."""
    filename, payload = template_file(answer_format)
    chosen = template(answer_format)
    n_lines = payload.count(b"\n") - (1 if chosen.is_csv else 0)
    st.download_button(
        f"Template answer file ({n_lines:,} line{'s' if n_lines != 1 else ''})",
        payload,
        file_name=filename,
        mime="text/csv" if chosen.is_csv else "application/jsonl",
        icon=":material/download:",
        on_click="ignore",
        key=f"template_{answer_format}",
    )
    command = f"import-responses --format {answer_format}"
    st.caption(
        f"{code(filename)}: the columns {', '.join(code(c) for c in chosen.columns)} of "
        f"{code(command)}. Put your model's name in "
        f"{code('model')} and its answers in {code(chosen.columns[-2] if chosen.is_csv else 'response')}; "
        "an empty answer imports as a missing one. It lists the items this warehouse holds for the study, or "
        "example rows when the study's data is not loaded yet."
    )


def show(study: EmptyStudy, why: str) -> None:
    """Draw the empty state and stop the page: `why` says what is missing, in one sentence."""
    st.info(why, icon=":material/info:")
    st.markdown(study.what)
    st.subheader("How to fill this page")
    st.code("\n".join(study.commands), language="bash")
    if study.answer_format is not None:
        template_download(study.answer_format)
    st.subheader("What this page shows once answers are in")
    for title, table in study.shows:
        st.markdown(f"**{literal(title)}** — read from {code(table)}")
        st.dataframe(pd.DataFrame(columns=list(contract_columns(table))), hide_index=True, height=80)
    st.stop()
