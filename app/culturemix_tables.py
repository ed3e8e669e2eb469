"""CultureMix as published (app/views/culturemix.py draws it under "As published"): the paper's tables and
figures, each from the warehouse's answers.


Accuracy and entropy per subtask (Fig. 3a, Tables 6 and 8), by cultural distance per subtask
(Fig. 5 and 19), street vs landmark backgrounds (Table 7), same- vs cross-culture real photos
(Fig. 8, Table 9), position and size bias (Tables 10 and 11), correctness from SF to the mixed
subtasks (Fig. 17), the MF combinations (Fig. 9) and the prompt methods with a paired t-test
(Table 2). Every count links to the answers (and images) behind it, listed at the bottom.
The page reads marts.culturemix_* only and says which models produced the answers."""

import pandas as pd
import streamlit as st

from app import data, fmt, links, vega, widgets
from app.safe import literal
from warehouse.queries import culturemix_paper as q

PAGE = "culture-mix"
SUBTASKS = ["SF", "MF", "SFB", "MFB", "REAL"]
MEASURE_NAMES = {
    "country_accuracy": "country accuracy",
    "food_accuracy": "food accuracy",
    "country_entropy": "country entropy (bits)",
    "food_entropy": "food entropy (bits)",
}


def with_answer_links(frame: pd.DataFrame, analysis: str, prompt: str, count: str = "n_answers") -> pd.DataFrame:
    """`frame` with an `answers` column linking each row to the answers behind it (bottom of this page)."""
    fixed = {"dataset": "culturemix", "prompt": prompt, "part": "tables", "analysis": analysis}
    urls = [
        links.page_url(
            PAGE,
            fixed | {"cm_model": row.model, "subtask": row.subtask, "cell": row.cell},
            f"{getattr(row, count)} answers",
        )
        for row in frame.itertuples()
    ]
    return frame.assign(answers=urls)


def show_mitigation(methods: pd.DataFrame, key: str) -> None:
    """Table 2's rows, a prompt method's linked to its answers (a fine-tuned model's answers are on its own page)."""
    shown = pd.concat(
        [
            with_answer_links(part.assign(cell=part["subtask"]), "subtask", method, count="n_pairs")
            if not method.startswith("sft")
            else part.assign(cell=part["subtask"], answers=None)
            for method, part in methods.groupby("method", sort=False)
        ]
    )
    shown = shown.drop(columns=["cell"]).assign(measure=shown["measure"].map(MEASURE_NAMES))
    fmt.dataframe(shown, {"answers": links.answers_column("Method's answers")}, width="stretch", key=key)


def cells_table(analysis: str, prompt: str, empty: str) -> pd.DataFrame:
    """One analysis's cells as a table with links to their answers; `empty` explains an empty one."""
    frame = data.query(q.cells, analysis, prompt)
    if frame.empty:
        st.info(empty, icon=":material/info:")
        return frame
    fmt.dataframe(with_answer_links(frame, analysis, prompt), {"answers": links.answers_column()}, width="stretch")
    return frame


