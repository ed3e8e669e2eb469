"""A page for tests/e2e/test_security.py: `?text=` shown through app.safe in every element that
renders markdown, so the browser test checks the escaping against Streamlit's real renderer."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `streamlit run` puts only this folder on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app.safe import code, literal  # noqa: E402

text = str(st.query_params.get("text") or "")
st.header(literal(text))
st.markdown(f"markdown: {literal(text)}")
st.markdown(f"badge: :green-badge[{literal(text)}]")
st.caption(f"caption: {literal(text)}")
st.info(f"info: {literal(text)}")
st.warning(f"warning: {literal(text)}")
st.error(f"error: {literal(text)}")
st.success(f"code: {code(text)}")

# a chart (app/vega.py) with the text as a bar's label and tooltip: Vega draws and escapes it
from app import vega  # noqa: E402

vega.draw(
    {
        "data": {"values": [{"name": text, "n": 1}]},
        "height": 200,
        "mark": "bar",
        "encoding": {
            "x": {"field": "name", "type": "nominal"},
            "y": {"field": "n", "type": "quantitative"},
            "tooltip": [{"field": "name"}],
        },
    },
    key="chart",
)
