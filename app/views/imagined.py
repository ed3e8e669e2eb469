"""Imagined dishes (BORSch §5): a model describes a dish, the description is translated to English
and drawn by a text-to-image model; an image encoder compares the drawings with the dish's real
photos (intra cosine) and with other dishes' photos (inter cosine), and the page relates the
similarity to the model's QA score on the dish (Spearman, bootstrap 95% interval over dishes).

Everything shown comes from marts.imagined* (`python -m pipeline imagine …` or a run
configuration with the imagine stages). The page names the models that produced what it shows,
and says plainly when they are tiny random test models.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import streamlit as st

from app import data, empty_study, fmt, links, ui, vega, widgets
from app.safe import code, literal
from warehouse.queries import imagined as queries

COMMAND = (
    "python -m pipeline imagine --dataset borsch --lang ru --describer MODEL --generator "
    "black-forest-labs/FLUX.1-dev --encoder facebook/dinov2-giant --images DIR/borsch --limit 50"
)
GALLERY_COLUMNS = 4


def models_line(rows: pd.DataFrame, tiny: set[str]) -> str:
    """'describer X, translator Y, generator Z, encoder W' with each name as code and tiny ones marked."""
    parts = []
    for role, column in (("describer", "model"), ("translator", "translator"), ("generator", "generator"),
                         ("encoder", "encoder")):  # fmt: skip
        names = sorted({str(v) for v in rows[column].dropna().unique()})
        shown = ", ".join(code(n, limit=80) + (" (tiny random)" if n in tiny else "") for n in names)
        parts.append(f"{role} {shown or '—'}")
    return "; ".join(parts)


IMAGINED_SERIES = {"intra_cosine": "intra (own dish's photos)", "inter_cosine": "inter (other dishes' photos)"}
REFERENCE_SERIES = {
    "intra_cosine": "real photo vs its dish's other photos",
    "inter_cosine": "real photo vs other dishes' photos",
}


def distributions(rows: pd.DataFrame, series: dict[str, str] = IMAGINED_SERIES, unit: str = "generated image") -> dict:
    """Histograms (30 bins, overlaid) of each generated image's (or real photo's) intra and inter cosine."""
    long = rows.melt(value_vars=list(series), var_name="kind", value_name="cosine").dropna(subset=["cosine"])
    long["kind"] = long["kind"].map(series)
    return {
        "data": {"values": vega.records(long[["kind", "cosine"]])},
        "height": 320,
        "mark": {"type": "bar", "opacity": 0.65},
        "encoding": {
            "x": {
                "field": "cosine",
                "type": "quantitative",
                "bin": {"maxbins": 30},
                "title": f"cosine of [CLS] embeddings, per {unit}",
            },
            "y": {"aggregate": "count", "type": "quantitative", "title": f"{unit}s", "stack": None},
            "color": {
                "field": "kind",
                "type": "nominal",
                "title": None,
                "scale": {"domain": list(series.values()), "range": ["#2ca02c", "#7f7f7f"]},
                "legend": {"orient": "top"},
            },
        },
    }


def per_dish(rows: pd.DataFrame) -> pd.DataFrame:
    return (
        rows.groupby(["lang", "dish_key", "dish_id", "display_name"], as_index=False)
        .agg(
            intra=("intra_cosine", "mean"),
            inter=("inter_cosine", "mean"),
            qa=("qa_jaccard", "first"),
            images=("image", "size"),
        )
        .sort_values(["lang", "dish_id"])
    )


def scatter(dishes: pd.DataFrame, title: str) -> dict:
    """One point per dish: its images' mean intra cosine against the model's origin-QA Jaccard on it."""
    paired = dishes.dropna(subset=["intra", "qa"])[["display_name", "dish_id", "intra", "qa"]].astype({"dish_id": str})
    return {
        "data": {"values": vega.records(paired)},
        "title": title,
        "height": 360,
        "mark": {"type": "circle", "size": 80, "color": "#1f77b4", "opacity": 1},
        "encoding": {
            "x": {
                "field": "intra",
                "type": "quantitative",
                "title": "mean intra cosine of the dish's generated images",
                "scale": {"zero": False},
            },
            "y": {
                "field": "qa",
                "type": "quantitative",
                "title": "the model's mean origin-QA Jaccard on the dish",
                "scale": {"domain": [-0.05, 1.05], "nice": False},
            },
            "tooltip": [
                {"field": "display_name", "title": "dish"},
                {"field": "dish_id", "title": "id"},
                {"field": "intra", "format": ".3f"},
                {"field": "qa", "title": "QA Jaccard", "format": fmt.D3_SCORE},
            ],
        },
    }


def spearman_text(row) -> str:
    if row.spearman is None or (isinstance(row.spearman, float) and math.isnan(row.spearman)):
        return f"Spearman ρ not computed ({int(row.n_dishes_with_qa)} dishes with a QA score; 3 needed)"
    return (
        f"Spearman ρ = {row.spearman:.2f} (95% bootstrap interval {row.spearman_low:.2f} to {row.spearman_high:.2f}, "
        f"{int(row.n_dishes_with_qa)} dishes)"
    )


CORRELATION_SYMBOLS = {"pearson": "r", "spearman": "ρ", "kendall": "τ"}


def table4_layout(cells: pd.DataFrame) -> pd.DataFrame:
    """Table 4 laid out as the paper prints it (Appendix J.2): one row per "QA Jaccard r" … "VQA Overlap τ", one
    column per prompt language (and encoder, when there are several); an empty cell stays empty."""
    frame = cells.assign(
        row=cells["setup"]
        + " "
        + cells["metric"].str.capitalize()
        + " "
        + cells["correlation"].map(CORRELATION_SYMBOLS),
        column=cells["lang"].map(fmt.language) + (" · " + cells["encoder"] if cells["encoder"].nunique() > 1 else ""),
    )
    order = list(dict.fromkeys(frame["row"]))
    return frame.pivot(index="row", columns="column", values="value").reindex(order).rename_axis(None, axis=1)


def region_chart(by_region: pd.DataFrame) -> dict:
    """Fig. 8: one bar per origin region and prompt language, the mean intra cosine of the region's images."""
    shown = by_region.assign(language=by_region["lang"].map(fmt.language))
    # Horizontal bars: the regions' long names read along their bars instead of eating the plot's height.
    return {
        "data": {"values": vega.records(shown)},
        "params": [{"name": "bar", "select": {"type": "point", "fields": ["region"]}}],
        "mark": {"type": "bar", "cursor": "pointer"},
        "encoding": {
            "y": {"field": "region", "type": "nominal", "sort": None, "title": None, "axis": {"labelLimit": 0}},
            "yOffset": {"field": "language"},
            "x": {"field": "intra_mean", "type": "quantitative", "title": "mean intra cosine"},
            "color": {"field": "language", "type": "nominal", "title": "prompt language", "legend": {"orient": "top"}},
            "tooltip": [
                {"field": "region"},
                {"field": "language"},
                {"field": "encoder"},
                {"field": "intra_mean", "title": "mean intra cosine", "format": ".3f"},
                {"field": "n_dishes", "title": "dishes"},
                {"field": "n_images", "title": "images"},
            ],
        },
    }


