"""Code mixing: does the Ukrainian web use the Ukrainian or the Russian name of a dish, and does it
matter for the models? (BORSch Fig. 5.)

For each parallel RU/UK dish pair with different names, d = documents of the Ukrainian corpus using
the Ukrainian name − documents using the Russian name, in 9 symmetric log-spaced bins (defined in
warehouse/marts/090_corpus_analyses.sql). Per bin: mean origin-QA Jaccard of the answers about the
Ukrainian dish, and mean dish-name VQA match: as published (the answer contains a gold name within one edit,
Appendix I) and ours (a whole extracted candidate within one edit). Without answers of its own (BORSch ships none) the
dataset is drawn with the real answers to linked records of another dataset, labelled as such
(app/linked.py).
"""

import streamlit as st

from app import bin_labels, charts, data, fmt, linked, links, ui, vega, widgets
from app.safe import code, literal
from warehouse.queries import corpus as queries
from warehouse.queries import linked as linked_queries

SCAN = "python -m pipeline corpus scan --lang uk --source PATH"
PAIRS_DATASET = "borsch"  # the parallel RU/UK pairs are BORSch's
METRICS = {
    "jaccard": ("origin Jaccard", "#1f77b4"),
    # Fig. 5 as published (§4.2, Appendix I): the answer contains a gold name within one edit; ours beside it
    "name_contains_lev1": ("dish-name EM within one edit, as published (VQA)", "#d62728"),
    "name_match": ("dish-name match, ours: a whole candidate within one edit (VQA)", "#ff9896"),
}


