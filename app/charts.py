"""Figures for the pages: plotly when it is installed, Streamlit's built-in charts otherwise."""

from __future__ import annotations

import pandas as pd
import streamlit as st

try:
    import plotly.express as px
except ImportError:  # plotly is optional; st.bar_chart draws the same data more plainly
    px = None

POST_SOVIET = "Post-Soviet"
OTHER = "Other"
COLORS = {POST_SOVIET: "#d62728", OTHER: "#1f77b4"}


def dishes_per_origin(frame: pd.DataFrame, top: int = 30) -> None:
    """Horizontal bars of the `top` countries with most dishes; Post-Soviet countries in red."""
    shown = frame.nlargest(top, "n_dishes", keep="first").copy()
    shown["group"] = shown["post_soviet"].map(lambda flag: POST_SOVIET if flag else OTHER)
    shown["label"] = shown["country_name"].fillna(shown["country"]) + " (" + shown["country"] + ")"
    if px is None:
        st.bar_chart(
            shown,
            x="label",
            y="n_dishes",
            color="group",
            horizontal=True,
            sort="-n_dishes",
            x_label="dishes",
            y_label="",
        )
        return
    fig = px.bar(
        shown,
        x="n_dishes",
        y="label",
        color="group",
        orientation="h",
        color_discrete_map=COLORS,
        category_orders={"label": shown["label"].tolist(), "group": [POST_SOVIET, OTHER]},
        hover_data={"n_shared_dishes": True, "group": False, "label": False, "country_name": True},
        labels={
            "n_dishes": "dishes",
            "label": "",
            "group": "",
            "n_shared_dishes": "shared with other countries",
            "country_name": "country",
        },
        height=max(320, 22 * len(shown) + 80),
    )
    fig.update_layout(margin={"l": 0, "r": 0, "t": 10, "b": 0}, legend={"orientation": "h", "y": 1.02, "x": 0})
    st.plotly_chart(fig, config={"displayModeBar": False})
