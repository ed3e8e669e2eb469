"""Confusion: which country the models name for dishes from each true origin country.

A row-normalised true x predicted matrix over a chosen set of countries (by default BORSch's Fig. 3:
the Post-Soviet countries without Estonia, Latvia and Turkmenistan, row (truth) normalised, as its
caption says; all 15 one click away), the countries inside "other", and the answers behind
any cell listed below it, each dish linked to its page. An answer naming another of the dish's origin
countries is a hit (the co-origin column), never a confusion: the rule is `RULE`, shown on the page.
"""

import streamlit as st

from app import data, fmt, links, ui, vega, widgets
from app.safe import literal
from pipeline.reference import countries as reference
from warehouse.queries import confusion as queries
from warehouse.queries.confusion import CELL_LIMIT, CO_ORIGIN, NONE, OTHER

POST_SOVIET = tuple(sorted(reference.POST_SOVIET))  # the 15, defined once (pipeline/reference/countries.py)
# BORSch Fig. 3 (§3.4): "Estonia, Latvia, and Turkmenistan are excluded due to low sample size, and the confusion
# matrices are row (truth) normalized"
FIG3_EXCLUDED = ("EE", "LV", "TM")
BORSCH_FIG3 = tuple(code for code in POST_SOVIET if code not in FIG3_EXCLUDED)
SET_KEY = "confusion_countries"
MIN_N_KEY = "confusion_min_n"
TOP_N_KEY = "confusion_top_n"
CLICK_KEY = "confusion_last_click"
LABELS = {CO_ORIGIN: "co-origin ✓", OTHER: "other", NONE: "—"}  # axis labels of the extra predicted columns
CODES = {label: code for code, label in LABELS.items()}
EXTRA = {CO_ORIGIN: "another origin of the dish (a hit)", OTHER: "a country outside the set", NONE: "no country"}
RULE = (
    "**How an answer is counted.** For a dish from the row's country, an answer that names that country "
    "(among others or not) counts on the diagonal. One that names **another of the dish's origin countries** "
    "instead is a hit too, counted under **co-origin ✓**, not as a confusion: WorldCuisines asks about Paskha "
    "with the answer Ukraine and lists the dish as from Russia and Ukraine, so an answer naming Russia is no "
    "UA → RU confusion. Otherwise the answer counts as the first country it named (**other** when that "
    "country is outside the chosen set, unpacked below), or **—** when it named none."
)


def set_countries(countries: tuple[str, ...]) -> None:
    st.session_state[SET_KEY] = list(countries)


def country_set(options: list[str], names: dict[str, str], ranked: list[str]) -> tuple[str, ...]:
    """The chosen countries, kept in the link as `?countries=A,B` (absent: BORSch Fig. 3's twelve)."""
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    chosen = widgets.url_multiselect(
        "Countries",
        options,
        param="countries",
        default=BORSCH_FIG3,
        normalise=lambda value: value.strip().upper(),
        what="countries (none has answers in this selection)",
        format_func=lambda code: f"{code} · {names.get(code, code)}",
        placeholder="Choose countries",
        container=left,
        key=SET_KEY,
        help="Rows: answers about dishes from these countries. Columns: these countries, "
        f"then 'other' (any country outside the set) and '—' (no country). {ui.NO_COUNTRY}",
    )
    with right.popover("Quick sets", icon=":material/tune:"):
        st.button(
            "BORSch Fig. 3: 12 Post-Soviet countries", on_click=set_countries, args=(BORSCH_FIG3,), width="stretch"
        )
        st.button("The 15 Post-Soviet countries", on_click=set_countries, args=(POST_SOVIET,), width="stretch")
        top_n = widgets.url_slider("N", param="top", low=2, high=60, default=15, key=TOP_N_KEY)
        st.button(
            f"Top {top_n} countries by answers",
            on_click=set_countries,
            args=(tuple(ranked[:top_n]),),
            key="confusion_top_button",
            width="stretch",
        )
    return chosen