def show_images(paths: list[str], captions: list[str]) -> None:
    columns = st.columns(GALLERY_COLUMNS)
    for index, (path, caption) in enumerate(zip(paths, captions, strict=True)):
        target = columns[index % GALLERY_COLUMNS]
        if path and Path(path).is_file():
            target.image(path, caption=caption, width="stretch")
        else:
            target.caption(f"{literal(caption)}: image file not found")


selected = ui.selection()
st.title("Imagined dishes")
st.markdown(
    "A model **describes** a dish named in Russian or Ukrainian, the description is **translated** to English "
    "and **drawn** by a text-to-image model; an image encoder's [CLS] vectors compare each drawing with the "
    "dish's **real photos** (*intra* cosine) and with the photos of the **other dishes** (*inter* cosine). "
    "As a scale, BORSch §5 reports that two real photos of one dish average 0.52 and two of different dishes 0.07 "
    "with DINOv2-giant; the real-photo reference below measures the same here. Does a model that draws a dish "
    "well also know where it comes from? The scatter relates intra cosine to the model's origin-QA Jaccard."
)

summary = data.query(queries.correlations, selected.dataset)
if summary.empty:
    empty_study.show(
        empty_study.EmptyStudy(
            "A model describes each dish, the description is translated to English and drawn; the drawings are "
            "compared with the dish's real photos (BORSch §5, Table 4, Figs. 8, 9 and 16). Generated images are made "
            "by the pipeline, not imported: on this machine, tiny random models built offline run the same stages.",
            (("Per model (Table 4)", "marts.imagined_table4"), ("Correlations", "marts.imagined_correlations")),
            (
                COMMAND,
                "# or offline, with tiny random models (a smoke run, not findings):",
                "python -m pipeline tiny-model --kind text --out /tmp/tiny-text",
                "python -m pipeline tiny-model --kind text-to-image --out /tmp/tiny-flux",
                "python -m pipeline tiny-model --kind image-encoder --out /tmp/tiny-dino",
                "python -m pipeline imagine --dataset borsch --lang uk --describer /tmp/tiny-text "
                "--generator /tmp/tiny-flux --encoder /tmp/tiny-dino --limit 3 --steps 2 --size 64",
            ),
        ),
        f"No imagined dishes for {literal(selected.dataset)} in this warehouse yet.",
    )

