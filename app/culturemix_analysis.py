"""CultureMix, our analyses (app/views/culturemix.py draws them under "Our analyses"): does a model still name a
food's country when another culture is in the picture?

(a) label shift per model and subtask, (b) retention vs shift toward the distractor, (c) accuracy
and entropy by cultural distance, (d) cultural vs culture-agnostic distractors, (e) SF entropy vs
label shift per food, and a drilldown: every image of one target food with each model's answer.
The page reads marts.culturemix_* only, and says where its answers come from."""

import pandas as pd
import streamlit as st

from app import data, fmt, vega, widgets
from app.safe import code, literal
from warehouse.queries import culturemix as q

SHIFT_COLOURS = {
    "kept": "#4c9f70",
    "to_distractor_country": "#d1495b",
    "to_distractor_continent": "#edae49",
    "elsewhere": "#8d99ae",
}
SHIFT_MARKS = {
    "kept": "kept",
    "to_distractor_country": "→ distractor's country",
    "to_distractor_continent": "→ distractor's continent",
    "elsewhere": "→ elsewhere",
}
SUBTASK_ORDER = ["MF", "SFB", "MFB", "REAL"]


def stacked_shares(frame: pd.DataFrame, x: str, order: list[str] | None) -> dict:
    """Bars of answer shares stacked by shift, one panel per model."""
    return {
        "data": {"values": vega.records(frame)},
        "mark": "bar",
        "width": 180,
        "height": 320,
        "encoding": {
            "column": {"field": "model", "type": "nominal", "title": None},
            "x": {"field": x, "type": "nominal", "sort": order, "axis": {"labelAngle": -30}},
            "y": {"field": "share", "type": "quantitative", "title": "share of answers", "stack": "zero"},
            "color": {
                "field": "shift",
                "type": "nominal",
                "scale": {"domain": list(SHIFT_COLOURS), "range": list(SHIFT_COLOURS.values())},
            },
            "order": {"field": "shift_rank"},
            "tooltip": [{"field": f} for f in ("model", x, "shift", "share", "n")],
        },
        "transform": [
            {"calculate": f"indexof({list(SHIFT_COLOURS)!r}, datum.shift)", "as": "shift_rank"},
        ],
    }