def min_n_slider(largest: int) -> int:
    """Rows with fewer answers than this are hidden; kept in the link as `?min_n=`. A larger value in
    the link is capped at the largest row, which therefore always shows."""
    return widgets.url_slider(
        "Minimum answers per row",
        param="min_n",
        low=1,
        high=max(int(largest), 2),
        default=1,
        key=MIN_N_KEY,
        help="Hide true countries with fewer answers than this: their shares rest on too few answers.",
    )


CELL = "cell"  # the heatmap's click selection (a Vega-Lite point selection on the two axes)
CELL_TEXT = "cell_text"


def heatmap(shown, rows: list[str], columns: list[str], names: dict[str, str]) -> dict:
    """Shares as colour and text, one rect per cell; a click selects the cell (`CELL`: its true
    country and its predicted column's label)."""
    cells = shown.set_index(["true_country", "predicted"])
    row_n = shown.groupby("true_country")["row_n"].first()
    values = []
    for true in rows:
        for code in columns:
            n = int(cells["n"].get((true, code), 0))
            share = n / int(row_n[true])
            values.append(
                {
                    "true": true,
                    "predicted": LABELS.get(code, code),
                    "share": share,
                    "text": "" if not n else f"{share:.0%}" if share >= 0.005 else "<1%",
                    "true_name": names.get(true, true),
                    "predicted_name": EXTRA.get(code, names.get(code, code)),
                    "answers": f"{share:.1%} ({n:,} of {int(row_n[true]):,} answers)",
                }
            )
    x_labels = [LABELS.get(code, code) for code in columns]
    return {
        "data": {"values": values},
        "height": {"step": 30},
        "encoding": {
            "x": {
                "field": "predicted",
                "type": "nominal",
                "sort": x_labels,
                "title": "predicted",
                "axis": {"orient": "top", "labelAngle": 0, "labelOverlap": False},
            },
            "y": {"field": "true", "type": "nominal", "sort": rows, "title": "true origin"},
            "tooltip": [
                {"field": "true_name", "title": "true"},
                {"field": "predicted_name", "title": "predicted"},
                {"field": "answers", "title": "share"},
            ],
        },
        "layer": [
            {
                "params": [{"name": CELL, "select": {"type": "point", "fields": ["true", "predicted"]}}],
                "mark": {"type": "rect", "cursor": "pointer"},
                "encoding": {
                    "color": {
                        "field": "share",
                        "type": "quantitative",
                        "title": "share",
                        "scale": {"domain": [0, 1], "range": ["#f7fbff", "#08519c"]},
                        "legend": {"format": fmt.D3_PCT_AXIS},
                    },
                    "stroke": {"condition": {"param": CELL, "empty": False, "value": "#d62728"}, "value": None},
                    "strokeWidth": {"condition": {"param": CELL, "empty": False, "value": 3}, "value": 0},
                },
            },
            {
                # the text sits over the rect and takes the click: the same selection under its own name
                "params": [{"name": CELL_TEXT, "select": {"type": "point", "fields": ["true", "predicted"]}}],
                "mark": {"type": "text", "fontSize": 11, "cursor": "pointer"},
                "encoding": {
                    "text": {"field": "text"},
                    "color": {"condition": {"test": "datum.share > 0.5", "value": "white"}, "value": "black"},
                },
            },
        ],
    }


def follow_click(event) -> None:
    """A newly clicked cell sets the two cell selectors (a repeated event is not applied twice)."""
    selection = event.selection if event and event.selection else {}
    points = selection.get(CELL) or selection.get(CELL_TEXT) or []
    if not points:
        st.session_state[CLICK_KEY] = None
        return
    click = (str(points[0]["true"]), str(points[0]["predicted"]))
    if click != st.session_state.get(CLICK_KEY):
        st.session_state[CLICK_KEY] = click
        st.session_state["url_true"] = click[0]
        st.session_state["url_pred"] = CODES.get(click[1], click[1])


