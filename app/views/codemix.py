"""Code mixing: does the Ukrainian web use the Ukrainian or the Russian name of a dish, and does it
matter for the models? (BORSch Fig. 5.)

For each parallel RU/UK dish pair with different names, d = documents of the Ukrainian corpus using
the Ukrainian name − documents using the Russian name, in 9 symmetric log-spaced bins (defined in
warehouse/marts/090_corpus_analyses.sql). Per bin: mean origin-QA Jaccard of the answers about the
Ukrainian dish, and mean dish-name VQA match.
"""

import plotly.graph_objects as go
import streamlit as st

from app import bin_labels, data, ui
from warehouse.queries import corpus as queries

SCAN = "python -m pipeline corpus scan --lang uk --source PATH"
METRICS = {"jaccard": ("origin Jaccard", "#1f77b4"), "name_match": ("dish-name match (VQA)", "#d62728")}


def axis(labels: dict[int, str]) -> dict:
    return {
        "title": "documents with the Ukrainian name − with the Russian name (9 symmetric log bins)",
        "tickmode": "array",
        "tickvals": list(range(1, 10)),
        "ticktext": [labels.get(b, str(b)) for b in range(1, 10)],
        "range": [0.5, 9.5],
    }


def means_chart(frame, labels: dict[int, str]) -> go.Figure:
    fig = go.Figure()
    for metric, rows in frame.groupby("metric", sort=False):
        name, color = METRICS.get(str(metric), (str(metric), "#7f7f7f"))
        rows = rows.sort_values("bin")
        custom = [[labels.get(int(r.bin), ""), r.n_pairs, r.n_answers, bin_labels.wrap_names(r.dishes), r.task]
                  for r in rows.itertuples()]  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=rows["bin"].tolist(), y=rows["mean"].tolist(), mode="lines+markers", name=name, line={"color": color},
                error_y={"type": "data", "symmetric": False, "thickness": 1,
                         "array": (rows["mean_high"] - rows["mean"]).fillna(0).tolist(),
                         "arrayminus": (rows["mean"] - rows["mean_low"]).fillna(0).tolist()},
                customdata=custom,
                hovertemplate=f"<b>{name}</b> (%{{customdata[4]}})<br>bin %{{x}}: d %{{customdata[0]}}<br>"
                "mean %{y:.3f}<br>%{customdata[1]} pairs, %{customdata[2]:,} answers<br>"
                "<i>%{customdata[3]}</i><extra></extra>",
            )
        )  # fmt: skip
    fig.add_vline(x=5, line_dash="dot", line_color="#7f7f7f")
    fig.update_layout(
        height=440,
        margin={"l": 0, "r": 0, "t": 30, "b": 0},
        legend={"orientation": "h", "y": 1.02, "x": 0, "yanchor": "bottom"},
        xaxis=axis(labels),
        yaxis={"title": "mean score (95% interval)", "range": [0, 1.05]},
    )
    return fig


def pairs_chart(pairs, labels: dict[int, str]) -> go.Figure:
    per_bin = pairs.groupby("bin").agg(n=("pair_id", "size"), names=("uk_name", list))
    names = [bin_labels.wrap_names(n) for n in per_bin["names"]]
    fig = go.Figure(
        go.Bar(
            x=per_bin.index.astype(int).tolist(), y=per_bin["n"].tolist(), marker={"color": "#7f7f7f"},
            customdata=names,
            hovertemplate="bin %{x}: %{y} pairs<br><i>%{customdata}</i><extra></extra>",
        )
    )  # fmt: skip
    fig.update_layout(height=240, margin={"l": 0, "r": 0, "t": 10, "b": 0}, xaxis=axis(labels),
                      yaxis={"title": "pairs"})  # fmt: skip
    return fig


selected = ui.selection()

st.title("Code mixing")
st.markdown(
    "Ukrainian web text often names dishes in Russian (*surzhyk*). For each parallel dish whose Russian and "
    "Ukrainian names differ, *d* is the number of Ukrainian-corpus documents using the **Ukrainian** name minus "
    "those using the **Russian** name: right of the dotted line the Ukrainian name dominates. Are the models "
    "better about dishes the Ukrainian web names in Ukrainian? Hover a point for the dishes in its bin."
)

corpora = data.query(queries.codemix_corpora)
if corpora.empty:
    st.info(
        f"No corpus has counted the Russian and Ukrainian dish names yet. Scan the Ukrainian corpus with `{SCAN}`; "
        "the answers are scored by `python -m pipeline score`.",
        icon=":material/info:",
    )
    st.stop()

names = {row.corpus_id: f"{row.corpus_id} ({row.corpus_lang})" for row in corpora.itertuples()}
corpus_id = ui.url_select("Corpus", list(names), param="corpus", format_func=names.get, container=st)
counts = corpora.set_index("corpus_id").loc[corpus_id]
pairs = data.query(queries.codemix_pairs, corpus_id)
st.markdown(
    f"**{int(counts['n_binned']):,}** pairs binned of {int(counts['n_parallel']):,} parallel pairs; "
    f"**{int(counts['n_identical']):,} excluded** because the Russian and Ukrainian names are the same word"
    + (f", {int(counts['n_not_counted']):,} not counted by this scan." if int(counts["n_not_counted"]) else ".")
)
if pairs.empty:
    st.info("No pair with different names was counted in this corpus.", icon=":material/info:")
    st.stop()

labels = bin_labels.difference_labels(float(pairs["d"].abs().max()))

if selected.filters is None:
    st.info(ui.NO_ANSWERS, icon=":material/info:")
else:
    bins = data.query(queries.codemix_bins, selected.filters, corpus_id)
    if bins.empty:
        st.info(
            f"The selected models and prompt languages of **{selected.dataset}** have no scored answers about "
            "these dishes (task "
            f"`{selected.filters.task}` for the origin Jaccard, `dish_name_vqa` for the name match). The pairs are "
            "BORSch dishes: pick the borsch dataset, or score answers with `python -m pipeline score`.",
            icon=":material/info:",
        )
    else:
        st.plotly_chart(means_chart(bins, labels), config={"displayModeBar": False}, key="codemix_chart")
        missing = [label for metric, (label, _) in METRICS.items() if metric not in set(bins["metric"])]
        if missing:
            st.caption(f"No scored answers for: {', '.join(missing)}.")
        table = bins.assign(d_range=bins["bin"].map(labels))[
            ["metric", "task", "bin", "d_range", "n_pairs", "n_answers", "mean", "mean_low", "mean_high", "dishes"]
        ]
        st.dataframe(table, hide_index=True)
        ui.downloads(table, f"{selected.dataset}_{corpus_id}_codemix_bins", key="codemix_bins")

st.plotly_chart(pairs_chart(pairs, labels), config={"displayModeBar": False}, key="codemix_pairs_chart")
st.caption(
    "Bins: sign(d)·log10(1 + |d|) cut into 9 equal widths from −M to M, M the largest |value| in this corpus; "
    "the middle bin holds d = 0. Means are over answers, pooled over the selected models and prompt languages; "
    "error bars are 95% normal-approximation intervals."
)
with st.expander(f"Pairs ({len(pairs):,})"):
    st.dataframe(pairs, hide_index=True)
    ui.downloads(pairs, f"{corpus_id}_codemix_pairs", key="codemix_pairs")
