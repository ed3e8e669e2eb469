"""Dish: one dish in depth, deep-linked as `?dish=<dish_key>` (e.g. `?dish=worldcuisines:en:949`).

Names per language, gold origins on a small map, description and photo, the same dish in other
datasets (links, origin disagreements, the answers asked there: app/dish_links.py), then every model
answer about the dish (global filters applied) with the matched country mentions highlighted, and
the scores per model, prompt language and prompt variant.

The page body runs only when Streamlit runs this file as a page (`__name__ == "__main__"`), so
tests can import the pure helper `names_table()` without drawing anything.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection
from pathlib import Path

import pandas as pd
import streamlit as st

from app import data, dish_links, fmt, links, maps, ui, widgets
from app.safe import code, literal
from warehouse.queries import dish as queries

PARAM = "dish"
ANSWERED = "● "  # marks the dishes with answers in the picker
KEY = "url_dish"
GOLD_RGBA = [46, 160, 67, 200]
WRONG_RGBA = [214, 39, 40, 200]
ALL_LANGS = "All prompt languages"
IMAGE_NOTE = "Image from Wikimedia (not reachable offline)"
PHOTO_URL = re.compile(r"https://upload\.wikimedia\.org/[A-Za-z0-9/%._~+?=&-]+")


def answers_html(answers: pd.DataFrame, spans: pd.DataFrame, gold: Collection[str]) -> str:
    """One HTML table row per answer: model, prompt language, variant, status, Jaccard, highlighted text."""
    by_generation = {key: group.to_dict("records") for key, group in spans.groupby("generation_id")}
    cell = "padding:4px 8px;border-bottom:1px solid rgba(128,128,128,.25);vertical-align:top"
    head = "".join(
        f'<th style="{cell};text-align:left">{label}</th>'
        for label in ("model", "prompt", "variant", "status", "Jaccard", "answer")
    )
    rows = []
    for row in answers.itertuples(index=False):
        body = widgets.highlight(row.response, by_generation.get(row.generation_id, ()), gold)
        jaccard = "" if pd.isna(row.jaccard) else f"{row.jaccard:.2f}"
        rows.append(
            "<tr>"
            f'<td style="{cell};white-space:nowrap">{html.escape(str(row.model))}</td>'
            f'<td style="{cell}">{html.escape(str(row.lang))}</td>'
            f'<td style="{cell}">{html.escape(str(row.variant))}</td>'
            f'<td style="{cell}">{html.escape(str(row.status))}</td>'
            f'<td style="{cell}">{jaccard}</td>'
            f'<td style="{cell}"><div style="white-space:pre-wrap;max-height:12em;overflow:auto">{body}</div></td>'
            "</tr>"
        )
    return (
        f'<table style="border-collapse:collapse;width:100%;font-size:0.9rem"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def pick_dish(selected: ui.Selection) -> str | None:
    """The dish selectbox, kept in the link as `?dish=`; an unknown key falls back with a warning."""
    dishes = data.query(queries.options, selected.dataset)
    if dishes.empty:
        return None
    several = dishes["lang"].nunique() > 1
    labels = {
        row.dish_key: (ANSWERED if row.n_answers else "")
        + (f"[{row.lang}] " if several else "")
        + f"{row.display_name} ({row.dish_id})"
        + (f" · {row.n_answers:,} answers" if row.n_answers else "")
        for row in dishes.itertuples(index=False)
    }
    fallback = data.query(queries.first_answered, selected.filters) if selected.filters is not None else None
    return widgets.url_select(
        "Dish",
        list(labels),
        param=PARAM,
        format_func=lambda key: labels.get(key, key),
        what=f"dish of {selected.dataset}",
        default=fallback,
        keep_default_in_url=True,
        container=st,
        key=KEY,
        help=f"Type to search by name or id; {ANSWERED.strip()} marks the dishes models answered about (type "
        f"{ANSWERED.strip()} to list only those). The choice is kept in the link (`?dish=`).",
    )


def names_table(names: pd.DataFrame) -> pd.DataFrame:
    """lang -> its names joined by ' / ', primary language first."""
    if names.empty:
        return pd.DataFrame(columns=["lang", "names"])
    grouped = names.groupby("lang", sort=False).agg(
        names=("display_name", lambda values: " / ".join(dict.fromkeys(str(v) for v in values))),
        primary=("is_primary", "max"),
    )
    grouped = grouped.reset_index().sort_values(["primary", "lang"], ascending=[False, True])
    return grouped[["lang", "names"]]


def origins_map(gold: list[str], wrong: str | None) -> None:
    """Small map: gold origins in green, the most-named wrong country (if any) in red."""
    highlight_colors = {code: GOLD_RGBA for code in gold}
    if wrong and wrong not in highlight_colors:
        highlight_colors[wrong] = WRONG_RGBA
    maps.origins_map(highlight_colors, height=300)


def show_answer_photos(photos: pd.DataFrame) -> None:
    """The photos each image question showed, under its answers (imported ones included, issue 35)."""
    with st.expander(f"Photos shown with these answers ({photos['image_id'].nunique()})"):
        for item_key, item in photos.groupby("item_key", sort=False):
            first = item.iloc[0]
            st.caption(
                f"{literal(item_key)}: {fmt.count(first['n_answers'])} answers saw these photos "
                f"({fmt.count(first['n_imported'])} imported)"
            )
            columns = st.columns(5)
            for index, photo in enumerate(item.itertuples()):
                where = photo.image if isinstance(photo.image, str) and Path(photo.image).is_file() else None
                if where is None and isinstance(photo.url, str) and PHOTO_URL.fullmatch(photo.url):
                    where = photo.url  # fetched by the browser, never by the server
                if where:
                    columns[index % 5].image(where, width="stretch")
                else:
                    columns[index % 5].caption(f"photo {fmt.count(photo.position + 1)}: file not available here")


def show_image(images: pd.DataFrame) -> None:
    if images.empty:
        st.caption("No photo of this dish in the dataset.")
        return
    if images["url"].isna().all():  # photos read from a local folder (`generate --images`), with no web address
        st.caption(f"{len(images)} photos of this dish from a local folder; the answers below show those they saw.")
        return
    first = images[images["url"].notna()].iloc[0]
    url, license_ = str(first["url"]), first["license"]
    license_ = "" if pd.isna(license_) else str(license_)
    st.image(url, caption=license_ or None, width="stretch")  # fetched by the browser, never by the server
    more = f" ({len(images)} photos in the dataset)" if len(images) > 1 else ""
    # A link only to the dataset's photo host, by a URL with nothing markdown could read; else the URL as text.
    link = f"[open the photo]({url})" if PHOTO_URL.fullmatch(url) else code(url, limit=200)
    st.caption(f"{IMAGE_NOTE}: {link}{more}" + (f", license {literal(license_)}" if license_ else ""))


def render() -> None:
    selected = ui.selection()
    st.title("Dish")
    dish_key = pick_dish(selected)
    if dish_key is None:
        st.info("This dataset has no dishes yet. Load one with `make demo` (or `python -m pipeline demo`).")
        return
    info = data.query(queries.dish, dish_key)
    if info.empty:  # the snapshot changed under the picker
        st.warning(f"Dish {code(dish_key)} is not in the published warehouse; pick another one.")
        return
    row = info.iloc[0]
    gold = [code for code in str(row["origins"] or "").split(",") if code]

    st.header(literal(row["display_name"] or row["name"]))
    facts = [code(dish_key), literal(f"{row['dataset']} {row['lang']} list, id {row['dish_id']}")]
    if isinstance(row["category"], str) and row["category"]:
        facts.append(f"category: {literal(row['category'])}")
    if isinstance(row["source"], str) and row["source"]:
        facts.append(f"collection round: {literal(row['source'])}")
    st.caption(" · ".join(facts))

    filters = selected.filters
    wrong = None
    if filters is not None:
        wrong_frame = data.query(queries.wrong_countries, dish_key, filters)
        wrong = None if wrong_frame.empty else str(wrong_frame["country"].iloc[0])

    st.subheader("Gold origins")
    codes = tuple(gold + ([wrong] if wrong and wrong not in gold else []))
    country_names = dict(data.query(queries.countries, codes).itertuples(index=False)) if codes else {}

    def named(country: str) -> str:
        name = country_names.get(country)
        return f"{name} ({country})" if isinstance(name, str) else country

    badges = [f":green-badge[{literal(named(c))}]" for c in gold] or [
        "The dataset names no origin country for this dish."
    ]
    if wrong:
        badges.append(f"   most-named wrong country: :red-badge[{literal(named(wrong))}]")
    st.markdown(" ".join(badges))
    on_map = [*gold, *([wrong] if wrong and wrong not in gold else [])]
    if on_map:  # each country opens its Map view (relative links to this app, built by app/links.py)
        urls = {c: links.country_url(str(row["dataset"]), c, filters=filters).split("#")[0] for c in on_map}
        st.markdown("On the map: " + " · ".join(f"[{literal(named(c))}]({urls[c]})" for c in on_map))
    origins_map(gold, wrong)  # full width: the whole world fits at the shared map's zoom
    st.caption(
        "Green: gold origins."
        + (f" Red: {literal(named(wrong))}, the wrong country the answers name most." if wrong else "")
    )

    left, right = st.columns(2)
    with left:
        st.subheader("Names")
        names = names_table(data.query(queries.names, dish_key))
        if names.empty:
            st.caption("No names recorded for this dish.")
        else:
            st.dataframe(names, hide_index=True)
            ui.downloads(names, f"{dish_key}_names", key="dish_names")
    with right:
        if isinstance(row["description"], str) and row["description"].strip():
            st.subheader("Description")
            st.text(row["description"])
        st.subheader("Photo")
        show_image(data.query(queries.images, dish_key))

    dish_links.show(dish_key, str(row["dataset"]))

    st.subheader("Model answers")
    if filters is None:
        st.info(
            "No model answers to this dataset's own questions yet (answers borrowed from linked records, or "
            "about other dishes that name this one, are shown above). " + ui.NO_ANSWERS,
            icon=":material/info:",
        )
        return
    answers = data.query(queries.answers, dish_key, filters)
    if answers.empty:
        st.info(
            "No scored answers about this dish under the current filters (task, models, prompt languages). "
            "Widen the sidebar filters, or pick a dish that is part of the benchmark items.",
            icon=":material/info:",
        )
        return
    metrics = st.columns(4)
    metrics[0].metric("Answers", f"{len(answers):,}", border=True)
    metrics[1].metric("Mean Jaccard", fmt.score(answers["jaccard"].mean()), border=True)  # "–" when none is scored
    metrics[2].metric("Accuracy", fmt.score(answers["accuracy"].mean()), border=True)
    metrics[3].metric(
        "No-country share", f"{answers['no_country'].mean():.0%}", border=True, help=ui.NO_COUNTRY,
    )  # fmt: skip

    langs = sorted(answers["lang"].unique())
    shown_lang = widgets.url_select(
        "Show the answers for prompt language",
        ["all", *langs],
        param="alang",
        format_func=lambda code: ALL_LANGS if code == "all" else fmt.language(code),
        what="prompt language",
        default="en" if "en" in langs else "all",
        container=st,
        key="dish_answer_lang",
    )
    shown = answers if shown_lang == "all" else answers[answers["lang"] == shown_lang]
    spans = data.query(queries.spans, dish_key, filters)
    spans = spans[spans["generation_id"].isin(shown["generation_id"])]
    st.caption(
        "Matched mentions: green = a gold origin, yellow = another country or region, "
        "struck through = negated (\u201cnot from Italy\u201d). Hover a mark for its code."
    )
    st.html(answers_html(shown, spans, set(gold)))
    ui.downloads(shown.drop(columns=["generation_id"]), f"{dish_key}_answers", key="dish_answers")  # as shown
    photos = data.query(queries.answer_photos, dish_key, filters.task, tuple(sorted(set(shown["item_id"]))))
    if not photos.empty:
        show_answer_photos(photos)

    st.subheader("Scores per prompt variant")
    scores = data.query(queries.scores, dish_key, filters)
    st.dataframe(
        scores,
        hide_index=True,
        column_config={
            "jaccard": st.column_config.NumberColumn("jaccard", format="%.2f"),
            "accuracy": st.column_config.NumberColumn("accuracy", format="%.2f"),
        },
    )
    ui.downloads(scores, f"{dish_key}_scores", key="dish_scores")


if __name__ == "__main__":  # run as a page by st.navigation (see the module docstring)
    render()