selected = ui.selection()
filters = ui.require_answers(selected)

st.title("Confusion")
st.caption(
    "For answers about dishes from each true origin country (rows), the share that named each "
    "country (columns). Each row sums to 100%."
)
st.markdown(RULE)

countries = data.query(queries.countries, filters)
if countries.empty:
    st.info(
        "No scored answers match the selected models and prompt languages. Clear the **Models** and "
        "**Prompt languages** filters in the sidebar.",
        icon=":material/info:",
    )
    st.stop()

names = dict(zip(countries["country"], countries["name"], strict=True))
ranked = countries.loc[countries["n_answers"] > 0, "country"].tolist()
options = sorted(set(countries["country"]) | set(POST_SOVIET))
chosen = country_set(options, names, ranked)
if not chosen:
    st.info("Choose at least one country, or pick a quick set.", icon=":material/info:")
    st.stop()

matrix = data.query(queries.matrix, filters, chosen)
if matrix.empty:
    st.warning(
        f"None of the {len(chosen)} chosen countries is the origin of a dish answered in this selection "
        f"(the {literal(selected.dataset)} items include few dishes from some regions). Widen the set: add countries, "
        "or use **Quick sets → Top N countries by answers**.",
        icon=":material/filter_alt_off:",
    )
    st.stop()

row_totals = matrix.groupby("true_country")["row_n"].first()
min_n = min_n_slider(int(row_totals.max()))
rows = [code for code in chosen if code in row_totals.index and row_totals[code] >= min_n]
absent = [code for code in chosen if code not in row_totals.index]
hidden = [code for code in chosen if code in row_totals.index and row_totals[code] < min_n]

notes = []
if hidden:
    notes.append(
        f"{len(hidden)} row{'s' if len(hidden) != 1 else ''} hidden with fewer than {min_n:,} answers: "
        + ", ".join(f"{literal(code)} ({row_totals[code]:,})" for code in hidden)
        + "."
    )
if absent:
    notes.append(f"No answers about dishes from {literal(', '.join(absent))}.")
columns = [*chosen, CO_ORIGIN, OTHER, NONE]
shown = matrix[matrix["true_country"].isin(rows)]
event = vega.draw(
    heatmap(shown, rows, columns, names), on_select="rerun", selection_mode=[CELL, CELL_TEXT], key="confusion_heatmap"
)
st.caption(
    " ".join(
        [
            f"{int(row_totals[rows].sum()):,} (answer, origin) pairs; an answer about a dish with several "
            "origin countries counts once per origin. Click a cell to list its answers.",
            *notes,
            *(
                [
                    "As BORSch's Fig. 3 (§3.4): Estonia, Latvia and Turkmenistan left out for their few dishes, "
                    "each row normalised by its true country's answers. The co-origin, other and — columns are "
                    "ours (the paper shows the twelve countries only), so a row's twelve shares can sum to less "
                    "than 1."
                ]
                if set(chosen) == set(BORSCH_FIG3)
                else []
            ),
        ]
    )
)

table = shown.assign(
    true_name=shown["true_country"].map(names),
    predicted_name=shown["predicted"].map(lambda code: LABELS.get(code) or names.get(code, code)),
)
with st.expander("The matrix as a table"):
    st.dataframe(
        table, hide_index=True, column_config={"share": st.column_config.NumberColumn(format="percent", step=0.001)}
    )
ui.downloads(table, f"{selected.dataset}_confusion", key="confusion_matrix")

st.subheader("Inside “other”")
inside = data.query(queries.other_countries, filters, tuple(rows))
if inside.empty:
    st.caption("Every answer of these rows named a chosen country, another origin of its dish, or no country.")