tiny = set(data.query(queries.tiny_models))
model = widgets.url_select("Describing model", sorted(summary["model"].unique()), param="imagined_model")
rows = data.query(queries.images, selected.dataset, model)
model_summary = summary[summary["model"] == model]
st.markdown(f"Produced by: {models_line(rows, tiny)}.")
if tiny & ({model} | set(rows["translator"].dropna()) | set(rows["generator"]) | set(rows["encoder"])):
    st.warning(
        "Tiny random test models produced (some of) what this page shows: their descriptions are random text "
        "and their images noise, so the numbers below check the pipeline, not any real model.",
        icon=":material/science:",
    )

st.subheader("Similarity to real photos")
fmt.dataframe(
    model_summary[["lang", "generator", "encoder", "n_dishes", "n_images", "intra_mean", "inter_mean",
                   "n_dishes_with_qa", "spearman", "spearman_low", "spearman_high"]],
    {c: st.column_config.NumberColumn(fmt.header(c), format=f"%.{fmt.SCORE_DIGITS}f")
     for c in ("intra_mean", "inter_mean", "spearman", "spearman_low", "spearman_high")},
)  # fmt: skip
if rows[["intra_cosine", "inter_cosine"]].notna().any().any():
    vega.draw(distributions(rows), key="imagined_distributions")
else:
    st.info(
        "No real photo of these dishes is known, so nothing was compared. Fetch them with "
        "`python -m pipeline data fetch --images` and rerun with `--images DIR`.",
        icon=":material/info:",
    )

st.markdown("**Real-photo reference** (§5)")
reference = data.query(queries.reference, selected.dataset)
reference = reference[reference["lang"].isin(rows["lang"]) & reference["encoder"].isin(rows["encoder"])]
if reference.empty:
    st.info(
        "No real photo of these dishes was compared with another yet: the similarity step of `imagine` stores how "
        "alike the real photos are (same dish against different dishes) once it has photos to compare.",
        icon=":material/info:",
    )