def paper_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Tables 6 and 8 as the paper lays them out: one row per model, one column per measure and subtask."""
    wide = frame.pivot_table(index="model", columns="subtask", values=list(MEASURE_NAMES), aggfunc="first")
    order = [(m, s) for m in MEASURE_NAMES for s in SUBTASKS if (m, s) in wide.columns]
    wide = wide[order]
    wide.columns = [f"{MEASURE_NAMES[m]}, {s}" for m, s in order]
    return wide.reset_index()


def accuracy_bars(frame: pd.DataFrame, x: str, order: list[str], key: str) -> None:
    """Country and food accuracy and entropy per `x`, one panel per measure, bars per model."""
    long = frame.melt(
        id_vars=["model", "subtask", x] if x != "subtask" else ["model", "subtask"],
        value_vars=list(MEASURE_NAMES), var_name="measure", value_name="value",
    )  # fmt: skip
    vega.draw(
        {
            "data": {"values": vega.records(long)},
            "mark": "bar",
            "width": 220,
            "height": 260,
            "encoding": {
                "column": {"field": "measure", "type": "nominal", "title": None},
                "x": {"field": x, "type": "nominal", "sort": order, "axis": {"labelAngle": -30}},
                "xOffset": {"field": "model", "type": "nominal"},
                "y": {"field": "value", "type": "quantitative", "title": None},
                "color": {"field": "model", "type": "nominal"},
                "tooltip": [{"field": f} for f in ("model", "subtask", x, "measure", "value")],
            },
            "resolve": {"scale": {"y": "independent"}},
        },
        key=key,
        width="content",
    )


def bias_pairs(analysis: str, prompt: str, empty: str) -> pd.DataFrame:
    """A bias table's pairs (the target flipped, or resized, beside the same composition), each linked to its
    answers; `empty` says what is missing when no pair was answered."""
    pairs = data.query(q.pairs, analysis, prompt)
    if pairs.empty:
        st.info(empty, icon=":material/info:")
    else:
        shown = with_answer_links(pairs.assign(cell=pairs["variant"]), analysis, prompt, count="n_pairs")
        fmt.dataframe(shown.drop(columns=["cell"]), {"answers": links.answers_column()}, width="stretch")
    return pairs


def render(prompt: str, sources: pd.DataFrame) -> None:
    """The paper's tables and figures for the answers to `prompt`; `sources` lists the models shown."""
    st.caption(
        "Entropy, as published (§4, Fig. 7, Table 8: prediction confidence and consistency): the entropy (bits) "
        "of the labels a model gave one image over its repeated samples, averaged over the food's images in the "
        "cell, then over the cell's foods. The paper does not say over what it is taken; we read it so because it "
        "reports high entropy in SF, where each food has one image. With one answer per image "
        "(`samples_per_image` 1) it is 0: sample again at temperature 1 to measure it. Ours beside it "
        "(`*_entropy_across_images`): the entropy of every label a food got in the cell, images pooled. Every "
        "count links to the answers behind it, listed at the bottom."
    )
    st.subheader("Accuracy and entropy per subtask (Fig. 3a, Tables 6 and 8)")
    per_subtask = cells_table("subtask", prompt, "No answers with this prompt.")
    if not per_subtask.empty:
        accuracy_bars(per_subtask, "subtask", SUBTASKS, "cm_paper_subtask")
        st.caption("Tables 6 and 8 laid out as in the paper (one row per model):")
        fmt.dataframe(paper_table(per_subtask), width="stretch")

    st.subheader("By cultural distance, per subtask (Fig. 5 and 19)")
    by_distance = cells_table("distance", prompt, "No answer has a cultural distractor with a known distance.")
    if not by_distance.empty:
        accuracy_bars(by_distance, "cell", ["same_country", "same_continent", "other_continent"], "cm_paper_distance")

    st.subheader("Street vs landmark backgrounds (Table 7)")
    cells_table("background", prompt, "No SFB/MFB answer on an image whose background is labelled street or landmark.")

    st.subheader("Real photos: same vs cross culture (Fig. 8, Table 9)")
    cells_table(
        "real",
        prompt,
        "No answers on CultureMix-Real photos (§5.1: `real/real.csv` beside the dataset) yet. Only real photos "
        "count here, as published; the composed red-box variants are not real photos (they are in the REAL "
        "column above). The SF row is the foods cropped out of the same photos.",
    )

    st.subheader("Position bias: the target flipped to the right (Table 10)")
    bias_pairs(
        "position",
        prompt,
        "No flipped MF/MFB variant has been answered: position bias needs images with the target on the right "
        "(`target_position = right`) beside the same composition as published.",
    )
    cells_table("position", prompt, "No MF/MFB answers.")

    st.subheader("Size bias: the target resized (Table 11)")
    if not bias_pairs(
        "size",
        prompt,
        "No resized variant has been answered: size bias needs images whose target is scaled "
        "(`target_scale` other than 1) beside the same composition as published.",
    ).empty:
        cells_table("size", prompt, "")

    st.subheader("From SF to the mixed subtasks: right and wrong (Fig. 17)")
    moves = data.query(q.transitions, prompt)
    if moves.empty:
        st.info("No mixed-subtask answer has the same model's SF answer to compare with.", icon=":material/info:")
    else:
        moves = moves.assign(transition=moves["cell"].str.split(": ", n=1).str[1])
        vega.draw(
            {
                "data": {"values": vega.records(moves)},
                "mark": "bar",
                "width": 160,
                "height": 260,
                "encoding": {
                    "column": {"field": "measure", "type": "nominal", "title": None},
                    "row": {"field": "model", "type": "nominal", "title": None},
                    "x": {"field": "subtask", "type": "nominal", "sort": SUBTASKS},
                    "y": {"field": "share", "type": "quantitative", "stack": "zero", "title": "share of answers"},
                    "color": {"field": "transition", "type": "nominal"},
                    "tooltip": [
                        {"field": f} for f in ("model", "subtask", "measure", "transition", "n_answers", "share")
                    ],
                },
            },
            key="cm_paper_transitions",
            width="content",
        )
        shown = with_answer_links(moves.drop(columns=["transition"]), "transition", prompt)
        fmt.dataframe(shown, {"answers": links.answers_column()}, width="stretch")

    st.subheader("MF combinations: target country × distractor country (Fig. 9)")
    pairs_of_countries = data.query(q.combinations)
    if pairs_of_countries.empty:
        st.info("No MF image with both countries known.", icon=":material/info:")
    else:
        vega.draw(
            {
                "data": {"values": vega.records(pairs_of_countries)},
                "mark": "rect",
                "encoding": {
                    "x": {
                        "field": "distractor_country",
                        "type": "nominal",
                        "title": "distractor (right) food's country",
                    },
                    "y": {"field": "target_country", "type": "nominal", "title": "target (left) food's country"},
                    "color": {"field": "n_images", "type": "quantitative", "title": "MF images"},
                    "tooltip": [{"field": f} for f in ("target_country", "distractor_country", "n_images", "n_foods")],
                },
            },
            key="cm_paper_combinations",
            width="content",
        )
        st.caption(f"{int(pairs_of_countries['n_images'].sum()):,} MF images. Pick a cell below to see its images.")

    st.subheader("Prompt methods and the fine-tuned model against the base prompt, paired t-test (Table 2)")
    methods = data.query(q.mitigation, "test")
    everywhere = data.query(q.mitigation, "all")
    st.caption(
        "As published (§6.1): on the test side of the 7:3 split only. The split is the fine-tuning stage's: a "
        "recorded culturemix_sft run's own test images, else the same draw (per country a seeded shuffle of the SF "
        "foods, seed 0, 70% to training; MF, SFB and MFB images follow their target food). The `sft` rows are the "
        "tuned model answering with the base prompt against its base model. The paper prints no wording for its "
        "Direct and CoT prompts (§6.1 describes them): ours are in pipeline/tasks/culturemix.toml."
    )
    if everywhere.empty:
        st.info(
            "Needs answers of one model to the same images with the base prompt and another (direct, cot), or a "
            "culturemix_sft fine-tuning run and its tuned model's answers.",
            icon=":material/info:",
        )
    else:
        if methods.empty:
            st.info(
                "No compared answers fall on the test side of the split (every food of a country with a single "
                "food goes to training); the comparison over every image is below.",
                icon=":material/info:",
            )
        else:
            show_mitigation(methods, "cm_mitigation_test")
        with st.expander("Over every image (ours, not the paper's split)"):
            show_mitigation(everywhere, "cm_mitigation_all")
        st.caption(
            "scipy's paired t-test (ttest_rel) of each method against base: accuracies paired by image, entropies "
            "by target food. An empty p means the test is undefined (fewer than two pairs, or every pair differs by "
            "the same amount)."
        )

    st.subheader("The answers behind a cell")
    which = st.columns(4)
    analysis = widgets.url_select("Analysis", list(q.ANALYSES), param="analysis", container=which[0])
    model = widgets.url_select(
        "Model", sources["model"].tolist(), param="cm_model", format_func=fmt.model, container=which[1]
    )
    subtask = widgets.url_select("Subtask", SUBTASKS, param="subtask", container=which[2])
    known_cells = data.query(q.cells, analysis, prompt) if analysis != "transition" else moves
    if known_cells.empty:
        cell_options = [subtask]
    else:
        cell_options = (
            known_cells[(known_cells["model"] == model) & (known_cells["subtask"] == subtask)]["cell"].unique().tolist()
        ) or [subtask]
    cell = widgets.url_select("Cell", cell_options, param="cell", container=which[3])
    behind = data.query(q.cell_answers, analysis, model, prompt, subtask, cell)
    st.caption(
        f"{len(behind):,} answers of {literal(model, 60)} with the {literal(prompt)} prompt in "
        f"{literal(analysis)} / {literal(subtask)} / {literal(cell)}."
    )
    if not behind.empty:
        fmt.dataframe(behind.drop(columns=["local_path"]), width="stretch")

        def describe(row) -> None:
            country = row.predicted_country if isinstance(row.predicted_country, str) else "no country"
            st.caption(f"{literal(row.image, 80)}: {literal(country)}")

        widgets.image_grid(behind, describe, limit=12)

    if not pairs_of_countries.empty:
        heat = st.columns(2)
        targets = sorted(pairs_of_countries["target_country"].unique().tolist())
        target = widgets.url_select("Target country (Fig. 9 cell)", targets, param="target", container=heat[0])
        others = sorted(
            pairs_of_countries[pairs_of_countries["target_country"] == target]["distractor_country"].tolist()
        )
        other = widgets.url_select("Distractor country", others, param="distractor", container=heat[1])
        fmt.dataframe(data.query(q.combination_images, target, other).drop(columns=["local_path"]), width="stretch")
