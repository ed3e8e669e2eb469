"""Figures the pages share: dishes per origin country, and a score or a count over numbered bins
(the corpus pages draw both over the bins of warehouse/marts/090_corpus_analyses.sql)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from app import fmt, vega
from app.bin_labels import names_text

POST_SOVIET = "Post-Soviet"
OTHER = "Other"
COLORS = {POST_SOVIET: "#d62728", OTHER: "#1f77b4"}
POINT, BAR = "point", "bar"  # the click selections of binned_means and binned_counts


def dishes_per_origin(frame: pd.DataFrame, top: int = 30, key: str = "dishes_per_origin") -> None:
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
                "x": {"field": "n_dishes", "type": "quantitative", "title": "dishes", "axis": {"format": fmt.D3_COUNT}},
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
                    {"field": "n_dishes", "title": "dishes", "format": fmt.D3_COUNT},
                    {"field": "n_shared_dishes", "title": "shared with other countries", "format": fmt.D3_COUNT},
                ],
            },
        },
        key=key,
    )


@dataclass(frozen=True)
class Bins:
    """A numbered binning (1..n) of some measure: its axis title and each bin's range as text."""

    n: int
    title: str
    labels: Mapping[int, str]

    def x(self) -> dict:
        """The x encoding over the bins: every bin a tick, labelled by its range."""
        names = [""] + [self.labels.get(b, str(b)) for b in range(1, self.n + 1)]
        return {
            "field": "bin",
            "type": "quantitative",
            "title": self.title,
            "scale": {"domain": [0.5, self.n + 0.5], "nice": False},
            "axis": {
                "values": list(range(1, self.n + 1)),
                # the range text by bin number (json.dumps: a quoted literal array in Vega's expression)
                "labelExpr": f"{json.dumps(names)}[datum.value]",
                "labelAngle": 0,
                "labelOverlap": False,
                "grid": False,
            },
        }


def binned_means(
    frame: pd.DataFrame,
    bins: Bins,
    *,
    series: str,
    unit: str,
    y_title: str,
    names: Mapping[str, tuple[str, str]] | None = None,
    middle_line: bool = False,
) -> dict:
    """One line per value of `series` over the bins: the mean with its 95% interval as error bars.

    `frame` has `bin`, `mean`, `mean_low`, `mean_high`, `n_units` (dishes, pairs…), `n_answers` and
    `dishes` (the names in the bin, for the tooltip). `names` maps a series value to (legend name,
    colour); other values are shown as they are. Each row of the chart keeps its series value
    (`value`) beside its legend name (`series`); a click selects a point (`POINT`: value and bin)."""
    order = list(dict.fromkeys(str(v) for v in frame[series]))
    legend = [(names or {}).get(v, (v, None))[0] for v in order]
    colours = [(names or {}).get(v, (v, None))[1] for v in order]
    rows = pd.DataFrame(
        {
            "value": frame[series].astype(str),
            "series": [(names or {}).get(str(v), (str(v), None))[0] for v in frame[series]],
            "bin": frame["bin"].astype(int),
            "range": [bins.labels.get(int(b), "") for b in frame["bin"]],
            "mean": frame["mean"],
            "low": frame["mean_low"],
            "high": frame["mean_high"],
            "n_units": frame["n_units"],
            "n_answers": frame["n_answers"],
            "dishes": [names_text(d) for d in frame["dishes"]],
        }
    ).sort_values(["bin"], kind="stable")
    # the legend above the plot, in rows of 6 (12 models fit the column)
    colour = {
        "field": "series",
        "type": "nominal",
        "title": None,
        "sort": legend,
        "legend": {"orient": "top", "columns": 6, "labelLimit": 160},
    }
    if all(colours):
        colour["scale"] = {"domain": legend, "range": colours}
    x = bins.x()
    layers: list[dict] = [
        {"mark": {"type": "line"}, "encoding": {"x": x, "y": {"field": "mean", "type": "quantitative"}}},
        {
            "mark": {"type": "rule"},
            "encoding": {"x": x, "y": {"field": "low", "type": "quantitative"}, "y2": {"field": "high"}},
        },
        {
            "params": [{"name": POINT, "select": {"type": "point", "fields": ["value", "bin"]}}],
            "mark": {"type": "point", "filled": True, "size": 70, "cursor": "pointer"},
            "encoding": {
                "x": x,
                "y": {
                    "field": "mean",
                    "type": "quantitative",
                    "title": y_title,
                    "scale": {"domain": [0, 1.05], "nice": False},
                },
                "tooltip": [
                    {"field": "series", "title": "line"},
                    {"field": "bin"},
                    {"field": "range"},
                    {"field": "mean", "format": fmt.D3_SCORE},
                    {"field": "n_units", "title": unit, "format": fmt.D3_COUNT},
                    {"field": "n_answers", "title": "answers", "format": fmt.D3_COUNT},
                    {"field": "dishes"},
                ],
            },
        },
    ]
    spec: dict = {
        "height": 450,
        "layer": [{"data": {"values": vega.records(rows)}, "encoding": {"color": colour}, "layer": layers}],
    }
    if middle_line:
        spec["layer"].append(
            {
                "data": {"values": [{"bin": (bins.n + 1) / 2}]},
                "mark": {"type": "rule", "strokeDash": [3, 3], "color": "#7f7f7f"},
                "encoding": {"x": {"field": "bin", "type": "quantitative"}},
            }
        )
    return spec


