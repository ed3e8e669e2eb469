"""A paper's table or figure as `export paper-tables` writes it (warehouse/paper_tables/), pivoted for reading: one
row per row of the paper, ours beside the number the paper prints for each column. The one widget every study
page uses to set its paper's numbers beside ours."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import data, fmt, ui
from app.safe import code, literal
from warehouse import paper_tables

PUBLISHED = " (published)"


def long_frame(source, paper: str, table: str) -> pd.DataFrame:
    """The long frame of one table (a query for `data.query`: `source` is the app's read cursor)."""
    return paper_tables.frame(source, paper_tables.TABLES[f"{paper}/{table}"]).to_pandas()


def pivoted(long: pd.DataFrame) -> pd.DataFrame:
    """One row per `row`; for each column (and method, where a table has the paper's rule and ours) our value, and
    the printed one beside it where the paper prints any in that column."""
    frame = long.assign(
        label=long["column"].astype(str)
        + long["method"].map(lambda m: f" · {m}" if isinstance(m, str) and m else "", na_action=None)
    )
    ours = frame.pivot_table(index="row", columns="label", values="value", aggfunc="first", dropna=False)
    printed = frame.dropna(subset=["published"]).pivot_table(
        index="row", columns="label", values="published", aggfunc="first"
    )
    columns: dict[str, pd.Series] = {}
    for label in dict.fromkeys(frame["label"]):
        columns[label] = ours[label] if label in ours else pd.Series(dtype=float)
        if label in printed:
            columns[label + PUBLISHED] = printed[label]
    table = pd.DataFrame(columns).reindex(list(dict.fromkeys(frame["row"])))
    return table.reset_index(names="row")


def show(paper: str, tables: list[str] | None = None, *, key: str) -> None:
    """A picker of the paper's tables and figures (those in `tables`, or all), the chosen one pivoted with the
    printed numbers beside ours, and its long frame to download (the `export paper-tables` file)."""
    declared = [t for t in paper_tables.tables_of(paper) if tables is None or t.table in tables]
    chosen = st.selectbox(
        "Table or figure",
        declared,
        format_func=lambda t: f"{t.section}: {t.title}",
        key=f"{key}_table",
    )
    long = data.query(long_frame, paper, chosen.table)
    if long.empty:
        st.caption(f"No numbers for {literal(chosen.section)} in this warehouse yet, and none printed.")
        return
    n_printed = int(long["published"].notna().sum())
    command, written = f"python -m pipeline export paper-tables --paper {paper}", f"{paper}_{chosen.table}.csv"
    st.caption(
        f"Ours beside the paper's printed numbers ({literal(n_printed)} printed cells; the columns marked published), "
        f"as {code(command)} writes {code(written)}."
    )
    fmt.dataframe(pivoted(long), width="stretch", key=f"{key}_{chosen.table}")
    ui.downloads(long, f"{paper}_{chosen.table}", key=f"{key}_{chosen.table}_dl")
