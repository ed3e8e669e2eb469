"""World maps drawn with pydeck from marts.country_shapes, without any basemap or network request.

Shared by the Map page (choropleth + error arcs) and the Dish page (`origins_map`). The GeoJSON
FeatureCollection (~0.7 MB of outlines) is parsed once per snapshot (`st.cache_data`); each
chart only sets the per-country fill colour and tooltip text on a copy of it.

No basemap: `map_provider=None` makes pydeck send the `__MAP_STYLE__` sentinel, which tells
Streamlit to draw no tiles. (`map_style=None` alone would make Streamlit fall back to its themed
CARTO basemap, fetched from basemaps.cartocdn.com.)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

import pandas as pd
import pydeck as pdk
import streamlit as st
from pydeck.bindings.json_tools import default_serialize

from app import data
from warehouse.queries import geo

# viridis, 10 evenly spaced stops (matplotlib's), interpolated linearly in between
VIRIDIS: tuple[tuple[int, int, int], ...] = (
    (68, 1, 84), (72, 40, 120), (62, 73, 137), (49, 104, 142), (38, 130, 142),
    (31, 158, 137), (53, 183, 121), (110, 206, 88), (181, 222, 43), (253, 231, 37),
)  # fmt: skip
NO_DATA = [205, 205, 205, 255]  # countries without a value on the choropleth
BACKGROUND = [228, 228, 228, 255]  # countries that are not highlighted on a small map
OUTLINE = [255, 255, 255, 255]
SELECTED = [20, 20, 20, 255]  # border of the country chosen on the Map page
ARC_FROM = [0, 114, 178, 150]  # the dish's true origin (blue end)
ARC_TO = [213, 94, 0, 170]  # the country the model named instead (orange end)

VIEW = pdk.ViewState(latitude=30, longitude=20, zoom=0.8)
TOOLTIP = {"html": "<b>{name}</b><br/>{label}", "style": {"fontSize": "12px"}}
COUNTRY_LAYER = "countries"
ARC_LAYER = "arcs"
CRIMEA_NOTE = "Crimea is drawn as part of Ukraine, as in ISO 3166 and the UN's view (Natural Earth outlines)."


def load_shapes() -> pd.DataFrame:
    """marts.country_shapes (country, name_en, post_soviet, geojson, lon, lat), cached per snapshot."""
    return data.query(geo.country_shapes)


@st.cache_data(max_entries=4, show_spinner=False)
def _features(shapes: pd.DataFrame) -> list[dict]:
    """One GeoJSON Feature per country shape, geometry parsed once (the slow part)."""
    return [
        {"type": "Feature", "geometry": json.loads(row.geojson), "properties": {"country": row.country}}
        for row in shapes.itertuples(index=False)
        if isinstance(row.geojson, str) and row.geojson
    ]


def feature_collection(
    shapes: pd.DataFrame,
    fills: Mapping[str, Sequence[int]],
    labels: Mapping[str, str] | None = None,
    default_fill: Sequence[int] = NO_DATA,
    default_label: str = "",
    outlined: str | None = None,
) -> dict:
    """The country outlines as a FeatureCollection whose features carry `country`, `name`, `fill`
    (RGBA), `label` (tooltip text), `line` (RGBA) and `line_width` (pixels) properties. Countries
    missing from `fills` get default_fill; the `outlined` country gets a thick dark border."""
    names = dict(zip(shapes["country"], shapes["name_en"], strict=True))
    labels = labels or {}
    features = _features(shapes)  # st.cache_data hands out a fresh copy: ours to change
    for feature in features:
        code = feature["properties"]["country"]
        feature["properties"] = {
            "country": code,
            "name": f"{names.get(code) or code} ({code})",
            "fill": list(fills.get(code, default_fill)),
            "label": labels.get(code, default_label),
            "line": SELECTED if code == outlined else OUTLINE,
            "line_width": 2.5 if code == outlined else 0.5,
        }
    return {"type": "FeatureCollection", "features": features}


def country_layer(collection: dict, *, pickable: bool = True) -> pdk.Layer:
    return pdk.Layer(
        "GeoJsonLayer",
        data=collection,
        id=COUNTRY_LAYER,
        pickable=pickable,
        stroked=True,
        filled=True,
        get_fill_color="properties.fill",
        get_line_color="properties.line",
        get_line_width="properties.line_width",
        line_width_units="pixels",
        auto_highlight=pickable,
        highlight_color=[255, 255, 255, 90],
    )


def arc_layer(arcs: pd.DataFrame, shapes: pd.DataFrame) -> pdk.Layer | None:
    """Arcs from `true_country` to `predicted_country` (label points of marts.country_shapes),
    width by `n`. None when no arc has both ends on the map."""
    points = shapes[["country", "name_en", "lon", "lat"]].dropna(subset=["lon", "lat"])
    frame = arcs.merge(points.add_prefix("from_"), left_on="true_country", right_on="from_country")
    frame = frame.merge(points.add_prefix("to_"), left_on="predicted_country", right_on="to_country")
    if frame.empty:
        return None
    top = max(int(frame["n"].max()), 1)
    records = [
        {
            "from": [float(row.from_lon), float(row.from_lat)],
            "to": [float(row.to_lon), float(row.to_lat)],
            "true_country": row.true_country,
            "predicted_country": row.predicted_country,
            "n": int(row.n),
            "width": 0.5 + 3.5 * math.sqrt(row.n / top),
            "name": f"{row.from_name_en} → {row.to_name_en}",
            "label": f"{int(row.n):,} answers named {row.to_name_en} for a dish from {row.from_name_en}",
        }
        for row in frame.itertuples(index=False)
    ]
    return pdk.Layer(
        "ArcLayer",
        data=records,
        id=ARC_LAYER,
        pickable=True,
        get_source_position="from",
        get_target_position="to",
        get_source_color=ARC_FROM,
        get_target_color=ARC_TO,
        get_width="width",
        width_units="pixels",
        great_circle=False,
    )


class CompactDeck(pdk.Deck):
    """A Deck whose JSON has no indentation: pydeck indents every coordinate on its own line,
    which makes the world outlines ~5 MB and slow to encode instead of ~0.7 MB."""

    def to_json(self) -> str:
        return json.dumps(self, sort_keys=True, default=default_serialize, separators=(",", ":"))


def deck(
    layers: Sequence[pdk.Layer | None], *, tooltip: dict | None = TOOLTIP, view: pdk.ViewState | None = None
) -> CompactDeck:
    """A flat world map with `layers` and no basemap tiles."""
    return CompactDeck(
        layers=[layer for layer in layers if layer is not None],
        initial_view_state=view or VIEW,
        map_provider=None,  # no basemap, no request to a tile server (see the module docstring)
        tooltip=tooltip,
    )


def sequential(value: float | None, vmin: float = 0.0, vmax: float = 1.0) -> list[int]:
    """RGBA of `value` on the viridis scale from vmin (dark purple) to vmax (yellow); NO_DATA for
    a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return list(NO_DATA)
    span = vmax - vmin
    t = 0.0 if span <= 0 else min(max((float(value) - vmin) / span, 0.0), 1.0)
    position = t * (len(VIRIDIS) - 1)
    low = min(int(position), len(VIRIDIS) - 2)
    frac = position - low
    rgb = [round(a + (b - a) * frac) for a, b in zip(VIRIDIS[low], VIRIDIS[low + 1], strict=True)]
    return [*rgb, 255]