else:
    st.caption(
        "The countries outside the set that answers named instead, up to five per true origin, as a share of "
        "the row (the same denominator as the matrix). Click a country to open it on the Map, or a count for "
        "its answers."
    )
    unpacked = inside.assign(
        true_origin=[f"{code} · {names.get(code, code)}" for code in inside["true_country"]],
        named=[
            links.country_url(selected.dataset, c, f"{n} ({c})", filters)
            for c, n in inside[["country", "name"]].itertuples(index=False)
        ],
        answers=[
            links.page_url(
                "confusion",
                {**links.filter_params(filters), "countries": chosen, "true": t, "pred": c},
                f"{n:,} answers",
            )
            for t, c, n in inside[["true_country", "country", "n"]].itertuples(index=False)
        ],
    )[["true_origin", "named", "share", "answers", "rank"]]
    st.dataframe(
        unpacked,
        hide_index=True,
        column_config={
            "true_origin": st.column_config.TextColumn("True origin"),
            "named": links.country_column("Named instead (outside the set)"),
            "share": st.column_config.NumberColumn("Share of the row", format="percent", step=0.001),
            "answers": links.answers_column(),
            "rank": st.column_config.NumberColumn("Rank in the row"),
        },
    )
    ui.downloads(
        links.as_shown(unpacked, ["named", "answers"]), f"{selected.dataset}_confusion_other", key="confusion_other"
    )

st.subheader("Answers behind a cell")
follow_click(event)
pick_true, pick_pred = st.columns(2)
true_country = widgets.url_select(
    "True origin",
    [widgets.ALL, *rows],
    param="true",
    format_func=lambda code: "Choose…" if code == widgets.ALL else f"{code} · {names.get(code, code)}",
    what="true country",
    container=pick_true,
)
outside = sorted(set(inside["country"]) - set(columns), key=lambda code: names.get(code, code))


def predicted_label(code: str) -> str:
    if code == widgets.ALL:
        return "Choose…"
    if code in outside:
        return f"{code} · {names.get(code, code)} (inside “other”)"
    return f"{LABELS.get(code, code)} · " + EXTRA.get(code, names.get(code, code))


predicted = widgets.url_select(
    "Predicted",
    [widgets.ALL, *columns, *outside],
    param="pred",
    format_func=predicted_label,
    what="predicted country",
    container=pick_pred,
)
if not (true_country and predicted):
    st.caption("Click a cell of the matrix, or choose a true origin and a predicted column.")
    st.stop()

if predicted in outside:  # one country of the "other" column (the links of the table above)
    cell = inside[(inside["true_country"] == true_country) & (inside["country"] == predicted)]
else:
    cell = shown[(shown["true_country"] == true_country) & (shown["predicted"] == predicted)]
answers = data.query(queries.cell_answers, filters, true_country, predicted, chosen, limit=CELL_LIMIT)
n_cell = int(cell["n"].iloc[0]) if not cell.empty else len(answers)
if not n_cell:
    st.info(f"No answers about dishes from {literal(names.get(true_country, true_country))} fall in this cell.")
    st.stop()
shown_note = f"first {len(answers):,} of {n_cell:,}" if n_cell > len(answers) else f"{n_cell:,}"
st.caption(
    f"{shown_note} answers (models x prompt languages x items), with the countries each one named and every "
    "origin the dataset gives the dish. Click a dish for its page."
)
cell_table = links.with_dish_links(answers, selected.dataset, name="dish_name", filters=filters).drop(
    columns=["dish_name"]
)
fmt.dataframe(
    cell_table,
    {
        "dish": links.dish_column(),
        "predicted_country": st.column_config.TextColumn("Counted as"),
        "origins": st.column_config.TextColumn("Dish origins"),
    },
    key="confusion_cell",
)
ui.downloads(
    links.as_shown(cell_table, ["dish"]),
    f"{selected.dataset}_confusion_{true_country}_{predicted}",
    key="confusion_cell",
)