def no_scores(selected: ui.Selection, answers: linked.Answers | None) -> None:
    """Why the score chart is empty, without sending the reader in a circle: the pairs are BORSch
    dishes, so only answers about BORSch dishes (its own, or linked ones) score them; the other
    dataset's answers never do."""
    borsch_answered = PAIRS_DATASET in set(ui.answered()["dataset"])
    borsch_linked = not data.query(linked_queries.summary, PAIRS_DATASET).empty
    if selected.dataset != PAIRS_DATASET and (borsch_answered or borsch_linked):
        st.info(
            "The pairs are BORSch dishes: their scores come from answers about BORSch dishes"
            + ("." if borsch_answered else " (linked WorldCuisines answers, until BORSch has its own)."),
            icon=":material/info:",
        )
        st.button(
            "Show the BORSch answers",
            on_click=ui.switch_dataset,
            args=(PAIRS_DATASET,),
            icon=":material/arrow_forward:",
        )
        return
    if answers is not None and answers.linked:
        st.info(
            "The selected models and prompt languages have no linked answers about these pairs (task "
            f"{code(answers.filters.task)} for the origin Jaccard, `dish_name_vqa` for the name match). Widen the "
            "**Models** and **Prompt languages** filters above.",
            icon=":material/info:",
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
answers = linked.answers_for(selected, "codemix", required=False)

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
stats = data.query(queries.surzhyk, corpus_id)
if not stats.empty:  # BORSch §4.2 (paper: mean edit distance 2.3; mC4: 41% Russian names in Ukrainian text)
    row = stats.iloc[0]
    cells = st.columns(3)
    cells[0].metric("Mean RU↔UK edit distance (all pairs)", f"{row['mean_edit_distance']:.2f}")
    cells[1].metric("Pairs with distinct names", f"{row['share_distinct_names']:.1%}")
    other = "Russian" if row["corpus_lang"] == "uk" else "Ukrainian"
    if row["code_mixed_share"] == row["code_mixed_share"]:  # not NaN: the corpus counted some of these names
        cells[2].metric(f"Occurrences with the {other} name (code-mixed)", f"{row['code_mixed_share']:.1%}")
    st.caption(
        "Surzhyk statistics as in BORSch §4.2: Levenshtein distance of the lower-cased names over the parallel "
        "pairs; the code-mixed share counts documents per name over the pairs with distinct names."
    )
if pairs.empty:
    st.info("No pair with different names was counted in this corpus.", icon=":material/info:")
    st.stop()

labels = bin_labels.difference_labels(float(pairs["d"].abs().max()))
axis = charts.Bins(9, "documents with the Ukrainian name − with the Russian name (9 symmetric log bins)", labels)

bins = data.query(queries.codemix_bins, answers.filters, corpus_id, answers.source) if answers else None
if bins is None or bins.empty:
    no_scores(selected, answers)
else:
    y_title = "mean score (95% interval)"
    if answers.linked:
        st.caption(literal(answers.label))
        y_title = f"mean score vs {answers.source.gold} gold, linked answers (95% interval)"
    vega.draw(
        charts.binned_means(
            bins.rename(columns={"n_pairs": "n_units"}), axis, series="metric", unit="pairs",
            y_title=y_title, names=METRICS, middle_line=True,
        ),
        key="codemix_chart",
    )  # fmt: skip
    missing = [
        label
        for metric, (label, _) in METRICS.items()
        if metric not in set(bins["metric"]) and not (answers.linked and metric == "name_contains_lev1")
    ]  # linked answers were scored by their own dataset's rules: the paper's name rule is BORSch's
    if missing:
        note = f"No scored answers for: {literal(', '.join(missing))}."
        if answers.linked and "name_match" not in set(bins["metric"]):
            note += (
                f" Linked dish-name answers are scored only against {literal(answers.asked)}'s names of the dish "
                "(the names they were asked about): pick that gold to see them."
            )
        st.caption(note)
    table = bins.assign(d_range=bins["bin"].map(labels))[
        ["metric", "task", "bin", "d_range", "n_pairs", "n_answers", "mean", "mean_low", "mean_high", "dishes"]
    ]
    if answers.linked:  # every row says whose answers and whose gold, in the download too
        table = table.assign(answers=answers.column, gold=answers.source.gold)
    fmt.dataframe(table)
    ui.downloads(table, f"{selected.dataset}_{corpus_id}_codemix_bins", key="codemix_bins")

event = vega.draw(
    charts.binned_counts(pairs["bin"], pairs["uk_name"], axis, unit="pairs", y_title="pairs"),
    key="codemix_pairs_chart",
    on_select="rerun",
    selection_mode=charts.BAR,
)
st.caption(
    "Bins: sign(d)·log10(1 + |d|) cut into 9 equal widths from −M to M, M the largest |value| in this corpus; "
    "the middle bin holds d = 0. Means are over answers, pooled over the selected models and prompt languages; "
    "error bars are 95% normal-approximation intervals. The dish-name score as published (§4.2, Appendix I) "
    "counts an answer right when it contains a gold name within one edit, averaged over the five prompts; ours "
    "asks a whole extracted candidate to be within one edit. Linked answers have only ours."
)
st.subheader("Pairs")
points = (event.selection.get(charts.BAR) if event and event.selection else None) or []
clicked = str(int(points[0]["bin"])) if points else None
if clicked != st.session_state.get("codemix_last_click"):  # a newly clicked bar chooses its bin
    st.session_state["codemix_last_click"] = clicked
    if clicked is not None:
        st.session_state["url_bin"] = clicked
in_bins = sorted({int(b) for b in pairs["bin"].dropna()})
chosen = widgets.url_select(
    "Bin", [widgets.ALL, *(str(b) for b in in_bins)], param="bin", what="bin", container=st,
    format_func=lambda b: "All bins" if b == widgets.ALL else f"{b}: {labels.get(int(b), '')}",
    help="Click a bar of the chart above, or choose a bin.",
)  # fmt: skip
in_bin = pairs if not chosen else pairs[pairs["bin"] == int(chosen)]
# the pairs' dataset (BORSch's parallel lists), read from whichever side has a dish key
pair_dataset = in_bin["uk_dish_key"].fillna(in_bin["ru_dish_key"]).str.split(":").str[0]
pair_table = links.with_dish_links(
    in_bin.assign(dataset=pair_dataset), "dataset", key="uk_dish_key", name="uk_name", column="uk_name"
)
pair_table = links.with_dish_links(pair_table, "dataset", key="ru_dish_key", name="ru_name", column="ru_name")
pair_table = pair_table.drop(columns=["dataset"])
st.caption(f"{len(pair_table):,} pairs. Click a name for the dish's page (with the answers about it).")
fmt.dataframe(
    pair_table,
    {"uk_name": links.dish_column("Ukrainian name"), "ru_name": links.dish_column("Russian name")},
)
ui.downloads(links.as_shown(pair_table, ["uk_name", "ru_name"]), f"{corpus_id}_codemix_pairs", key="codemix_pairs")
