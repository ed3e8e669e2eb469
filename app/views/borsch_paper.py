"""BORSch paper: the study's figures and tables that have no other page, drawn from this warehouse.

Fig. 2b (origins by how the dataset found its dishes) and Fig. 11 (origins of the parallel subset) need
only `ingest borsch`; §2's WorldCuisines coverage needs both datasets' links; Fig. 12 (the non-Post-Soviet
countries answers name wrongly), Fig. 14 (what the dish name adds to its photos) and Table 2 (dish-name accuracy
per origin country) are drawn from the BORSch answers in the warehouse (`import-responses --format borsch` or
`generate`), each naming its models. Built by warehouse/marts/111_borsch_figures.sql and
116_borsch_worldcuisines_coverage.sql."""

import streamlit as st

from app import charts, data, empty_study, fmt, links, paper_tables, ui, vega, widgets
from app.safe import literal
from warehouse.queries import borsch as queries
from warehouse.queries.answers import Filters

LANGS = {"ru": "Russian file (RU_DATA.xlsx)", "uk": "Ukrainian file (UK_DATA.xlsx)"}
NO_ANSWERS = (
    "No BORSch answers of this kind in the warehouse yet: import them with "
    "`python -m pipeline import-responses --format borsch FILE` or run `python -m pipeline generate`."
)

selected = ui.selection()
st.title("BORSch paper figures")
st.markdown(
    "The BORSch study's figures and tables that have no other page, computed from this warehouse: the dataset's "
    "origins (Figs. 2b and 11) and, from the BORSch answers stored here, Fig. 12, Fig. 14 and Table 2."
)
lang = widgets.url_select("Dish file", list(LANGS), param="file", format_func=LANGS.get, container=st)

st.subheader("Origins by how the dishes were found (Fig. 2b)")
left, right = st.columns(2)
for column, found_by in ((left, "wikidata"), (right, "bootstrapped")):
    with column:
        frame = data.query(queries.origins, lang, found_by=found_by)
        st.caption(f"{literal(found_by.capitalize())}: {literal(fmt.count(frame['n_dishes'].sum()))} dish origins")
        if not frame.empty:
            charts.dishes_per_origin(frame, top=15, key=f"borsch_origins_{found_by}")

st.subheader("Origins of the parallel subset (Fig. 11)")
parallel = data.query(queries.origins, lang, parallel_only=True)
if parallel.empty:
    st.info("No BORSch dishes: run `python -m pipeline ingest borsch --source DIR`.", icon=":material/info:")
else:
    charts.dishes_per_origin(parallel, top=20, key="borsch_origins_parallel")

st.subheader("How much of BORSch WorldCuisines covers (§2)")
coverage = data.query(queries.worldcuisines_coverage)
if coverage.empty or not coverage["n_worldcuisines_dishes"].max():
    st.info(
        "Needs both datasets and their links: `python -m pipeline ingest borsch --source DIR` and `python -m "
        "pipeline ingest worldcuisines --source DIR` (ingest links their dishes).",
        icon=":material/info:",
    )
else:
    overall = coverage.set_index("scope").loc["all"]
    st.metric(
        "BORSch dishes of Russian or Ukrainian origin covered by WorldCuisines' (paper: 20.8%)",
        f"{overall['share']:.1%}",
        help="A BORSch dish is covered when the link step links it to a WorldCuisines dish of Russian or Ukrainian "
        "origin.",
    )
    st.caption(
        "BORSch §2: WorldCuisines' dishes originating from Russia and Ukraine \"cover only 20.8% of the dishes "
        'originating from Russia and Ukraine" in BORSch. Computed here from the dish links (`link` step: '
        "parallel, exact, alias, transliterated and fuzzy name matches); the paper does not say how it matched the "
        "two datasets, so the matching is ours. Per BORSch file and over both (a parallel pair counts once); "
        "`share_linked_any` also counts links to WorldCuisines dishes of other origins."
    )
    fmt.dataframe(coverage, key="borsch_wc_coverage")

# Every BORSch model and prompt language: the figures span tasks (Fig. 14: two, Table 2: the dish-name task), so the
# sidebar's one task does not narrow them; each table names its models.
models: tuple[str, ...] = ()
langs: tuple[str, ...] = ()

st.subheader("Wrong non-Post-Soviet countries (Fig. 12)")
method = ui.scoring_method(container=st)
wrong = data.query(queries.wrong_predictions, models, method)
if wrong.empty:
    st.info(NO_ANSWERS, icon=":material/info:")
    empty_study.template_download("borsch")  # every BORSch dish, ready for a model's answers
