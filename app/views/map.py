"""Map: where the selected models place dishes right (recall per origin country) or wrongly
(over-prediction), the most frequent errors as arcs, and one country's dishes with every answer."""

import streamlit as st

from app import data, maps, ui, widgets
from app.safe import literal
from warehouse.queries import geo

VIEWS = {"recall": "Recall per origin country", "over": "Over-prediction"}
MAP_KEY = "map_deck"
ANSWER_LIMIT = 2_000

selected = ui.selection()
filters = ui.require_answers(selected)


def clicked_country() -> str | None:
    """The country of the object clicked on the map since the last run (a country or an arc's
    origin); None when the click was already handled or cleared."""
    state = st.session_state.get(MAP_KEY)
    objects = ((state or {}).get("selection") or {}).get("objects") or {}
    code = None
    for layer, items in objects.items():
        for item in items or []:
            if layer == maps.COUNTRY_LAYER:
                code = ((item or {}).get("properties") or {}).get("country")
            elif layer == maps.ARC_LAYER:
                code = (item or {}).get("true_country")
    if code == st.session_state.get("_map_clicked"):
        return None
    st.session_state["_map_clicked"] = code
    return code


def pct(value: float) -> str:
    return f"{value:.1%}" if value >= 0.001 or value == 0 else f"{value:.2%}"


st.title("Map")
st.caption(
    "Where the selected models place dishes. **Recall**: of the answers about dishes from a country, the share "
    "that named it. **Over-prediction**: the share of all answers that named a country for a dish not from "
    "there. Several models or languages are added up (counts first, then the share). Click a country, or pick "
    "one below the map, to list its dishes with every answer."
)

shapes = maps.load_shapes()
method = ui.scoring_method()  # recall by our extractor or by the paper's rule (the same switch as the leaderboard)
recall = data.query(geo.country_recall, filters, method)
over = data.query(geo.country_overprediction, filters)
if recall.empty and over.empty:
    st.info(
        "No scored answers match the selected models and prompt languages. Clear the sidebar filters, or import "
        "and score answers with `python -m pipeline import-responses FILE...` and `python -m pipeline score`.",
        icon=":material/info:",
    )
    st.stop()

names = dict(zip(shapes["country"], shapes["name_en"], strict=True))
for frame in (recall, over):
    names.update({c: n for c, n in zip(frame["country"], frame["country_name"], strict=True) if c not in names and n})
options = sorted(set(recall["country"]) | set(over["country"]), key=lambda code: (names.get(code) or code, code))

controls = st.columns([3, 2, 3], vertical_alignment="bottom")
view = widgets.url_radio("Colour countries by", VIEWS, param="view", container=controls[0])
n_arcs = controls[1].slider(
    "Error arcs", 0, 500, geo.DEFAULT_ARCS, step=10, key="map_arcs",
    help="The most frequent (true origin → country named instead) pairs, line width by number of answers.",
)  # fmt: skip
code = clicked_country()
if code in options:
    st.session_state["url_country"] = code  # before the selectbox is drawn: the click picks it
country = widgets.url_select(
    "Country",
    [widgets.ALL, *options],
    param="country",
    format_func=lambda c: "none (click the map)" if c == widgets.ALL else f"{names.get(c) or c} ({c})",
    what="country",
    container=controls[2],
)

if view == "recall":
    fills = {row.country: maps.sequential(row.recall) for row in recall.itertuples(index=False)}
    labels = {
        row.country: f"recall {pct(row.recall)} ({row.n_hits:,} of {row.n_answers:,} answers about its dishes)"
        for row in recall.itertuples(index=False)
    }
    empty_label, scale = "no dish from here in the selection", ("recall", "0%", "100%")
else:
    top = float(over["share"].max()) if not over.empty else 0.0
    fills = {row.country: maps.sequential(row.share, 0.0, top) for row in over.itertuples(index=False)}
    labels = {
        row.country: f"named wrongly in {pct(row.share)} of answers ({row.n_wrong:,} of {row.n_answers:,})"
        for row in over.itertuples(index=False)
    }
    empty_label, scale = "never named for a dish from elsewhere", ("over-prediction", "0%", pct(top))

collection = maps.feature_collection(shapes, fills, labels, default_label=empty_label, outlined=country or None)
arcs = data.query(geo.error_arcs, filters, n_arcs) if n_arcs else None
layers = [maps.country_layer(collection), maps.arc_layer(arcs, shapes) if arcs is not None else None]
st.pydeck_chart(maps.deck(layers), height=520, on_select="rerun", selection_mode="single-object", key=MAP_KEY)
maps.legend(*scale)
st.caption(
    f"Grey: {empty_label}. Arcs run from a dish's true origin (blue end) to the country a model named instead "
    f"(orange end). {maps.CRIMEA_NOTE}"
)

with st.expander("All countries as a table"):
    table = recall if view == "recall" else over
    st.dataframe(table, hide_index=True)
    ui.downloads(table, f"{filters.dataset}_{filters.task}_country_{view}", key="map_countries")

if not country:
    st.stop()

name = names.get(country) or country
st.subheader(f"{literal(name)} ({literal(country)})")
hit = recall[recall["country"] == country]
wrong = over[over["country"] == country]
metrics = st.columns(4)
if hit.empty:
    metrics[0].metric("Recall", "–", help="No dish from this country in the selection.", border=True)
    metrics[1].metric("Answers about its dishes", "0", border=True)
else:
    row = hit.iloc[0]
    metrics[0].metric(
        "Recall", pct(row["recall"]), help="Answers that named it / answers about its dishes.", border=True
    )
    metrics[1].metric("Answers about its dishes", f"{int(row['n_answers']):,}", border=True)
n_wrong = int(wrong.iloc[0]["n_wrong"]) if not wrong.empty else 0
share = float(wrong.iloc[0]["share"]) if not wrong.empty else 0.0
metrics[2].metric("Over-prediction", pct(share), help="Share of all selected answers naming it wrongly.", border=True)
metrics[3].metric("Named for a dish from elsewhere", f"{n_wrong:,}", border=True)

answers = data.query(geo.country_answers, filters, country, ANSWER_LIMIT)
if answers.empty:
    st.caption(f"No dish of this dataset has {literal(name)} among its origins.")
    st.stop()
total = int(answers["n_total"].iloc[0])
dishes = data.query(geo.dish_labels, tuple(sorted(set(answers["dish_key"]))))
answers = answers.drop(columns="n_total").merge(dishes, on="dish_key", how="left")
columns = ["dish", "item_id", "gold", "model", "lang", "response", "predicted", "status", "jaccard", "dish_key"]
answers = answers[columns]
st.markdown(f"**Dishes from {literal(name)}, with every selected model's answer**")
st.dataframe(
    answers,
    hide_index=True,
    column_config={
        "response": st.column_config.TextColumn("response", width="large"),
        "jaccard": st.column_config.NumberColumn("jaccard", format="%.2f"),
    },
)
shown = f"{len(answers):,} answers" if total <= len(answers) else f"The first {len(answers):,} of {total:,} answers"
st.caption(f"{shown} about {answers['dish_key'].nunique():,} dishes whose gold origins include {literal(country)}.")
ui.downloads(answers, f"{filters.dataset}_{filters.task}_{country}_answers", key="map_answers")
