"""Compare: model A against model B on the same questions (warehouse/queries/compare.py).

The difference A − B of the mean accuracy (or Jaccard) over the questions both answered, in each
prompt language, with a 95% paired-bootstrap interval; the same per prompt language and per gold
country; and the questions where exactly one of them is right, each linked to its dish and its two
answers. Models, metric and the split shown are kept in the link (`?a=…&b=…&metric=…&right=…`).
"""

from dataclasses import replace

import pandas as pd
import streamlit as st

from app import data, fmt, links, ui, vega, widgets
from app.safe import literal
from warehouse.queries import compare as queries

METRICS = {"accuracy": "Accuracy", "jaccard": "Jaccard"}
RIGHT = {"": "Either", "A": "Only A right", "B": "Only B right"}
INTERVAL = (
    "95% paired-bootstrap interval: the questions are resampled with replacement 2,000 times (fixed seed), "
    "keeping each question's two answers together."
)


def value(metric: str, x: float) -> str:
    return fmt.pct(x) if metric == "accuracy" else fmt.score(x)


def signed(metric: str, x: float) -> str:
    """A difference with its sign, in points for accuracy: "+12.3 pts"."""
    if metric == "accuracy":
        return f"{x * 100:+.1f} pts"
    return f"{x:+.2f}"


def differences_chart(frame, by: str, labels: dict[str, str], metric: str) -> dict:
    """One point per group at A − B with its interval; a zero line (no difference)."""
    scale = 100 if metric == "accuracy" else 1
    rows = pd.DataFrame(
        {
            "group": [labels.get(key, key) for key in frame[by]],
            "difference": frame["difference"] * scale,
            "low": frame["low"] * scale,
            "high": frame["high"] * scale,
            "ahead": ["A" if d >= 0 else "B" for d in frame["difference"]],
            "n": frame["n"],
        }
    )
    x_title = ("A − B, percentage points" if metric == "accuracy" else "A − B, Jaccard") + " (95% interval)"
    y = {"field": "group", "type": "nominal", "sort": None, "title": None, "axis": {"labelLimit": 0}}
    return {
        "height": {"step": 22},
        "layer": [
            {
                "data": {"values": vega.records(rows)},
                "encoding": {"y": y},
                "layer": [
                    {
                        "mark": {"type": "rule", "color": "#777"},
                        "encoding": {"x": {"field": "low", "type": "quantitative"}, "x2": {"field": "high"}},
                    },
                    {
                        "mark": {"type": "circle", "size": 64, "opacity": 1},
                        "encoding": {
                            "x": {"field": "difference", "type": "quantitative", "title": x_title},
                            "color": {
                                "field": "ahead",
                                "type": "nominal",
                                "scale": {"domain": ["A", "B"], "range": ["#2a7ab9", "#d62728"]},
                                "legend": None,
                            },
                            "tooltip": [
                                {"field": "group", "title": by},
                                {"field": "difference", "title": "A − B", "format": "+.2f"},
                                {"field": "n", "title": "questions", "format": fmt.D3_COUNT},
                            ],
                        },
                    },
                ],
            },
            {
                "data": {"values": [{"zero": 0}]},
                "mark": {"type": "rule", "strokeDash": [3, 3], "color": "#555"},
                "encoding": {"x": {"field": "zero", "type": "quantitative"}},
            },
        ],
    }


def group_table(frame, by: str, metric: str, name_a: str, name_b: str):
    """The per-group rows as the page shows them: the group, n, A, B, A − B (in percentage points for
    accuracy) and its interval."""
    scale = 100 if metric == "accuracy" else 1
    return frame.assign(
        difference=frame["difference"] * scale,
        interval=[f"[{signed(metric, lo)}, {signed(metric, hi)}]" for lo, hi in frame[["low", "high"]].to_numpy()],
    )[[by, "n", "a", "b", "difference", "interval", "only_a_right", "only_b_right"]].rename(
        columns={"a": f"A: {name_a}", "b": f"B: {name_b}"}
    )


selected = ui.selection()
filters = ui.require_answers(selected)

st.title("Compare two models")
models = list(selected.models)
if len(models) < 2:
    st.info(f"Task {literal(filters.task)} has answers from one model only; there is nothing to compare it with.")
    st.stop()

pick = st.columns([2, 2, 1])
model_a = widgets.url_select(
    "Model A", models, param="a", what="model", format_func=fmt.model, default=models[0], container=pick[0]
)
model_b = widgets.url_select(
    "Model B", models, param="b", what="model", format_func=fmt.model,
    default=models[1] if models[0] == model_a else models[0], container=pick[1],
)  # fmt: skip
metric = widgets.url_radio("Measure", METRICS, param="metric", container=pick[2])
if model_a == model_b:
    st.info("Choose two different models.", icon=":material/info:")
    st.stop()
st.caption(
    "The same questions, in the same prompt languages, answered by both models (the sidebar's model filter "
    f"does not apply here; its prompt languages do). {INTERVAL}"
)

result = data.query(queries.compare, filters, model_a, model_b, metric)
if result.pairs.empty:
    st.info("The two models answered no question in common under the sidebar's prompt languages.")
    st.stop()