else:
    st.caption(
        f"The ten countries most often named wrongly that are not Post-Soviet, per model, task and prompt language, "
        f"as read by {literal('the paper’s rule (every country named)' if method == 'paper' else 'our reading')}. "
        "Click a count for those answers."
    )
    wrong["answers"] = [
        links.answers_url(Filters("borsch", task, (model,), (prompt,)), fmt.count(n), named=country)
        for model, task, prompt, country, n in wrong[["model", "task", "lang", "country", "n_answers"]].itertuples(
            index=False
        )
    ]
    fmt.dataframe(wrong.drop(columns=["n_answers"]), {"answers": links.answers_column()}, key="borsch_wrong")
    ui.downloads(links.as_shown(wrong, ["answers"]), "borsch_wrong_predictions", key="borsch_wrong_dl")

st.subheader("What the name adds to the photos (Fig. 14)")
gain = data.query(queries.vqa_name_gain, models, langs)
if gain.empty:
    st.info(NO_ANSWERS + " Fig. 14 needs answers to both origin_vqa and origin_vqa_with_name.", icon=":material/info:")
else:
    st.caption(
        f"Per dish: mean Jaccard of {literal(', '.join(sorted(set(gain['model']))))} with the name and photos minus "
        "with the photos only (above 0: the name helped)."
    )
    table = links.with_dish_links(gain, "borsch", name="dish_name", column="dish_name", filters=selected.filters)
    fmt.dataframe(table, {"dish_name": links.dish_column()}, key="borsch_gain")
    ui.downloads(links.as_shown(table, ["dish_name"]), "borsch_vqa_name_gain", key="borsch_gain_dl")

st.subheader("Dish-name accuracy per origin country (Table 2)")
names = data.query(queries.name_accuracy_by_origin, models, langs)
if names.empty:
    st.info(NO_ANSWERS + " Table 2 needs dish_name_vqa answers.", icon=":material/info:")
else:
    st.caption(
        f"Share of {literal(', '.join(sorted(set(names['model']))))}'s dish-name answers within one edit of a gold "
        "name (`accuracy`), and containing one within an edit as the paper scores it (`paper_accuracy`), per origin "
        "country of the dish (a dish of several origins counts for each)."
    )
    fmt.dataframe(names, key="borsch_names")
    ui.downloads(names, "borsch_name_accuracy_by_origin", key="borsch_names_dl")

st.subheader("Human evaluation (§5 Table 3, Fig. 15; §3.2 Cohen's κ)")
agreement = data.query(queries.human_agreement)
table3 = data.query(queries.human_table3)
if agreement.empty and table3.empty:
    st.info(
        "No human ratings in this warehouse yet. Fill in the template below (one row per annotator and item: kind "
        "`description`, a model's description of a dish rated 0 to 1 against its real photos, §5; kind "
        "`dish_filter`, a candidate labelled a dish 1 or not 0 by two annotators, §3.2) and import it with "
        "`python -m pipeline import-responses --format borsch-ratings FILE.csv`.",
        icon=":material/info:",
    )
    empty_study.template_download("borsch-ratings")
if not agreement.empty:
    st.caption(
        "Cohen's κ between each pair of annotators over the items both rated (the paper: 0.73 Russian, 0.77 "
        "Ukrainian, dish filtering), with their raw agreement and what computed κ."
    )
    fmt.dataframe(agreement, key="borsch_kappa")
if not table3.empty:
    st.caption(
        "Table 3: Pearson r, Spearman ρ, Kendall τ and Lin's concordance ρc between the mean human rating of a "
        "model's description and the mean DINOv2 cosine of the images drawn from it against the dish's real photos."
    )
    fmt.dataframe(table3, key="borsch_table3")
    with st.expander("Table 3 as printed"):
        st.caption(
            "The extracted text labels no column: §5 gives Pearson's r as 0.78 (RU) and 0.82 (UK) for Qwen and 0.81 "
            "(RU) and 0.82 (UK) for Llama, so the last two columns are RU Qwen2 and RU Llama-3.1; the first two, both "
            "0.82, are the UK pair in an assumed order."
        )
        fmt.dataframe(data.query(queries.human_table3_published), key="borsch_table3_published")
    points = data.query(queries.human_ratings)
    if not points.empty:
        vega.draw(
            {
                "data": {"values": vega.records(points)},
                "mark": {"type": "point", "filled": True},
                "encoding": {
                    "x": {"field": "rating", "type": "quantitative", "title": "human rating (mean over annotators)"},
                    "y": {"field": "cosine", "type": "quantitative", "title": "DINOv2 cosine to the real photos"},
                    "color": {"field": "model", "type": "nominal"},
                    "shape": {"field": "lang", "type": "nominal"},
                    "tooltip": [{"field": f} for f in ("dish_name", "model", "lang", "rating", "cosine")],
                },
            },
            key="borsch_fig15",
        )
        st.caption("Fig. 15: one point per rated description.")

st.subheader("The paper's tables and figures, ours beside the printed numbers")
paper_tables.show("borsch", key="borsch_paper_tables")
