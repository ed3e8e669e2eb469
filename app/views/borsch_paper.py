"""BORSch paper: the study's figures and tables that have no other page, drawn from this warehouse.

Fig. 2b (origins by how the dataset found its dishes) and Fig. 11 (origins of the parallel subset) need
only `ingest borsch`; Fig. 12 (the non-Post-Soviet countries answers name wrongly), Fig. 14 (what the dish
name adds to its photos) and Table 2 (dish-name accuracy per origin country) are drawn from the BORSch
answers in the warehouse (`import-responses --format borsch` or `generate`), each naming its models.
Built by warehouse/marts/111_borsch_figures.sql."""

import streamlit as st

from app import charts, data, empty_study, fmt, links, paper_tables, ui, widgets
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

st.subheader("The paper's tables and figures, ours beside the printed numbers")
paper_tables.show("borsch", key="borsch_paper_tables")
