"""ZNO exam: accuracy of each model on the image questions of the Ukrainian external exam, per subject
(ZNO-Vision Tables 1, 5 and 6), with the baselines computed from the items drawn beside the models, and
a click-through to the questions of one model and subject with their images and both readings of each
answer. Reads marts.zno_* only."""

from pathlib import Path

import pandas as pd
import streamlit as st

from app import data, empty_study, fmt, paper_tables, vega, widgets
from app.safe import literal
from warehouse.queries import zno as q

FIRST, RANDOM = "baseline: first option", "baseline: random"
METHODS = {"paper": "the paper's rule (last bracketed letter)", "atlas": "ours (choice extractor)"}
SHOWN_IMAGES = 12
VERDICT = {True: "right", False: "wrong"}

st.title("ZNO exam")
st.caption(
    "Image questions of the Ukrainian external exam (ZNO-Vision), answered with a letter А-Д. The paper "
    "asks for the letter in square brackets and counts the last bracketed letter only (§3); ours reads any "
    "letter, number or option text and calls two different letters 'several' (wrong). Baselines come from "
    "the questions themselves: always the first option (§4), and random guessing (1 / options)."
)

splits = data.query(q.splits)
if not splits:
    empty_study.show(
        empty_study.EmptyStudy(
            "Each model's accuracy on the exam's image questions per subject (ZNO-Vision Tables 1, 5 and 6) under the "
            "paper's rule and ours, beside the first-option and random baselines, and every question with its "
            "images and both readings of each answer.",
            (
                ("Accuracy per model and subject (Tables 1, 5, 6)", "marts.zno_accuracy"),
                ("Baselines (§4)", "marts.zno_baselines"),
            ),
            (
                "python -m pipeline data fetch zno          # the exam's public parquet files (needs internet)",
                "python -m pipeline ingest zno --source ~/.cache/dish-atlas/data/zno",
                "python -m pipeline import-responses --format zno ANSWERS.jsonl",
                "python -m pipeline score",
            ),
            "zno",
        ),
        "No ZNO exam answers in this warehouse yet.",
    )

controls = st.columns(2)
method = widgets.url_radio("Scoring", METHODS, param="zno_method", container=controls[0])
split = widgets.url_select("Split", splits, param="zno_split", what="split", container=controls[1])
table = data.query(q.accuracy, method, split)
base = data.query(q.baselines, split)
models = sorted(table["model"].unique())
st.markdown(
    f"**Answers shown:** {literal(', '.join(models), 300)} ({len(models)} models, imported or generated; "
    f"split {literal(split)}, scored by {literal(METHODS[method])})."
)

subjects = [q.ALL, *sorted(s for s in table["subject"].unique() if s != q.ALL)]
cells = pd.concat(
    [
        table[["model", "subject", "accuracy", "n", "low", "high"]],
        base.assign(
            model=FIRST, accuracy=base["first_choice"], low=base["first_choice_low"], high=base["first_choice_high"]
        )[["model", "subject", "accuracy", "n", "low", "high"]],
        base.assign(model=RANDOM, accuracy=base["random"])[["model", "subject", "accuracy", "n"]],
    ],
    ignore_index=True,
)
cells["text"] = cells["accuracy"].map(lambda v: fmt.score(v))
cells["interval"] = [
    "" if low != low else f"{fmt.score(low)}–{fmt.score(high)}"
    for low, high in zip(cells["low"], cells["high"], strict=True)
]
cells["kind"] = cells["model"].map(lambda m: "baseline" if m in (FIRST, RANDOM) else "model")
order = (
    table[table["subject"] == q.ALL].sort_values("accuracy", ascending=False)["model"].tolist()
    + [m for m in models if m not in set(table.loc[table["subject"] == q.ALL, "model"])]
    + [FIRST, RANDOM]
)
st.subheader("Accuracy per subject")
event = vega.draw(
    {
        "data": {"values": vega.records(cells)},
        "height": {"step": 28},
        "encoding": {
            "x": {
                "field": "subject",
                "type": "nominal",
                "sort": subjects,
                "axis": {"orient": "top", "labelAngle": -40},
            },
            "y": {"field": "model", "type": "nominal", "sort": order, "title": None, "axis": {"labelLimit": 0}},
            "tooltip": [
                {"field": "model"},
                {"field": "subject"},
                {"field": "text", "title": "accuracy"},
                {"field": "n", "title": "questions"},
                {"field": "interval", "title": "95% interval (Wilson)"},
            ],
        },
        "layer": [
            {
                "params": [{"name": "cell", "select": {"type": "point", "fields": ["model", "subject"]}}],
                "mark": "rect",
                "encoding": {
                    "color": {
                        "field": "accuracy",
                        "type": "quantitative",
                        "scale": {"scheme": "viridis", "domain": [0, 1]},
                        "title": "accuracy",
                    },
                    "strokeDash": {"condition": {"test": "datum.kind == 'baseline'", "value": [3, 2]}, "value": [1, 0]},
                    "stroke": {"condition": {"test": "datum.kind == 'baseline'", "value": "black"}, "value": None},
                },
            },
            {
                "mark": {"type": "text", "fontSize": 10},
                "encoding": {"text": {"field": "text"}, "color": vega.heat_text_colour("accuracy", 0.6)},
            },
        ],
    },
    key="zno_heatmap",
    on_select="rerun",
    selection_mode="cell",
)
st.caption(
    "The two bottom rows (dashed) are the baselines from the questions. Click a model's cell to list its answers."
)

