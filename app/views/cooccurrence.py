"""Co-occurrence: do models know the origins of dishes the corpus often mentions next to them?

For each dish the corpus scan counts the documents naming it together with one of its true origin
countries (`count`), and that count over the documents naming it with any country (`ratio`). The
mean origin-QA Jaccard is drawn over 10 bins of either (BORSch Fig. 6); bins and intervals are
defined in warehouse/marts/090_corpus_analyses.sql. A dataset without answers of its own (BORSch)
is drawn with the real answers to linked records of another dataset, labelled as such
(app/linked.py).
"""

from dataclasses import replace

import streamlit as st

from app import bin_labels, charts, data, fmt, linked, links, ui, vega, widgets
from app.safe import literal
from warehouse.queries import corpus as queries

SCAN = "python -m pipeline corpus scan --lang uk --source PATH"
MEASURES = {
    "count": "documents with a true origin country (10 log-spaced bins)",
    "ratio": "share of documents with a country that name a true origin (10 bins of 0–1)",
    "mention_ratio": "true-origin share of the dish's country mentions (BORSch §4.3: 10 log-spaced bins)",
}
LINES = {"model": "model (pooled over prompt languages)", "lang": "prompt language (pooled over models)"}
CLICK_KEY = "cooc_last_click"


def labels_for(dishes, measure: str) -> dict[int, str]:
    if measure == "ratio":
        return bin_labels.ratio_labels()
    if measure == "mention_ratio":
        low = dishes["min_log_mention_ratio"].dropna()
        return bin_labels.log_ratio_labels(float(low.iloc[0]) if len(low) else None)
    return bin_labels.count_labels(float(dishes["docs_with_true_country"].max()) if len(dishes) else 0.0)


def follow_click(event, lines: list[str]) -> None:
    """A newly clicked point of the chart chooses its line and bin below (a repeated event is not
    applied twice); the point carries its line's value and its bin (charts.POINT)."""
    points = (event.selection.get(charts.POINT) if event and event.selection else None) or []
    if not points:
        st.session_state[CLICK_KEY] = None
        return
    point = points[0]
    if str(point.get("value")) not in lines:
        return
    click = (str(point["value"]), str(int(point["bin"])))
    if click != st.session_state.get(CLICK_KEY):
        st.session_state[CLICK_KEY] = click
        st.session_state["url_line"], st.session_state["url_bin"] = click


def behind_a_point(bins, event, labels: dict[int, str]) -> None:
    """The dishes and answers one point of the chart pools: click a point, or choose its line and bin."""
    st.subheader("Dishes behind a point")
    lines = list(dict.fromkeys(bins["line"]))
    follow_click(event, lines)
    left, right = st.columns(2)
    line = widgets.url_select(
        LINES[by].split(" (")[0].capitalize(), lines, param="line", what=by, container=left,
        format_func=lambda value: fmt.language(value) if by == "lang" else value,
    )  # fmt: skip
    in_line = sorted(int(b) for b in bins.loc[bins["line"] == line, "bin"])
    chosen = widgets.url_select(
        "Bin", [str(b) for b in in_line], param="bin", what="bin", container=right,
        format_func=lambda b: f"{b}: {labels.get(int(b), '')}",
    )  # fmt: skip
    rows = data.query(
        queries.cooccurrence_bin_dishes, filters, corpus_id, measure, int(chosen), by, line, answers.source
    )
    narrowed = replace(filters, models=(line,)) if by == "model" else replace(filters, langs=(line,))
    table = links.with_dish_links(rows, selected.dataset, name="name", column="name", filters=filters)
    if answers.linked:  # the dish page lists the linked answers (the Answers page holds a dataset's own)
        table["answers"] = [f"{fmt.count(n)} linked answers" for n in rows["n_answers"]]
    else:
        table["answers"] = [
            links.answers_url(narrowed, f"{fmt.count(n)} answers", dish=key)
            for key, n in rows[["dish_key", "n_answers"]].itertuples(index=False)
        ]
    st.caption(
        f"{literal(fmt.count(len(rows)))} dishes, {literal(fmt.count(rows['n_answers'].sum()))} answers "
        f"in bin {literal(chosen)} for "
        f"{literal(line)}. Click a dish for its page, a count for its answers."
    )
    table = table.drop(columns=["n_answers"])
    fmt.dataframe(
        table,
        {"name": links.dish_column(), "answers": "Answers" if answers.linked else links.answers_column()},
        key="cooc_point_dishes",
    )
    ui.downloads(links.as_shown(table, ["name", "answers"]), f"{selected.dataset}_cooccurrence_bin_{chosen}",
                 key="cooc_point")  # fmt: skip


selected = ui.selection()

