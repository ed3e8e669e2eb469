"""Map: where the selected models place dishes right (recall per origin country) or wrongly
(over-prediction). Click a country: first what was named instead of it and how each of its dishes
fared, then every answer."""

import pandas as pd
import streamlit as st

from app import data, fmt, links, maps, ui, widgets
from app.safe import literal
from warehouse.queries import geo

VIEWS = {"recall": "Recall per origin country", "over": "Over-prediction"}
ARCS = {"country": "the selected country", "all": "all countries", "none": "none"}
MAP_KEY = "map_deck"
ANSWER_LIMIT = 2_000
COUNTRY_ARCS = 40  # a selected country's arcs: its most frequent errors
INSTEAD_SHOWN = 12

selected = ui.selection()
filters = ui.require_answers(selected)


def map_key(country: str | None) -> str:
    """The map's widget key, one per selected country: a new selection gives a fresh map, so the
    browser forgets the last click (which would otherwise keep dimming the other countries) and the
    thick outline shows the country the page is about."""
    return f"{MAP_KEY}_{country or 'none'}"


def clicked_country(key: str) -> str | None:
    """The country of the object clicked on the map (a country, or an arc's true origin); None
    when nothing is selected."""
    state = st.session_state.get(key)
    objects = ((state or {}).get("selection") or {}).get("objects") or {}
    code = None
    for layer, items in objects.items():
        for item in items or []:
            if layer == maps.COUNTRY_LAYER:
                code = (item or {}).get("country")
            elif layer == maps.ARC_LAYER:
                code = (item or {}).get("true_country")
    return code


st.title("Map")
st.caption(
    "Where the selected models place dishes. **Recall**: of the answers about dishes from a country, the share "
    "that named it. **Over-prediction**: the share of all answers that named a country for a dish not from "
    "there. Several models or languages are added up (counts first, then the share). **Click a country** (or "
    "pick one beside the map) for what the models named instead and how each of its dishes fared."
)

method = ui.scoring_method()  # recall by our extractor or by the paper's rule (the same switch as the leaderboard)
recall = data.query(geo.country_recall, filters, method)
over = data.query(geo.country_overprediction, filters)
if recall.empty and over.empty:
    st.info(
        "No scored answers match the selected models and prompt languages. Clear the **Models** and "
        "**Prompt languages** filters in the sidebar.",
        icon=":material/info:",
    )
    st.stop()

shapes = maps.outlines()
names = dict(shapes.names)
for frame in (recall, over):
    names.update({c: n for c, n in zip(frame["country"], frame["country_name"], strict=True) if c not in names and n})
options = sorted(set(recall["country"]) | set(over["country"]), key=lambda code: (names.get(code) or code, code))

controls = st.columns([3, 3, 3], vertical_alignment="bottom")
view = widgets.url_radio("Colour countries by", VIEWS, param="view", container=controls[0])
arcs_for = widgets.url_radio("Error arcs for", ARCS, param="arcs", container=controls[1])
key = map_key(st.session_state.get("url_country"))
code = clicked_country(key)
if code in options:
    st.session_state["url_country"] = code  # before the selectbox is drawn: the click picks it
country = widgets.url_select(
    "Country",
    [widgets.ALL, *options],
    param="country",
    format_func=lambda c: "none (click the map)" if c == widgets.ALL else fmt.country(c, names.get(c)),
    what="country",
    container=controls[2],
)
n_arcs = geo.DEFAULT_ARCS
if arcs_for == "all":
    n_arcs = st.slider(
        "Number of arcs", 10, 500, geo.DEFAULT_ARCS, step=10, key="map_arcs",
        help="The most frequent (true origin → country named instead) pairs, line width by number of answers.",
    )  # fmt: skip

if view == "recall":
    scale = maps.Scale.fitted(recall["recall"])
    fills = {row.country: scale.colour(row.recall) for row in recall.itertuples(index=False)}
    labels = {
        row.country: f"recall {fmt.pct(row.recall)} ({fmt.count(row.n_hits)} of {fmt.count(row.n_answers)} answers "
        "about its dishes named it)"
        for row in recall.itertuples(index=False)
    }
    empty_label, scale_label = "no dish from here in the selection", "recall"
