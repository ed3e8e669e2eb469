"""Co-occurrence: do models know the origins of dishes the corpus often mentions next to them?

For each dish the corpus scan counts the documents naming it together with one of its true origin
countries (`count`), and that count over the documents naming it with any country (`ratio`). The
mean origin-QA Jaccard is drawn over 10 bins of either (BORSch Fig. 6); bins and intervals are
defined in warehouse/marts/090_corpus_analyses.sql.
"""

import streamlit as st

from app import bin_labels, charts, data, fmt, ui, widgets
from app.safe import literal
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
        f"No corpus has counted the dishes of **{literal(selected.dataset)}** yet. Scan one with `{SCAN}` "
        "(one `--lang` per corpus language), then score the answers with `python -m pipeline score`; "
        "the counts appear here once the warehouse is published.",
        icon=":material/info:",
    )
    st.stop()

names = {row.corpus_id: fmt.corpus(row.corpus_id, row.lang, row.n_dishes_counted) for row in corpora.itertuples()}
columns = st.columns(3)
corpus_id = widgets.url_select("Corpus", list(names), param="corpus", format_func=names.get, container=columns[0])
measure = widgets.url_select("Measure", list(MEASURES), param="measure", container=columns[1],
                        format_func=lambda m: {"count": "count (log bins)", "ratio": "ratio"}[m])  # fmt: skip
by = widgets.url_select("One line per", list(LINES), param="by", format_func=LINES.get, container=columns[2])

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
    axis = charts.Bins(10, MEASURES[measure], labels)
    means = bins.rename(
        columns={"jaccard": "mean", "jaccard_low": "mean_low", "jaccard_high": "mean_high", "n_dishes": "n_units"}
    )
    st.plotly_chart(
        charts.binned_means(means, axis, series="line", unit="dishes", y_title="mean origin Jaccard (95% interval)"),
        config={"displayModeBar": False},
        key="cooc_chart",
    )
    st.plotly_chart(
        charts.binned_counts(
            dishes[f"{measure}_bin"], dishes["name"], axis, unit="dishes", y_title="dishes in the corpus"
        ),
        config={"displayModeBar": False},
        key="cooc_dishes",
    )
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
    fmt.dataframe(table, {by: "Model" if by == "model" else "Prompt language"})
    ui.downloads(table, f"{selected.dataset}_{corpus_id}_cooccurrence_{measure}", key="cooc_bins")

with st.expander(f"Counts per dish ({len(dishes):,})"):
    fmt.dataframe(dishes)
    ui.downloads(dishes, f"{selected.dataset}_{corpus_id}_dish_counts", key="cooc_dishes_table")