overall = result.overall.iloc[0]
cols = st.columns(4)
cols[0].metric("Questions in common", fmt.count(overall["n"]), border=True, help="Question × prompt language pairs.")
cols[1].metric(f"A: {model_a}", value(metric, overall["a"]), border=True)
cols[2].metric(f"B: {model_b}", value(metric, overall["b"]), border=True)
cols[3].metric(
    "A − B",
    signed(metric, overall["difference"]),
    help=INTERVAL,
    border=True,
)
lo, hi = overall["low"], overall["high"]
verdict = (
    f"**{literal(model_a)}** is ahead"
    if lo > 0
    else f"**{literal(model_b)}** is ahead"
    if hi < 0
    else "No clear winner"
)
st.markdown(
    f"{verdict}: A − B = {literal(signed(metric, overall['difference']))}, 95% interval "
    f"[{literal(signed(metric, lo))}, {literal(signed(metric, hi))}]. "
    f"Only A right on {literal(fmt.count(overall['only_a_right']))} questions, "
    f"only B on {literal(fmt.count(overall['only_b_right']))}."
)

value_format = "percent" if metric == "accuracy" else "%.3f"
difference_column = st.column_config.NumberColumn(
    "A − B (points)" if metric == "accuracy" else "A − B", format="%+.1f" if metric == "accuracy" else "%+.3f"
)
# The country tab runs only when opened (a bootstrap per country: most of this page's first run).
by_lang, by_country = st.tabs(["Per prompt language", "Per gold country"], key="compare_by", on_change="rerun")
with by_lang:
    if by_lang.open:
        langs = result.languages
        vega.draw(
            differences_chart(langs, "lang", {code: fmt.language(code) for code in langs["lang"]}, metric),
            key="compare_langs_chart",
        )
        lang_table = group_table(langs, "lang", metric, model_a, model_b)
        lang_table.insert(
            len(lang_table.columns),
            "answers",
            [
                links.answers_url(
                    replace(filters, models=(model_a, model_b), langs=(code,)), f"{fmt.count(n * 2)} answers"
                )
                for code, n in langs[["lang", "n"]].itertuples(index=False)
            ],
        )
        fmt.dataframe(
            lang_table,
            {
                "difference": difference_column,
                "interval": "95% interval",
                "answers": links.answers_column(),
                f"A: {model_a}": st.column_config.NumberColumn(f"A: {model_a}", format=value_format, step=0.001),
                f"B: {model_b}": st.column_config.NumberColumn(f"B: {model_b}", format=value_format, step=0.001),
            },
            key="compare_langs",
        )
        ui.downloads(links.as_shown(lang_table, ["answers"]), f"compare_{model_a}_{model_b}_languages", key="cmp_langs")
with by_country:
    if by_country.open:
        countries = data.query(queries.countries, filters, model_a, model_b, metric)
        st.caption(
            "A question about a dish with several gold countries counts for each. Countries with most questions first."
        )
        top = countries.head(40)
        vega.draw(
            differences_chart(
                top,
                "country",
                {c: fmt.country(c, n) for c, n in top[["country", "name"]].itertuples(index=False)},
                metric,
            ),
            key="compare_countries_chart",
        )
        country_table = group_table(countries, "country", metric, model_a, model_b)
        country_table["country"] = [
            links.country_url(filters.dataset, c, fmt.country(c, n), filters)
            for c, n in countries[["country", "name"]].itertuples(index=False)
        ]
        fmt.dataframe(
            country_table,
            {
                "country": links.country_column(),
                "difference": difference_column,
                "interval": "95% interval",
                f"A: {model_a}": st.column_config.NumberColumn(f"A: {model_a}", format=value_format, step=0.001),
                f"B: {model_b}": st.column_config.NumberColumn(f"B: {model_b}", format=value_format, step=0.001),
            },
            key="compare_countries",
        )
        ui.downloads(
            links.as_shown(country_table, ["country"]), f"compare_{model_a}_{model_b}_countries", key="cmp_countries"
        )

st.subheader("Where one is right and the other wrong")
right = widgets.url_radio("Show", RIGHT, param="right")
split = result.split if not right else result.split[result.split["right"] == right]
st.caption(
    f"{literal(fmt.count(len(split)))} questions (by accuracy: the first country named is a gold origin). "
    "Click a dish for its page, or *answers* for both models' answers to it in that language."
)
split_table = links.with_dish_links(split, filters.dataset, name="dish_name", filters=filters)
split_table = split_table.assign(
    answers=[
        links.answers_url(replace(filters, models=(model_a, model_b), langs=(lang,)), "answers", dish=key)
        for key, lang in split[["dish_key", "lang"]].itertuples(index=False)
    ]
)[["dish", "lang", "right", "gold", "predicted_a", "predicted_b", "response_a", "response_b", "answers", "item_id"]]
fmt.dataframe(
    split_table,
    {
        "dish": links.dish_column(),
        "right": "Right",
        "predicted_a": f"A named ({model_a})",
        "predicted_b": f"B named ({model_b})",
        "response_a": "A's answer",
        "response_b": "B's answer",
        "answers": links.answers_column(),
    },
    key="compare_split",
)
ui.downloads(links.as_shown(split_table, ["dish", "answers"]), f"compare_{model_a}_{model_b}_split", key="cmp_split")