else:
    st.caption(
        "The scale to read the cosines above by (BORSch §5): the same encoder's mean cosine between two real photos "
        "of one dish (intra) and of two different dishes (inter), over photo pairs, beside the paper's published "
        "values (DINOv2-giant on BORSch's photos)."
    )
    fmt.dataframe(
        reference,
        {c: st.column_config.NumberColumn(fmt.header(c), format=f"%.{fmt.SCORE_DIGITS}f")
         for c in ("intra_mean", "inter_mean", "paper_intra_mean", "paper_inter_mean")},
        key="imagined_reference",
    )  # fmt: skip
    photos = data.query(queries.reference_photos, selected.dataset)
    photos = photos[photos["lang"].isin(reference["lang"]) & photos["encoder"].isin(reference["encoder"])]
    vega.draw(distributions(photos, REFERENCE_SERIES, "real photo"), key="imagined_reference_distributions")

st.subheader("Similarity against QA")
dishes = per_dish(rows)
for row in model_summary.itertuples():
    st.markdown(f"**{literal(row.lang)}**, {literal(row.generator)} → {literal(row.encoder)}: {spearman_text(row)}")
if dishes["qa"].isna().all():
    st.info(
        "This model has no scored origin-QA answer about these dishes, so there is no QA score to relate to "
        "(qa_jaccard stays empty; nothing is invented). Ask it with `python -m pipeline generate --task "
        "borsch.origin_qa …` and score with `python -m pipeline score`.",
        icon=":material/info:",
    )
else:
    vega.draw(scatter(dishes, "one point per dish"), key="imagined_scatter")

st.subheader("Correlations with QA and VQA (Table 4)")
cells = data.query(queries.table4, selected.dataset, model)
st.markdown(
    "BORSch Table 4 (Appendix J.2): Pearson *r*, Spearman *ρ* and Kendall *τ* between a dish's mean intra cosine "
    f"and the origin scores on that dish (Jaccard, Dice and Overlap) of {code(model, limit=80)}'s origin-QA answers "
    "and of its vision counterpart's origin-VQA answers, over the dishes it drew. Figs. 9 and 16 plot the Spearman "
    "*ρ* of the Jaccard rows (Qwen and Llama), so they are the *ρ* rows below."
)
if not cells.empty:
    pairing = cells.iloc[0]
    st.markdown(
        f"**VQA answers paired with this describer**: {code(pairing['vqa_model'], limit=80)} (pairing: "
        f"{literal(pairing['pairing'])}). The paper pairs each text model with its vision counterpart (§4.1: "
        "Qwen2-72B-Instruct with Qwen2-VL-72B-Instruct, Llama-3.1-70B-Instruct with Llama-3.2-90B-Vision-Instruct); "
        "declare another with `imagine --vqa-model MODEL` (or `vqa_models` in a run configuration's `[[imagine]]`)."
    )
if cells.empty:
    st.info("Table 4 is built at publish; republish this warehouse to see it.", icon=":material/info:")
else:
    computed = cells["value"].notna()
    layout = table4_layout(cells)
    fmt.dataframe(
        layout.reset_index(names="correlation"),
        {c: st.column_config.NumberColumn(c, format="%.2f") for c in layout.columns},
        key="imagined_table4",
    )
    st.caption(
        f"{fmt.count(computed.sum())} of {fmt.count(len(cells))} cells computed; p-values and dish counts are in "
        "the table below."
    )
    for note, empty in cells[~computed].groupby("note", sort=False):
        st.caption(
            f"No value in {len(empty)} cells ({literal(', '.join(sorted(set(empty['setup']))))}): {literal(note)}."
        )
    with st.expander("The paper's Table 4 as published (Llama-3.2 and Qwen2), to read these against"):
        published = data.query(queries.table4_published)
        layout = table4_layout(published.assign(encoder=published["paper_model"]))
        fmt.dataframe(
            layout.reset_index(names="correlation"),
            {c: st.column_config.NumberColumn(c, format="%.2f") for c in layout.columns},
            key="imagined_table4_published",
        )
    with st.expander("Every cell with its p-value and dish count"):
        number = st.column_config.NumberColumn
        fmt.dataframe(
            cells,
            {"value": number("Value", format="%.3f"), "p_value": number("p-value", format="%.3g")},
            key="t4_cells",
        )
        ui.downloads(cells, f"{selected.dataset}_imagined_table4", key="imagined_table4_rows")

