"""Figures the pages share: dishes per origin country, and a score or a count over numbered bins
(the corpus pages draw both over the bins of warehouse/marts/090_corpus_analyses.sql)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from app import vega
from app.bin_labels import wrap_names

POST_SOVIET = "Post-Soviet"
OTHER = "Other"
COLORS = {POST_SOVIET: "#d62728", OTHER: "#1f77b4"}


def dishes_per_origin(frame: pd.DataFrame, top: int = 30) -> None:
    """Horizontal bars of the `top` countries with most dishes; Post-Soviet countries in red."""
    shown = frame.nlargest(top, "n_dishes", keep="first").copy()
    shown["group"] = shown["post_soviet"].map(lambda flag: POST_SOVIET if flag else OTHER)
    shown["label"] = shown["country_name"].fillna(shown["country"]) + " (" + shown["country"] + ")"
    rows = shown[["label", "n_dishes", "n_shared_dishes", "group"]]
    vega.draw(
        {
            "data": {"values": vega.records(rows)},
            "height": {"step": 22},
            "mark": "bar",
            "encoding": {
                "y": {
                    "field": "label",
                    "type": "nominal",
                    "sort": shown["label"].tolist(),
                    "title": None,
                    "axis": {"labelLimit": 0, "labelOverlap": False},
                },
                "x": {"field": "n_dishes", "type": "quantitative", "title": "dishes", "axis": {"format": ",d"}},
                # the legend above the plot area, not over the first bar
                "color": {
                    "field": "group",
                    "type": "nominal",
                    "title": None,
                    "scale": {"domain": [POST_SOVIET, OTHER], "range": [COLORS[POST_SOVIET], COLORS[OTHER]]},
                    "legend": {"orient": "top"},
                },
                "tooltip": [
                    {"field": "label", "title": "country"},
                    {"field": "n_dishes", "title": "dishes", "format": ",d"},
                    {"field": "n_shared_dishes", "title": "shared with other countries", "format": ",d"},
                ],
            },
        },
        key="dishes_per_origin",
    )


@dataclass(frozen=True)
class Bins:
    """A numbered binning (1..n) of some measure: its axis title and each bin's range as text."""

    n: int
    title: str
    labels: Mapping[int, str]

    def axis(self) -> dict:
        return {
            "title": self.title,
            "tickmode": "array",
            "tickvals": list(range(1, self.n + 1)),
            "ticktext": [self.labels.get(b, str(b)) for b in range(1, self.n + 1)],
            "range": [0.5, self.n + 0.5],
        }


def _plain(text: object) -> str:
    """Data shown in a plotly label or hover (which read <b>, <a href>, … in text) as plain text."""
    return html.escape(str(text)).replace("%", "&#37;")


def binned_means(
    frame: pd.DataFrame,
    bins: Bins,
    *,
    series: str,
    unit: str,
    y_title: str,
    names: Mapping[str, tuple[str, str]] | None = None,
    middle_line: bool = False,
) -> go.Figure:
    """One line per value of `series` over the bins: the mean with its 95% interval as error bars.

    `frame` has `bin`, `mean`, `mean_low`, `mean_high`, `n_units` (dishes, pairs…), `n_answers` and
    `dishes` (the names in the bin, for the hover). `names` maps a series value to (legend name,
    colour); other values are shown as they are."""
    fig = go.Figure()
    for value, rows in frame.groupby(series, sort=False):
        name, colour = (names or {}).get(str(value), (str(value), None))
        rows = rows.sort_values("bin")
        custom = [
            [bins.labels.get(int(r.bin), ""), r.n_units, r.n_answers, wrap_names(r.dishes)] for r in rows.itertuples()
        ]
        fig.add_trace(
            go.Scatter(
                x=rows["bin"].tolist(),
                y=rows["mean"].tolist(),
                mode="lines+markers",
                name=_plain(name),
                line={"color": colour} if colour else None,
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "thickness": 1,
                    "array": (rows["mean_high"] - rows["mean"]).fillna(0).tolist(),
                    "arrayminus": (rows["mean"] - rows["mean_low"]).fillna(0).tolist(),
                },
                customdata=custom,
                hovertemplate=f"<b>{_plain(name)}</b><br>bin %{{x}}: %{{customdata[0]}}<br>mean %{{y:.2f}}<br>"
                f"%{{customdata[1]}} {unit}, %{{customdata[2]:,}} answers<br><i>%{{customdata[3]}}</i><extra></extra>",
            )
        )
    if middle_line:
        fig.add_vline(x=(bins.n + 1) / 2, line_dash="dot", line_color="#7f7f7f")
    fig.update_layout(
        height=450,
        margin={"l": 0, "r": 0, "t": 30, "b": 0},
        legend={"orientation": "h", "y": 1.02, "x": 0, "yanchor": "bottom"},
        xaxis=bins.axis(),
        yaxis={"title": y_title, "range": [0, 1.05]},
    )
    return fig


def binned_counts(bin_of: pd.Series, names: pd.Series, bins: Bins, *, unit: str, y_title: str) -> go.Figure:
    """Bars: how many things fall in each bin (`bin_of`, one row per thing; NaN: in no bin), with their
    `names` in the hover."""
    frame = pd.DataFrame({"bin": bin_of, "name": names}).dropna(subset=["bin"])
    per_bin = frame.groupby("bin").agg(n=("name", "size"), names=("name", list))
    fig = go.Figure(
        go.Bar(
            x=per_bin.index.astype(int).tolist(),
            y=per_bin["n"].tolist(),
            marker={"color": "#7f7f7f"},
            customdata=[wrap_names(n) for n in per_bin["names"]],
            hovertemplate=f"bin %{{x}}: %{{y}} {unit}<br><i>%{{customdata}}</i><extra></extra>",
        )
    )
    fig.update_layout(height=230, margin={"l": 0, "r": 0, "t": 10, "b": 0}, xaxis=bins.axis(), yaxis={"title": y_title})
    return fig