def binned_counts(bin_of: pd.Series, names: pd.Series, bins: Bins, *, unit: str, y_title: str) -> dict:
    """Bars: how many things fall in each bin (`bin_of`, one row per thing; NaN: in no bin), with their
    `names` in the tooltip; a click selects a bar (`BAR`: its bin)."""
    frame = pd.DataFrame({"bin": bin_of, "name": names}).dropna(subset=["bin"])
    per_bin = frame.groupby("bin").agg(n=("name", "size"), names=("name", list)).reset_index()
    rows = pd.DataFrame(
        {
            "bin": per_bin["bin"].astype(int),
            "range": [bins.labels.get(int(b), "") for b in per_bin["bin"]],
            "n": per_bin["n"],
            "names": [names_text(n) for n in per_bin["names"]],
        }
    )
    return {
        "data": {"values": vega.records(rows)},
        "height": 230,
        "params": [{"name": BAR, "select": {"type": "point", "fields": ["bin"]}}],
        "mark": {"type": "bar", "color": "#7f7f7f", "cursor": "pointer", "width": 24},
        "encoding": {
            "x": bins.x(),
            "y": {"field": "n", "type": "quantitative", "title": y_title},
            "tooltip": [
                {"field": "bin"},
                {"field": "range"},
                {"field": "n", "title": unit, "format": fmt.D3_COUNT},
                {"field": "names", "title": "names"},
            ],
        },
    }


def frequency_rank(frame: pd.DataFrame) -> dict:
    """BORSch Fig. 2a: documents per dish against its frequency rank, both on log axes, one colour per way the
    dataset found the dish (`found_by`); dishes the corpus never names (0 documents) cannot sit on a log axis
    and are left out (the page says how many)."""
    shown = frame[frame["docs_with_dish"] > 0]
    return {
        "data": {"values": vega.records(shown[["name", "rank", "docs_with_dish", "found_by", "source"]])},
        "height": 320,
        "mark": {"type": "point", "filled": True, "size": 30, "opacity": 0.7},
        "encoding": {
            "x": {"field": "rank", "type": "quantitative", "scale": {"type": "log"}, "title": "frequency rank"},
            "y": {
                "field": "docs_with_dish",
                "type": "quantitative",
                "scale": {"type": "log"},
                "title": "documents naming the dish",
            },
            "color": {"field": "found_by", "type": "nominal", "title": "found by"},
            "tooltip": [
                {"field": "name"},
                {"field": "rank"},
                {"field": "docs_with_dish", "title": "documents", "format": fmt.D3_COUNT},
                {"field": "source"},
            ],
        },
    }