st.subheader("By origin region (Fig. 8)")
by_region = data.query(queries.regions, selected.dataset, model)
if by_region.empty:
    st.info("No generated image was compared with its dish's real photos, so there is nothing to group by region.")
else:
    st.caption(
        "BORSch Fig. 8: the mean intra cosine of the generated images per prompt language and origin region of the "
        "dish (a dish of several origins counts in each). The figure does not list its regions; the Post-Soviet "
        "states are grouped as the paper groups them elsewhere (Fig. 3 and Table 2: Baltic states; Russia, Ukraine, "
        "Belarus and Moldova; the Caucasus; Central Asia), other origins by continent (Natural Earth). Click a bar "
        "for its dishes."
    )
    event = vega.draw(region_chart(by_region), key="imagined_regions", on_select="rerun", selection_mode="bar")
    picked = (getattr(event, "selection", None) or {}).get("bar") or []
    if picked and picked[0].get("region") in set(by_region["region"]):  # a click on a bar lists its dishes
        st.session_state["url_imagined_region"] = picked[0]["region"]
    region = widgets.url_select(
        "Dishes of region", list(dict.fromkeys(by_region["region"])), param="imagined_region", container=st
    )
    region_dishes = data.query(queries.region_dishes, selected.dataset, model, region)
    region_dishes["gallery"] = [
        links.page_url("imagined", {"dataset": selected.dataset, "imagined_model": model, "imagined_dish": key}, name)
        for key, name in zip(region_dishes["dish_key"], region_dishes["display_name"], strict=True)
    ]
    table = links.with_dish_links(region_dishes, selected.dataset, name="display_name", column="dish")
    fmt.dataframe(
        table.drop(columns=["display_name"]),
        {"dish": links.dish_column(),
         "gallery": st.column_config.LinkColumn("Gallery", display_text=links.SHOWN, help="Its images on this page.")},
        key="imagined_region_dishes",
    )  # fmt: skip

st.subheader("Gallery")
labels = {r.dish_key: f"{r.display_name} ({r.lang}, id {r.dish_id})" for r in dishes.itertuples()}
dish_key = widgets.url_select("Dish", list(labels), param="imagined_dish", format_func=labels.get, container=st)
dish_rows = rows[rows["dish_key"] == dish_key].drop_duplicates("image_id")
first = dish_rows.iloc[0]
left, right = st.columns(2)
left.markdown(f"**Description** ({literal(first['lang'])}, by {code(first['model'], limit=80)})")
left.text(first["description"])
right.markdown(f"**Translation** (by {code(first['translator'] or first['model'], limit=80)})")
right.text(first["translation"])
st.markdown("**Generated**")
show_images(
    dish_rows["image"].tolist(),
    [f"seed {r.seed}, intra {r.intra_cosine:.2f}" if pd.notna(r.intra_cosine) else f"seed {r.seed}"
     for r in dish_rows.itertuples()],
)  # fmt: skip
real = data.query(queries.real_images, dish_key)
st.markdown(f"**Real photos** ({len(real)})")
if real.empty:
    st.caption("No local photo of this dish is known.")
else:
    show_images(real["image"].tolist(), [f"photo {i + 1}" for i in range(len(real))])
with st.expander(f"Every generated image of this model ({len(rows):,})"):
    fmt.dataframe(rows.drop(columns=["image_id"]))
    ui.downloads(rows, f"{selected.dataset}_imagined", key="imagined_rows")