else:
    scale = maps.Scale.fitted(over["share"])
    fills = {row.country: scale.colour(row.share) for row in over.itertuples(index=False)}
    labels = {
        row.country: f"named wrongly in {fmt.pct(row.share, 2)} of answers ({fmt.count(row.n_wrong)} of "
        f"{fmt.count(row.n_answers)})"
        for row in over.itertuples(index=False)
    }
    empty_label, scale_label = "never named for a dish from elsewhere", "over-prediction"

if arcs_for == "all":
    arcs = data.query(geo.error_arcs, filters, n_arcs)
elif arcs_for == "country" and country:
    arcs = data.query(geo.error_arcs, filters, COUNTRY_ARCS, country, view == "over")
else:
    arcs = None
layers = [
    maps.selected_layer(country),
    maps.country_layer(maps.country_rows(fills, labels, default_label=empty_label)),
    maps.arc_layer(arcs) if arcs is not None and not arcs.empty else None,
]
maps.show(maps.deck(layers), key=map_key(country), on_select="rerun", selection_mode="single-object")
maps.legend(scale_label, scale)
if arcs_for == "all":
    arc_note = f"Arcs: the {n_arcs} most frequent errors of all countries, "
elif arcs_for == "country" and country:
    about = "the dishes from elsewhere it was named for" if view == "over" else "the countries named for its dishes"
    arc_note = f"Arcs: {about} (the {COUNTRY_ARCS} most frequent), "
else:
    arc_note = ""
caption = f"Grey: {empty_label}. Colours on a square-root scale from 0% to {scale.label(scale.top)}. "
if arc_note:
    caption += (
        f"{arc_note}from a dish's true origin (blue end) to the country a model named instead (orange end); "
        "naming another of the dish's origins is a hit, not an arc (the Confusion page's rule). "
    )
elif arcs_for == "country":
    caption += "Pick a country for its error arcs, or show the arcs of all countries. "
st.caption(caption + maps.CRIMEA_NOTE)

with st.expander("All countries as a table"):
    table = recall if view == "recall" else over
    fmt.dataframe(table, {"country_name": "Country name"})
    ui.downloads(table, f"{filters.dataset}_{filters.task}_country_{view}", key="map_countries")

if not country:
    st.stop()

name = names.get(country) or country
st.subheader(literal(fmt.country(country, name)))
hit = recall[recall["country"] == country]
wrong = over[over["country"] == country]
metrics = st.columns(4)
if hit.empty:
    metrics[0].metric("Recall", fmt.DASH, help="No dish from this country in the selection.", border=True)
    metrics[1].metric("Answers about its dishes", "0", border=True)
    n_about = 0
else:
    row = hit.iloc[0]
    n_about = int(row["n_answers"])
    metrics[0].metric(
        "Recall", fmt.pct(row["recall"]), help="Answers that named it / answers about its dishes.", border=True
    )
    metrics[1].metric("Answers about its dishes", fmt.count(n_about), border=True)
n_wrong = int(wrong.iloc[0]["n_wrong"]) if not wrong.empty else 0
share = float(wrong.iloc[0]["share"]) if not wrong.empty else 0.0
metrics[2].metric(
    "Over-prediction", fmt.pct(share, 2), help="Share of all selected answers naming it wrongly.", border=True
)
metrics[3].metric("Named for a dish from elsewhere", fmt.count(n_wrong), border=True)

if n_about == 0:
    st.caption(f"No dish of this dataset has {literal(name)} among its origins.")
    st.stop()

# --- summaries first: what was named instead, and each dish -----------------------------------------

