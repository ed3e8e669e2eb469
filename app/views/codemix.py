"""Code mixing: does the Ukrainian web use the Ukrainian or the Russian name of a dish, and does it
matter for the models? (BORSch Fig. 5.)

For each parallel RU/UK dish pair with different names, d = documents of the Ukrainian corpus using
the Ukrainian name − documents using the Russian name, in 9 symmetric log-spaced bins (defined in
warehouse/marts/090_corpus_analyses.sql). Per bin: mean origin-QA Jaccard of the answers about the
Ukrainian dish, and mean dish-name VQA match.
"""

import streamlit as st

from app import bin_labels, charts, data, fmt, ui, widgets
from app.safe import literal
from warehouse.queries import corpus as queries

SCAN = "python -m pipeline corpus scan --lang uk --source PATH"
PAIRS_DATASET = "borsch"  # the parallel RU/UK pairs are BORSch's
METRICS = {"jaccard": ("origin Jaccard", "#1f77b4"), "name_match": ("dish-name match (VQA)", "#d62728")}


def no_scores(selected: ui.Selection) -> None:
    """Why the score chart is empty, without sending the reader in a circle: the pairs are BORSch
    dishes, so only answers about BORSch dishes score them; the other dataset's answers never do."""
    if selected.dataset != PAIRS_DATASET and PAIRS_DATASET in set(ui.answered()["dataset"]):
        st.info(
            "The pairs are BORSch dishes: their scores come from answers about BORSch dishes.",
            icon=":material/info:",
        )
        st.button(
            "Show the BORSch answers",
            on_click=ui.switch_dataset,
            args=(PAIRS_DATASET,),
            icon=":material/arrow_forward:",
        )
        return
    scope = "the selected models and prompt languages" if selected.dataset == PAIRS_DATASET else "this warehouse"
    st.info(
        f"No answers about these BORSch dishes are scored for {scope}, so there are no scores per bin (the "
        "public BORSch release has no model answers; `python -m pipeline generate --task borsch.origin_qa ...` "
        "asks a model). The pair counts below need no answers.",
        icon=":material/info:",
    )


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

names = {row.corpus_id: fmt.corpus(row.corpus_id, row.corpus_lang) for row in corpora.itertuples()}
corpus_id = widgets.url_select("Corpus", list(names), param="corpus", format_func=names.get, container=st)
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
axis = charts.Bins(9, "documents with the Ukrainian name − with the Russian name (9 symmetric log bins)", labels)

bins = data.query(queries.codemix_bins, selected.filters, corpus_id) if selected.filters is not None else None
if bins is None or bins.empty:
    no_scores(selected)
else:
    st.plotly_chart(
        charts.binned_means(
            bins.rename(columns={"n_pairs": "n_units"}), axis, series="metric", unit="pairs",
            y_title="mean score (95% interval)", names=METRICS, middle_line=True,
        ),
        config={"displayModeBar": False},
        key="codemix_chart",
    )  # fmt: skip
    missing = [label for metric, (label, _) in METRICS.items() if metric not in set(bins["metric"])]
    if missing:
        st.caption(f"No scored answers for: {literal(', '.join(missing))}.")
    table = bins.assign(d_range=bins["bin"].map(labels))[
        ["metric", "task", "bin", "d_range", "n_pairs", "n_answers", "mean", "mean_low", "mean_high", "dishes"]
    ]
    fmt.dataframe(table)
    ui.downloads(table, f"{selected.dataset}_{corpus_id}_codemix_bins", key="codemix_bins")

st.plotly_chart(
    charts.binned_counts(pairs["bin"], pairs["uk_name"], axis, unit="pairs", y_title="pairs"),
    config={"displayModeBar": False},
    key="codemix_pairs_chart",
)
st.caption(
    "Bins: sign(d)·log10(1 + |d|) cut into 9 equal widths from −M to M, M the largest |value| in this corpus; "
    "the middle bin holds d = 0. Means are over answers, pooled over the selected models and prompt languages; "
    "error bars are 95% normal-approximation intervals."
)
with st.expander(f"Pairs ({len(pairs):,})"):
    fmt.dataframe(pairs)
    ui.downloads(pairs, f"{corpus_id}_codemix_pairs", key="codemix_pairs")