def legend(label: str, vmin: str, vmax: str) -> None:
    """A colour bar for `sequential`, with the end labels and the no-data grey."""
    stops = ", ".join(f"rgb{stop}" for stop in VIRIDIS)
    grey = f"rgb({NO_DATA[0]}, {NO_DATA[1]}, {NO_DATA[2]})"
    st.html(
        f"""
        <div style="display:flex;align-items:center;gap:0.5rem;font-size:0.8rem;flex-wrap:wrap">
          <span>{label}:</span><span>{vmin}</span>
          <span style="display:inline-block;width:12rem;height:0.7rem;border-radius:2px;
                       background:linear-gradient(to right, {stops})"></span>
          <span>{vmax}</span>
          <span style="display:inline-block;width:0.9rem;height:0.7rem;margin-left:1rem;
                       border-radius:2px;background:{grey}"></span><span>no data</span>
        </div>
        """
    )


def origins_map(shapes: pd.DataFrame, highlight: dict[str, list[int]], key: str, height: int = 300) -> None:
    """A small world map: the countries in `highlight` filled with their RGBA colour, the rest
    light grey; hovering shows the country name. `shapes` = the rows of marts.country_shapes."""
    labels = dict.fromkeys(highlight, "")
    collection = feature_collection(shapes, highlight, labels, default_fill=BACKGROUND)
    chart = deck(
        [country_layer(collection)],
        tooltip={"html": "<b>{name}</b>", "style": {"fontSize": "12px"}},
        view=centred_view(shapes, highlight),
    )
    st.pydeck_chart(chart, height=height, key=key)


def centred_view(shapes: pd.DataFrame, countries: Sequence[str]) -> pdk.ViewState:
    """Centred on the label points of `countries` (South Africa stays in view), zoomed out enough
    to show them all; the world view when none is known."""
    points = shapes[shapes["country"].isin(list(countries))]
    if points.empty:
        return VIEW
    spread = max(points["lon"].max() - points["lon"].min(), (points["lat"].max() - points["lat"].min()) * 2)
    zoom = 1.6 if spread < 20 else 1.0 if spread < 90 else 0.5
    return pdk.ViewState(latitude=float(points["lat"].mean()), longitude=float(points["lon"].mean()), zoom=zoom)