instead = data.query(geo.named_instead, filters, country)
left, right = st.columns([2, 3])
with left:
    st.markdown(f"**Named instead of {literal(name)}**")
    if instead.empty:
        st.caption("Every answer about its dishes named it.")
    else:
        table = pd.DataFrame(
            {
                "country": [
                    "no country named" if c == "-" else fmt.country(c, names.get(c)) for c in instead["country"]
                ],
                "n_answers": instead["n_answers"],
                "share": 100 * instead["n_answers"] / n_about,
            }
        )
        st.dataframe(
            table.head(INSTEAD_SHOWN),
            hide_index=True,
            column_config={
                "country": "Named instead",
                "n_answers": st.column_config.NumberColumn("Answers", format="localized"),
                "share": st.column_config.ProgressColumn(
                    "Share", format="%.1f%%", min_value=0.0, max_value=100.0,
                    help=f"Of the {fmt.count(n_about)} answers about its dishes.",
                ),
            },
        )  # fmt: skip
        more = len(instead) - INSTEAD_SHOWN
        st.caption(
            "The first country an answer named, when it was not this one."
            + (f" {fmt.count(more)} more countries in the download." if more > 0 else "")
        )
        ui.downloads(instead, f"{filters.dataset}_{filters.task}_{country}_named_instead", key="map_instead")

dishes = data.query(geo.country_dishes, filters, country, method)
labels_of = data.query(geo.dish_labels, tuple(sorted(set(dishes["dish_key"]))))
dishes = dishes.merge(labels_of, on="dish_key", how="left")
with right:
    st.markdown(f"**Dishes from {literal(name)}** ({fmt.count(len(dishes))}), hardest first")
    per_dish = dishes.sort_values(["accuracy", "n_answers"], ascending=[True, False], kind="stable")
    per_dish = per_dish.assign(
        dish=per_dish["dish"].fillna(per_dish["dish_key"]),
        named_instead=[
            fmt.country(c, names.get(c)) if isinstance(c, str) else fmt.DASH for c in per_dish["named_instead"]
        ],
        accuracy=100 * per_dish["accuracy"],
    )
    per_dish = links.with_dish_links(per_dish, filters.dataset, filters=filters)
    per_dish = per_dish[["dish", "n_answers", "accuracy", "named_instead", "n_no_country"]]
    st.dataframe(
        per_dish,
        hide_index=True,
        column_config={
            "dish": links.dish_column("Dish"),
            "n_answers": st.column_config.NumberColumn("Answers", format="localized"),
            "accuracy": st.column_config.ProgressColumn(
                "Named it", format="%.1f%%", min_value=0.0, max_value=100.0,
                help=f"Share of the answers about the dish that named {name}.",
            ),
            "named_instead": st.column_config.TextColumn("Most named instead"),
            "n_no_country": st.column_config.NumberColumn("No country", format="localized", help=ui.NO_COUNTRY),
        },
    )  # fmt: skip
    ui.downloads(dishes, f"{filters.dataset}_{filters.task}_{country}_dishes", key="map_dishes")

# --- then every answer ---------------------------------------------------------------------------------

answers = data.query(geo.country_answers, filters, country, ANSWER_LIMIT)
total = int(answers["n_total"].iloc[0]) if not answers.empty else 0
answers = answers.drop(columns="n_total").merge(labels_of, on="dish_key", how="left")
columns = ["dish", "item_id", "gold", "model", "lang", "response", "predicted", "status", "jaccard", "dish_key"]
answers = answers[columns]
shown = (
    f"{fmt.count(len(answers))} answers"
    if total <= len(answers)
    else (f"The first {fmt.count(len(answers))} of {fmt.count(total)} answers")
)
with st.expander(f"Every answer about its dishes ({shown[:1].lower() + shown[1:]})"):
    fmt.dataframe(answers, {"response": st.column_config.TextColumn("Answer", width="large")})
    st.caption(
        f"{shown} about {fmt.count(answers['dish_key'].nunique())} dishes whose gold origins "
        f"include {literal(country)}."
    )
    ui.downloads(answers, f"{filters.dataset}_{filters.task}_{country}_answers", key="map_answers")
