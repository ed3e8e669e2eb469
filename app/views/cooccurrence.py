"""Co-occurrence: do models know the origins of dishes the corpus often mentions next to them?

For each dish the corpus scan counts the documents naming it together with one of its true origin
countries (`count`), and that count over the documents naming it with any country (`ratio`). The
mean origin-QA Jaccard is drawn over 10 bins of either (BORSch Fig. 6); bins and intervals are
defined in warehouse/marts/090_corpus_analyses.sql.
"""

import plotly.graph_objects as go
import streamlit as st

from app import bin_labels, data, ui
from warehouse.queries import corpus as queries

SCAN = "python -m pipeline corpus scan --lang uk --source PATH"
MEASURES = {
    "count": "documents with a true origin country (10 log-spaced bins)",
    "ratio": "share of country mentions that are a true origin (10 bins of 0–1)",
}
LINES = {"model": "model (pooled over prompt languages)", "lang": "prompt language (pooled over models)"}


def labels_for(dishes, measure: str) -> dict[int, str]:
    if measure == "ratio":
        return bin_labels.ratio_labels()
    return bin_labels.count_labels(float(dishes["docs_with_true_country"].max()) if len(dishes) else 0.0)


def jaccard_chart(frame, measure: str, labels: dict[int, str]) -> go.Figure:
    fig = go.Figure()
    for line, rows in frame.groupby("line", sort=False):
        rows = rows.sort_values("bin")
        custom = [
            [labels.get(int(r.bin), ""), r.n_dishes, r.n_answers, bin_labels.wrap_names(r.dishes)]
            for r in rows.itertuples()
        ]
        fig.add_trace(
            go.Scatter(
                x=rows["bin"].tolist(), y=rows["jaccard"].tolist(), mode="lines+markers", name=str(line),
                error_y={"type": "data", "symmetric": False, "thickness": 1,
                         "array": (rows["jaccard_high"] - rows["jaccard"]).fillna(0).tolist(),
                         "arrayminus": (rows["jaccard"] - rows["jaccard_low"]).fillna(0).tolist()},
                customdata=custom,
                hovertemplate=f"<b>{line}</b><br>bin %{{x}} ({measure} %{{customdata[0]}})<br>"
                "mean Jaccard %{y:.3f}<br>%{customdata[1]} dishes, %{customdata[2]:,} answers<br>"
                "<i>%{customdata[3]}</i><extra></extra>",
            )
        )  # fmt: skip
    fig.update_layout(
        height=460,
        margin={"l": 0, "r": 0, "t": 30, "b": 0},
        legend={"orientation": "h", "y": 1.02, "x": 0, "yanchor": "bottom"},
        xaxis={
            "title": MEASURES[measure],
            "tickmode": "array",
            "tickvals": list(range(1, 11)),
            "ticktext": [labels.get(b, str(b)) for b in range(1, 11)],
            "range": [0.5, 10.5],
        },
        yaxis={"title": "mean origin Jaccard (95% interval)", "range": [0, 1.05]},
    )
    return fig


def dishes_chart(dishes, measure: str, labels: dict[int, str]) -> go.Figure:
    column = f"{measure}_bin"
    per_bin = dishes.dropna(subset=[column]).groupby(column).agg(n=("dish_key", "size"), names=("name", list))
    names = [bin_labels.wrap_names(n) for n in per_bin["names"]]
    fig = go.Figure(
        go.Bar(
            x=per_bin.index.astype(int).tolist(), y=per_bin["n"].tolist(), marker={"color": "#7f7f7f"},
            customdata=names,
            hovertemplate="bin %{x}: %{y} dishes<br><i>%{customdata}</i><extra></extra>",
        )
    )  # fmt: skip
    fig.update_layout(
        height=220,
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        xaxis={"tickmode": "array", "tickvals": list(range(1, 11)),
               "ticktext": [labels.get(b, str(b)) for b in range(1, 11)], "range": [0.5, 10.5]},
        yaxis={"title": "dishes in the corpus"},
    )  # fmt: skip
    return fig


selected = ui.selection()
filters = ui.require_answers(selected)

st.title("Co-occurrence")
st.markdown(
    "Are models right about the origins of dishes that the pretraining corpus often mentions together with "
    "their true country? Each dish's documents are counted where it appears with one of its **true origin "
    "countries** (*count*), and that count is divided by its documents with **any country** (*ratio*). "
    "The mean origin-QA Jaccard of the selected models is drawn over 10 bins of either. Hover a point for "
    "the dishes in its bin."
)

corpora = data.query(queries.corpora, selected.dataset)
if corpora.empty:
    st.info(
        f"No corpus has counted the dishes of **{selected.dataset}** yet. Scan one with `{SCAN}` "
        "(one `--lang` per corpus language), then score the answers with `python -m pipeline score`; "
        "the counts appear here once the warehouse is published.",
        icon=":material/info:",
    )
    st.stop()

names = {
    row.corpus_id: f"{row.corpus_id} ({row.lang}, {row.n_dishes_counted:,} dishes)" for row in corpora.itertuples()
}
columns = st.columns(3)
corpus_id = ui.url_select("Corpus", list(names), param="corpus", format_func=names.get, container=columns[0])
measure = ui.url_select("Measure", list(MEASURES), param="measure", container=columns[1],
                        format_func=lambda m: {"count": "count (log bins)", "ratio": "ratio"}[m])  # fmt: skip
by = ui.url_select("One line per", list(LINES), param="by", format_func=LINES.get, container=columns[2])

bins = data.query(queries.cooccurrence_bins, filters, corpus_id, measure, by)
dishes = data.query(queries.cooccurrence_dishes, corpus_id, selected.dataset)
if bins.empty:
    st.info(
        f"The corpus counted {len(dishes):,} dishes, but the selected task, models and prompt languages have no "
        "scored origin answers about them. Widen the sidebar filters, or score answers with "
        "`python -m pipeline score`.",
        icon=":material/info:",
    )
else:
    labels = labels_for(dishes, measure)
    st.plotly_chart(jaccard_chart(bins, measure, labels), config={"displayModeBar": False}, key="cooc_chart")
    st.plotly_chart(dishes_chart(dishes, measure, labels), config={"displayModeBar": False}, key="cooc_dishes")
    note = (
        "Bins are log10(1 + count) cut into 10 equal widths from 0 to the corpus's largest count"
        if measure == "count"
        else "Bins are 10 equal widths of the ratio 0–1; dishes never seen next to any country have no ratio"
    )
    st.caption(
        f"{note}. Error bars: 95% normal-approximation intervals over answers. Bottom: all counted dishes of "
        "the corpus per bin, answered or not."
    )
    table = bins.assign(bin_range=bins["bin"].map(labels))[
        ["line", "bin", "bin_range", "n_dishes", "n_answers", "jaccard", "jaccard_low", "jaccard_high", "dishes"]
    ].rename(columns={"line": by})
    st.dataframe(table, hide_index=True)
    ui.downloads(table, f"{selected.dataset}_{corpus_id}_cooccurrence_{measure}", key="cooc_bins")

with st.expander(f"Counts per dish ({len(dishes):,})"):
    st.dataframe(dishes, hide_index=True, column_config={"ratio": st.column_config.NumberColumn(format="%.3f")})
    ui.downloads(dishes, f"{selected.dataset}_{corpus_id}_dish_counts", key="cooc_dishes_table")