st.title("Co-occurrence")
st.markdown(
    "Are models right about the origins of dishes that the pretraining corpus often mentions together with "
    "their true country? Each dish's documents are counted where it appears with one of its **true origin "
    "countries** (*count*), and that count is divided by its documents with **any country** (*ratio*). "
    "The mean origin-QA Jaccard of the selected models is drawn over 10 bins of either. Hover a point for "
    "the dishes in its bin."
)
answers = linked.answers_for(selected, "cooc")
filters = answers.filters

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
                        format_func=lambda m: {"count": "count (log bins)", "ratio": "ratio (documents)",
                                                 "mention_ratio": "ratio by mentions (paper)"}[m])  # fmt: skip
by = widgets.url_select("One line per", list(LINES), param="by", format_func=LINES.get, container=columns[2])

bins = data.query(queries.cooccurrence_bins, filters, corpus_id, measure, by, answers.source)
dishes = data.query(queries.cooccurrence_dishes, corpus_id, selected.dataset)
if bins.empty:
    st.info(
        f"The corpus counted {len(dishes):,} dishes, but the selected task, models and prompt languages have no "
        + ("linked " if answers.linked else "")
        + "scored origin answers about them. Widen the filters, or score answers with `python -m pipeline score`.",
        icon=":material/info:",
    )
else:
    labels = labels_for(dishes, measure)
    axis = charts.Bins(10, MEASURES[measure], labels)
    means = bins.rename(
        columns={"jaccard": "mean", "jaccard_low": "mean_low", "jaccard_high": "mean_high", "n_dishes": "n_units"}
    )
    y_title = "mean origin Jaccard (95% interval)"
    if answers.linked:
        y_title = f"mean origin Jaccard vs {answers.source.gold} gold, linked answers (95% interval)"
        st.caption(literal(answers.label))
    event = vega.draw(
        charts.binned_means(means, axis, series="line", unit="dishes", y_title=y_title),
        key="cooc_chart",
        on_select="rerun",
        selection_mode=charts.POINT,
    )
    vega.draw(
        charts.binned_counts(
            dishes[f"{measure}_bin"], dishes["name"], axis, unit="dishes", y_title="dishes in the corpus"
        ),
        key="cooc_dishes",
    )
    note = {
        "count": "Bins are log10(1 + count) cut into 10 equal widths from 0 to the corpus's largest count",
        "ratio": "Bins are 10 equal widths of the ratio 0–1; dishes never seen next to any country have no ratio",
        "mention_ratio": "As published (BORSch §4.3): true-origin mentions over all country mentions of the dish, "
        "10 log-spaced bins from the corpus's smallest positive ratio to 1 (a ratio of 0 in the first)",
    }[measure]
    st.caption(
        f"{note}. Error bars: 95% normal-approximation intervals over answers. Bottom: all counted dishes of "
        "the corpus per bin, answered or not."
    )
    table = bins.assign(bin_range=bins["bin"].map(labels))[
        ["line", "bin", "bin_range", "n_dishes", "n_answers", "jaccard", "jaccard_low", "jaccard_high", "dishes"]
    ].rename(columns={"line": by})
    if answers.linked:  # every row says whose answers and whose gold, in the download too
        table = table.assign(answers=answers.column, gold=answers.source.gold)
    fmt.dataframe(table, {by: "Model" if by == "model" else "Prompt language"})
    ui.downloads(table, f"{selected.dataset}_{corpus_id}_cooccurrence_{measure}", key="cooc_bins")
    behind_a_point(bins, event, labels)

st.subheader("Frequency against rank (BORSch Fig. 2a)")
ranked = data.query(queries.frequency_by_rank, corpus_id, selected.dataset)
if ranked.empty:
    st.info("The corpus counted none of this dataset's dishes.", icon=":material/info:")
else:
    vega.draw(charts.frequency_rank(ranked), key="cooc_rank")
    unseen = int((ranked["docs_with_dish"] == 0).sum())
    st.caption(
        f"Each dish of {literal(selected.dataset)} the corpus names, by how many documents name it and its rank "
        f"among the dataset's dishes, coloured by how the dataset found it (Wikidata or corpus bootstrapping); "
        f"{literal(fmt.count(unseen))} dishes the corpus never names are left off the log axes."
    )

with st.expander(f"Counts per dish ({len(dishes):,})"):
    counted = links.with_dish_links(dishes, selected.dataset, name="name", column="name", filters=filters)
    fmt.dataframe(counted, {"name": links.dish_column()})
    ui.downloads(
        links.as_shown(counted, ["name"]), f"{selected.dataset}_{corpus_id}_dish_counts", key="cooc_dishes_table"
    )