picked = (getattr(event, "selection", None) or {}).get("cell") or []
if picked and picked[0].get("model") in models:
    st.session_state["url_zno_model"] = picked[0]["model"]
    st.session_state["url_zno_subject"] = picked[0].get("subject", q.ALL)

st.subheader("Over all subjects (Table 1)")
overall = table[table["subject"] == q.ALL].sort_values("accuracy", ascending=False)
first = base[base["subject"] == q.ALL]
rows = pd.concat(
    [
        overall[["model", "n", "correct", "accuracy", "low", "high"]],
        pd.DataFrame(
            {
                "model": [FIRST, RANDOM],
                "n": [first["n"].sum(), first["n"].sum()],
                "correct": [None, None],
                "accuracy": [first["first_choice"].sum(), first["random"].sum()],
                "low": [first["first_choice_low"].sum(), None],
                "high": [first["first_choice_high"].sum(), None],
            }
        ),
    ],
    ignore_index=True,
)
fmt.dataframe(
    rows,
    {
        "accuracy": st.column_config.NumberColumn("Accuracy", format="%.3f"),
        "low": st.column_config.NumberColumn("95% low", format="%.3f", help="Wilson interval"),
        "high": st.column_config.NumberColumn("95% high", format="%.3f", help="Wilson interval"),
    },
)

st.subheader("The questions by year and subject (Figure 1)")
asked = data.query(q.questions)
vega.draw(
    {
        "data": {
            "values": vega.records(asked.assign(year=asked["year"].map(lambda y: "?" if y != y else str(int(y)))))
        },
        "mark": "bar",
        "encoding": {
            "x": {"field": "year", "type": "ordinal", "title": "exam year"},
            "y": {"field": "n", "type": "quantitative", "aggregate": "sum", "title": "questions"},
            "color": {"field": "subject", "type": "nominal"},
            "tooltip": [
                {"field": "subject"},
                {"field": "split"},
                {"field": "year"},
                {"field": "n", "aggregate": "sum"},
            ],
        },
    },
    key="zno_questions",
)
st.caption(
    "All ingested questions, every split: "
    + ", ".join(f"{literal(s)} {int(n):,}" for s, n in asked.groupby("split")["n"].sum().items())
    + "."
)

st.subheader("Questions and answers")
pick = st.columns(2)
model = widgets.url_select("Model", models, param="zno_model", what="model", format_func=fmt.model, container=pick[0])
subject = widgets.url_select("Subject", subjects, param="zno_subject", what="subject", container=pick[1])
answers = data.query(q.answers, model, split, subject)
right = "paper_correct" if method == "paper" else "atlas_correct"
st.caption(
    f"{literal(model)}: {int(answers[right].sum()):,} of {len(answers):,} right by {literal(METHODS[method])}. "
    "Answers are shown as plain text."
)
fmt.dataframe(
    answers.drop(columns=["image", "letters"]),
    {"response": st.column_config.TextColumn("Answer", width="large")},
)
for row in answers.head(SHOWN_IMAGES).itertuples():
    columns = st.columns([1, 3])
    path = Path(row.image) if isinstance(row.image, str) else None
    if path is not None and path.is_file():
        columns[0].image(str(path), width="stretch")
    else:
        columns[0].caption("(image file not available)")
    columns[1].text(f"{row.item_id} · {row.subject} · gold {row.gold_letter}\n{row.question}"[:600])
    columns[1].text(f"Answer: {(row.response or '')[:600]}")
    columns[1].caption(
        f"paper: {literal(row.paper_letter or row.paper_status)} ({literal(VERDICT[bool(row.paper_correct)])}); "
        f"ours: {literal(row.atlas_letter or row.status)} ({literal(VERDICT[bool(row.atlas_correct)])})"
    )
if len(answers) > SHOWN_IMAGES:
    st.caption(f"Images of the first {SHOWN_IMAGES:,} questions; the table lists all {len(answers):,}.")

st.subheader("The paper's tables and figures, ours beside the printed numbers")
paper_tables.show("zno-vision", key="zno_paper_tables")