def render(prompt: str) -> None:
    """The analyses (a)-(e) and the one-food drilldown, for the answers to `prompt`."""
    # (a) stacked label-shift bars per model x subtask
    st.subheader("(a) Label shift per model and subtask")
    shares = data.query(q.shift_shares, prompt)
    if shares.empty:
        st.info("No answer has an SF answer of the same model to compare with yet.")
    else:
        vega.draw(stacked_shares(shares, "subtask", SUBTASK_ORDER), key="culturemix_shift", width="content")

    # (b) retention vs shift toward the distractor
    st.subheader("(b) Retention vs shift toward the distractor")
    points = data.query(q.retention, prompt)
    if not points.empty:
        unit = {"type": "quantitative", "scale": {"domain": [-0.05, 1.05]}}
        vega.draw(
            {
                "data": {"values": vega.records(points)},
                "height": 420,
                "mark": {"type": "point", "filled": True, "size": 140},
                "encoding": {
                    "x": {"field": "retention", "title": "kept the SF country"} | unit,
                    "y": {"field": "toward_distractor", "title": "moved to a distractor's country/continent"} | unit,
                    "color": {"field": "model", "type": "nominal"},
                    "shape": {"field": "subtask", "type": "nominal"},
                    "tooltip": [{"field": f} for f in ("model", "subtask", "retention", "toward_distractor", "n")],
                },
            },
            key="culturemix_retention",
        )

    # (c) accuracy and entropy by cultural distance
    st.subheader("(c) Accuracy and entropy by cultural distance")
    distance = data.query(q.by_distance, prompt)
    if not distance.empty:
        long = distance.melt(
            id_vars=["model", "distance", "n"],
            value_vars=["food_accuracy", "country_accuracy", "mean_entropy", "mean_entropy_across_images"],
            var_name="measure", value_name="value",
        )  # fmt: skip
        distances = ["same_country", "same_continent", "other_continent"]
        vega.draw(
            {
                "data": {"values": vega.records(long)},
                "mark": "bar",
                "width": 220,
                "height": 300,
                "encoding": {
                    "column": {"field": "measure", "type": "nominal", "title": None},
                    "x": {"field": "distance", "type": "nominal", "sort": distances, "axis": {"labelAngle": -30}},
                    "xOffset": {"field": "model", "type": "nominal"},
                    "y": {"field": "value", "type": "quantitative"},
                    "color": {"field": "model", "type": "nominal"},
                    "tooltip": [{"field": f} for f in ("model", "distance", "measure", "value", "n")],
                },
                "resolve": {"scale": {"y": "independent"}},
            },
            key="culturemix_distance",
            width="content",
        )
        st.caption(
            "mean_entropy, as published (§4.2): the entropy (bits) of the countries a model named over its repeated "
            "samples of each image at that distance, averaged over images and foods; 0 where each image was answered "
            "once. mean_entropy_across_images, ours: the entropy of every country named for one target food at that "
            "distance, images pooled, averaged over foods."
        )

    # (d) cultural vs agnostic distractors
    st.subheader("(d) Cultural vs culture-agnostic distractors")
    kinds = data.query(q.by_kind, prompt)
    if kinds.empty or kinds["distractor_kind"].nunique() < 2:
        st.info(
            "Culture-agnostic variants (a plain object or a plain wall instead of another culture) come from "
            "`python -m pipeline compose culturemix`; answer them to compare."
        )
    if not kinds.empty:
        vega.draw(stacked_shares(kinds, "distractor_kind", None), key="culturemix_kinds", width="content")
    with st.expander("How the composed variants differ from the paper's (§2, Appendix A)"):
        st.markdown(
            "- **SFB**: the paper pairs each food with 10 background combinations (street and landmark × 5 "
            "continents); `compose culturemix` draws `--per-target` of the backgrounds given (seeded), not yet by "
            "type and continent.\n"
            "- **MFB**: the paper uses one background per continent; `compose` uses one per distractor food.\n"
            "- **Easy/hard pairing**: by the difficulty the stored baseline answers give (the paper's three baseline "
            "models when their SF answers are in the warehouse), crossed with cultural distance (§2.3); without "
            "baseline answers, by distance only.\n"
            "- **Culture-agnostic objects** (§4.3: apple, car, scissors, teddy bear): photos you bring "
            "(`compose culturemix --agnostic DIR`); without them, objects drawn in code (a ball, a cube, a mug) "
            "stand in, and their rows are labelled with the drawn object's name.\n"
            "- **Direct and CoT prompts** (§6.1): the paper describes them but prints no wording; ours are in "
            "pipeline/tasks/culturemix.toml."
        )

    # (e) SF entropy vs label shift per food
    st.subheader("(e) SF entropy vs label shift per food")
    foods_points = data.query(q.food_points, prompt)
    if not foods_points.empty:
        vega.draw(
            {
                "data": {"values": vega.records(foods_points)},
                "height": 420,
                "mark": {"type": "circle", "size": 110},
                "encoding": {
                    "x": {"field": "sf_entropy", "type": "quantitative", "title": "entropy of the SF answers (bits)"},
                    "y": {
                        "field": "shifted_share",
                        "type": "quantitative",
                        "title": "share of its other answers that shifted",
                    },
                    "color": {"field": "model", "type": "nominal"},
                    "tooltip": [
                        {"field": f}
                        for f in (
                            "target_food_name",
                            "model",
                            "sf_entropy",
                            "sf_samples_per_image",
                            "shifted_share",
                            "n_answers",
                        )
                    ],
                },
            },
            key="culturemix_foods",
        )
        if (foods_points["sf_samples_per_image"] <= 1).all():
            st.caption(
                "Every SF image was answered once, so every SF entropy is 0: the paper's SF entropy (Fig. 7, §4.4: "
                "a proxy for prediction confidence) is over repeated samples of the same image. Sample again at "
                "temperature 1 (`generate --setting temperature=1 --setting seed=N`, or import lines with `sample`)."
            )

    # drilldown per target food
    st.subheader("One target food")
    foods = data.query(q.foods)
    names = {
        row.target_food_id: f"{row.target_food_name} ({row.target_country or '?'}; {row.n_images} images)"
        for row in foods.itertuples()
    }
    food = widgets.url_select(
        "Target food", list(names), param="food", format_func=lambda f: names.get(f, f), what="food", container=st
    )
    images = data.query(q.food_images, food)
    answers = data.query(q.food_answers, food, prompt)

    def describe(row) -> None:
        distractor = row.distractor_food_name if isinstance(row.distractor_food_name, str) else ""
        background = row.background_label if isinstance(row.background_label, str) else ""
        parts = [row.subtask, row.distractor_kind if row.distractor_kind != "none" else ""]
        if distractor:
            parts.append(f"with {distractor} ({row.distractor_country or '?'})")
        if background:
            parts.append(f"on {background}")
        st.caption(literal(" · ".join(p for p in parts if p), 120))
        mine = answers[answers["image"] == row.image]
        if mine.empty:
            st.caption("no answer with this prompt")
        else:
            missing = "(SF)" if row.subtask == "SF" else "no SF answer to compare with"
            marks = mine["shift"].map(lambda s, none=missing: SHIFT_MARKS.get(s, s) if isinstance(s, str) else none)
            shown = mine.assign(shift=marks)[["model", "predicted_food", "predicted_country", "shift"]]
            fmt.dataframe(shown, width="stretch")

    widgets.image_grid(images, describe)
    st.caption(f"Images of food {code(food)}; answers with the {literal(prompt)} prompt.")
