"""Review: why does the corpus put dishes next to the wrong countries? (BORSch Fig. 7.)

Sampled sentences in which a dish appears next to a country that is not one of its origins are
labelled by people into five categories. The labels are the dashboard's only writes: they go to the
annotation store (pipeline/stores/annotations.py), never to the published warehouse.
"""

import hashlib
import json

import pandas as pd
import streamlit as st

from app import data, fmt, settings, ui, vega, widgets
from app.safe import code, literal
from pipeline.stores import StoreError, annotations
from warehouse.queries import corpus as queries

SCAN = "python -m pipeline corpus scan --lang uk --source PATH"
PAGE_SIZE = 20
COLORS = dict(zip(annotations.CATEGORIES, ("#7f7f7f", "#9467bd", "#ff7f0e", "#d62728", "#bcbd22"), strict=True))


def shares_chart(shares: pd.DataFrame) -> dict:
    """Per corpus language, the shares of the annotated samples by category, stacked."""
    categories = list(annotations.CATEGORIES)
    return {
        "data": {"values": vega.records(shares[["lang", "category", "share", "n"]])},
        "height": 360,
        "mark": "bar",
        "encoding": {
            "x": {"field": "lang", "type": "nominal", "title": "corpus language", "axis": {"labelAngle": 0}},
            "y": {
                "field": "share",
                "type": "quantitative",
                "title": "share of annotated samples",
                "stack": "zero",
                "scale": {"domain": [0, 1]},
                "axis": {"format": fmt.D3_PCT_AXIS},
            },
            "color": {
                "field": "category",
                "type": "nominal",
                "title": None,
                "scale": {"domain": categories, "range": [COLORS[c] for c in categories]},
                "legend": {"orient": "top"},
            },
            "order": {"field": "rank"},
            "tooltip": [
                {"field": "category"},
                {"field": "lang", "title": "corpus language"},
                {"field": "share", "format": fmt.D3_PCT_AXIS},
                {"field": "n", "title": "samples"},
            ],
        },
        "transform": [{"calculate": f"indexof({json.dumps(categories)}, datum.category)", "as": "rank"}],
    }


def radio_key(sample_id: str, annotator: str) -> str:
    """Per annotator, so switching the name shows that person's labels, not the previous one's choices."""
    return f"review_{sample_id}_{hashlib.sha1(annotator.encode()).hexdigest()[:8]}"


def load_annotations() -> pd.DataFrame | None:
    try:
        return annotations.load()
    except StoreError as exc:
        st.error(literal(exc), icon=":material/block:")
    except Exception as exc:  # a locked or damaged store must not take the page down
        st.error(
            f"Could not read the annotation store {code(annotations.store_path())}: {literal(exc)}",
            icon=":material/error:",
        )
    return None


st.title("Review")
st.markdown(
    "Why does the corpus mention dishes together with countries that are **not** their origin? Read each sampled "
    "sentence and pick a category: **web-scraping error** (menus, lists, boilerplate), **word polysemy** (the dish "
    "name means something else here), **irrelevant geographic mention** (the country is mentioned for another "
    "reason), **inaccurate origin** (the text claims a wrong origin), or **miscellaneous**. Labels are saved to "
    f"the annotation store {code(annotations.store_path())}, not to the warehouse."
)

langs = data.query(queries.sample_langs)
if langs.empty:
    st.info(
        f"No corpus samples to review yet. Scan a corpus with `{SCAN}` (it samples up to 3 sentences per dish that "
        "co-occurs with a wrong country), then publish; scored answers come from `python -m pipeline score`.",
        icon=":material/info:",
    )
    st.stop()

counts = {row.lang: f"{row.lang} ({row.n_samples:,} samples, {row.n_dishes:,} dishes)" for row in langs.itertuples()}
columns = st.columns([1, 1, 1])
lang = widgets.url_select("Corpus language", list(counts), param="corpus_lang", format_func=counts.get,
                     container=columns[0])  # fmt: skip
search = widgets.url_text("Search dish or sentence", param="q", container=columns[1])
# Public mode (app/settings.py): labels only from a signed-in account, under its name; nobody else writes.
signed_in = settings.signed_in_user() if settings.public() else None
can_label = not settings.public() or signed_in is not None
if settings.public():
    annotator = signed_in or "anonymous"
    columns[2].text_input("Annotator", value=annotator, disabled=True, key="annotator_account")
    if not can_label:
        st.info(settings.LABELS_OFF, icon=":material/lock:")
        if settings.login_configured():
            st.button("Sign in to label", on_click=st.login, icon=":material/login:")
else:
    annotator = columns[2].text_input("Annotator", key="annotator", placeholder="anonymous", max_chars=80).strip()
    annotator = annotator or "anonymous"

samples = data.query(queries.corpus_samples, lang, search or None)
saved = load_annotations()
mine = {}
if saved is not None and not saved.empty:
    own = saved[saved["annotator"] == annotator]
    mine = dict(zip(own["sample_id"], own["category"], strict=True))

if samples.empty:
    st.info("No sample matches the search.", icon=":material/info:")
else:
    n_pages = (len(samples) - 1) // PAGE_SIZE + 1
    page = 1
    if n_pages > 1:
        page = int(widgets.url_select("Page", [str(p) for p in range(1, n_pages + 1)], param="page", container=st,
                                 format_func=lambda p: f"{p} of {n_pages}"))  # fmt: skip
    shown = samples.iloc[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    done = sum(sample_id in mine for sample_id in samples["sample_id"])
    st.caption(f"{done:,} of {len(samples):,} samples labelled by **{literal(annotator)}**.")
    with st.form("review_form"):
        for row in shown.itertuples():
            box = st.container(border=True)
            box.markdown(
                f"**{literal(row.name)}** · next to **{literal(row.country_name)}** "
                f"({literal(row.country)}) · true origin: {literal(row.origins or '?')}"
            )
            box.text(row.sentence)
            current = mine.get(row.sample_id)
            box.radio(
                f"Category of sample {row.sample_id}",
                annotations.CATEGORIES,
                index=annotations.CATEGORIES.index(current) if current in annotations.CATEGORIES else None,
                key=radio_key(row.sample_id, annotator),
                horizontal=True,
                label_visibility="collapsed",
                disabled=not can_label,
            )
        submitted = st.form_submit_button("Save", icon=":material/save:", disabled=saved is None or not can_label)
    if submitted and can_label:
        changes = [
            (row, st.session_state.get(radio_key(row.sample_id, annotator)))
            for row in shown.itertuples()
            if st.session_state.get(radio_key(row.sample_id, annotator)) not in (None, mine.get(row.sample_id))
        ]
        try:
            for row, category in changes:
                annotations.save(row.sample_id, row.lang, row.dish_key, row.country, category, annotator)
        except Exception as exc:
            st.error(f"Could not save to {code(annotations.store_path())}: {literal(exc)}", icon=":material/error:")
        else:
            st.success(f"Saved {len(changes)} label{'s' if len(changes) != 1 else ''}.", icon=":material/check:")
            saved = load_annotations()

st.subheader("Categories per corpus language")
if saved is None or saved.empty:
    st.info("Nothing labelled yet: the shares appear once samples are saved.", icon=":material/info:")
else:
    shares = annotations.shares(saved)
    vega.draw(shares_chart(shares), key="review_shares")
    st.caption(
        f"{len(saved):,} labels by {saved['annotator'].nunique():,} annotator(s); each annotator's label counts once."
    )
    fmt.dataframe(shares)
    ui.downloads(saved, "corpus_review_annotations", key="review_annotations")
