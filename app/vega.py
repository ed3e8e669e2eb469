"""Charts drawn with Vega-Lite (`st.vega_lite_chart`) rather than Plotly.

Why: Streamlit loads a chart library's frontend chunk in every new browser tab. Plotly's
(`PlotlyChart.*.js`, 4.7 MB) cost 2.5–3 s of loading and evaluation per tab on the 2-core demo
machine, Vega's (`embed.*.js`, 0.8 MB) 0.3–0.9 s (bench/README.md, "pages.py"), which decides
whether a page's first draw meets the 5 s goal. The specs carry their rows inline
(`data.values`), so a test reads what a chart shows from the element's spec alone.

Vega draws labels and tooltips as text (SVG text nodes, escaped tooltips), so data needs no HTML
escaping here, unlike Plotly's labels.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from app import fmt


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts (numpy scalars to Python, NaN to null) for a spec's `data.values`; models by name
    (`fmt.model`), as every table shows them."""
    return json.loads(fmt.models_by_name(frame).to_json(orient="records", date_format="iso"))


def draw(spec: dict[str, Any], *, key: str | None = None, width: str = "stretch", **selection: Any):
    """Draw `spec` across its column (`width="content"`: at the spec's own width, for panels side by
    side); `selection` (`on_select`, `selection_mode`) passes through. Returns Streamlit's element or,
    with `on_select`, the selection event."""
    return st.vega_lite_chart(spec=spec, width=width, key=key, **selection)


def heat_text_colour(field: str, threshold: float) -> dict[str, Any]:
    """Cell text in white on dark cells (Viridis below `threshold`), black on light ones."""
    return {"condition": {"test": f"datum[{field!r}] < {threshold}", "value": "white"}, "value": "black"}


def model_language_heatmap(
    pivot: pd.DataFrame,
    *,
    label: str,
    share: bool,
    key: str,
    domain: list[float] | None = None,
    axis_on_top: bool = False,
) -> None:
    """Models (rows of `pivot`, in its order) x prompt languages (its columns); each cell's text as the
    tables write it (a share never reads "0%" unless it is 0: `fmt.pct`), the hover names the language.
    `domain` fixes the colour scale (default: the data's range)."""
    cells = pivot.rename_axis(index="model", columns="lang").stack().rename("value").reset_index()
    cells["text"] = cells["value"].map(lambda v: fmt.pct(v, 0) if share else fmt.score(v))
    cells["language"] = cells["lang"].map(fmt.language)
    low, high = domain or [float(cells["value"].min()), float(cells["value"].max())]
    axis = {"orient": "top", "labelAngle": -45} if axis_on_top else {}
    draw(
        {
            "data": {"values": records(cells)},
            "height": {"step": 30 if axis_on_top else 28},
            "encoding": {
                "x": {
                    "field": "lang",
                    "type": "nominal",
                    "sort": list(pivot.columns),
                    "title": "prompt language",
                    "axis": {**axis, "labelOverlap": False},
                },
                "y": {
                    "field": "model",
                    "type": "nominal",
                    "sort": list(pivot.index),
                    "title": "model" if axis_on_top else None,
                    "axis": {"labelLimit": 0},
                },
                "tooltip": [{"field": "model"}, {"field": "language"}, {"field": "text", "title": label}],
            },
            "layer": [
                {
                    "mark": "rect",
                    "encoding": {
                        "color": {
                            "field": "value",
                            "type": "quantitative",
                            "title": label,
                            "scale": {"scheme": "viridis", **({"domain": domain} if domain else {})},
                            "legend": {"format": fmt.D3_PCT_AXIS} if share else {},
                        }
                    },
                },
                {
                    "mark": {"type": "text", "fontSize": 10},
                    "encoding": {
                        "text": {"field": "text"},
                        "color": heat_text_colour("value", low + 0.6 * (high - low)),
                    },
                },
            ],
        },
        key=key,
    )
