"""World maps drawn from marts.country_shapes, without any basemap or network request.

The Map page's map (choropleth + error arcs, clicked to pick a country) is pydeck (deck.gl); the Dish
and Live probe pages' small maps (`origins_map`) are SVG images of the same outlines (see there).

Countries are drawn as flat polygons (`SolidPolygonLayer`, one row per polygon of a country's
MultiPolygon), each shrunk by a hair so the white page shows between neighbours as their border
(marts.map_outlines, drawn by the reference step: warehouse/geometry.py); the selected country sits
on a dark, slightly grown copy of itself (its outline). One layer
type for all of it, on purpose: in the headless Chromium of the tests and benches (software WebGL)
every further layer type costs seconds of shader compiling before the first frame (a `PathLayer` for
the borders doubled the Map page's first draw; bench/pages.py). And not a `GeoJsonLayer`:
Streamlit's click selection (`on_select="rerun"`) does not reach the server for deck.gl's composite
layers (GeoJSON, Polygon): the hover tooltip shows but a click sends nothing, while a primitive
layer's click does (tests/e2e/test_map_click.py clicks one in Chromium).

The drawn outlines are read once per snapshot (`st.cache_resource`: read-only, shared, never copied);
each chart builds new small row dicts that only point at those coordinates.

No basemap: `map_provider=None` makes pydeck send the `__MAP_STYLE__` sentinel, which tells
Streamlit to draw no tiles. (`map_style=None` alone would make Streamlit fall back to its themed
CARTO basemap, fetched from basemaps.cartocdn.com.)
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import pydeck as pdk
import streamlit as st
from pydeck.bindings.json_tools import default_serialize

from app import data, fmt
from warehouse.geometry import rings
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

# The whole world across the page's column (~950 px: the wide layout on a 1,400 px screen, sidebar
# open), 500 px high: from northern Canada to Tierra del Fuego, no empty margins.
VIEW = pdk.ViewState(latitude=22, longitude=10, zoom=0.9, max_zoom=4)
COLUMN_PX = 950  # that column's width
HEIGHT = 500
COUNTRY_LAYER = "countries"
SELECTED_LAYER = "selected"
ARC_LAYER = "arcs"
CRIMEA_NOTE = "Crimea is drawn as part of Ukraine, as in ISO 3166 and the UN's view (Natural Earth outlines)."

# The tooltip box is drawn by the inner <div>, shifted by its CSS class (`tip`: "ne", "nw", "se", "sw",
# the direction it opens in) so that it opens towards the middle of the map: left of the cursor in the
# east, above it in the south. deck.gl places the outer element at the cursor and the map's frame
# cuts whatever sticks out, so a fixed offset would be cut at the edges. The outer element stays
# transparent; the <style> travels inside the tooltip's own HTML (nothing else is added to the page).
TIP_CSS = (
    "<style>.dish-atlas-tip{background:#29323c;color:#f0f0f0;padding:6px 8px;border-radius:4px;"
    "width:max-content;max-width:260px;white-space:normal;line-height:1.35}"
    ".dish-atlas-tip.se{transform:translate(12px,12px)}"
    ".dish-atlas-tip.sw{transform:translate(calc(-100% - 12px),12px)}"
    ".dish-atlas-tip.ne{transform:translate(12px,calc(-100% - 12px))}"
    ".dish-atlas-tip.nw{transform:translate(calc(-100% - 12px),calc(-100% - 12px))}</style>"
)
_TIP_ROOT = {"backgroundColor": "transparent", "padding": "0", "fontSize": "12px"}
TOOLTIP = {"html": TIP_CSS + '<div class="dish-atlas-tip {tip}"><b>{name}</b><br/>{label}</div>', "style": _TIP_ROOT}
# The selected country's halo is grown by HALO degrees.
HALO = 0.8
# A halo is grown from the country simplified by this much (degrees): its outline is HALO wide and
# rounded, so finer detail cannot show, and growing Canada's or Chile's full coastline costs ~0.2 s.
HALO_DETAIL = 0.05


def tip_direction(lon: float | None, lat: float | None, view: pdk.ViewState = VIEW) -> str:
    """Which way the tooltip of an object at (lon, lat) opens: towards the map's middle."""
    east = lon is not None and lon > (view.longitude or 0) + 30
    south = lat is not None and lat < (view.latitude or 0) - 25
    return ("n" if south else "s") + ("w" if east else "e")


def load_shapes() -> pd.DataFrame:
    """marts.country_shapes (country, name_en, post_soviet, geojson, lon, lat), cached per snapshot."""
    return data.query(geo.country_shapes)


@dataclass(frozen=True)
class Outlines:
    """Each country's polygons (lists of rings) as drawn (marts.map_outlines), its label point and name."""

    polygons: Mapping[str, tuple[list, ...]]
    points: Mapping[str, tuple[float | None, float | None]]
    names: Mapping[str, str]


@st.cache_resource(max_entries=2, show_spinner=False)
def _outlines(snap: data.Snapshot) -> Outlines:
    """marts.map_outlines read once per snapshot (shared read-only by every session, never changed):
    the polygons come shrunk and filtered from the publish, so this only parses JSON."""
    shapes = load_shapes()
    polygons = {
        str(country): tuple(json.loads(text))
        for country, text in data.query(geo.map_outlines).itertuples(index=False)
        if isinstance(text, str)
    }
    points = {
        row.country: (None if pd.isna(row.lon) else float(row.lon), None if pd.isna(row.lat) else float(row.lat))
        for row in shapes.itertuples(index=False)
    }
    names = {row.country: str(row.name_en or row.country) for row in shapes.itertuples(index=False)}
    return Outlines(polygons, points, names)


@st.cache_resource(max_entries=64, show_spinner=False)
def _halo(snap: data.Snapshot, country: str) -> tuple[list, ...]:
    """`country` grown by HALO (rounded corners): its outline when selected; () when not on the map.
    Only this country's GeoJSON is parsed (growing all 238 took 1.7 s of a cold page's draw)."""
    from shapely.geometry import shape

    shapes = load_shapes()
    text = shapes.loc[shapes["country"] == country, "geojson"]
    if country not in _outlines(snap).polygons or text.empty or not isinstance(text.iloc[0], str):
        return ()
    geometry = shape(json.loads(text.iloc[0]))
    grown = geometry.simplify(HALO_DETAIL, preserve_topology=True).buffer(HALO, join_style="round", quad_segs=2)
    return tuple(rings(grown))


def halo(country: str | None) -> tuple[list, ...]:
    return _halo(data.snapshot(), country) if country else ()


def outlines() -> Outlines:
    return _outlines(data.snapshot())


def country_rows(
    fills: Mapping[str, Sequence[int]],
    labels: Mapping[str, str] | None = None,
    default_label: str = "",
) -> list[dict]:
    """One row per polygon of every country: `polygon` (rings), `country`, `name` ("Ukraine (UA)"),
    `fill` (RGBA), `label` (tooltip text) and `tip` (the tooltip box's style). Countries missing
    from `fills` get NO_DATA and default_label."""
    shapes = outlines()
    labels = labels or {}
    rows = []
    for code, polygons in shapes.polygons.items():
        lon, lat = shapes.points.get(code, (None, None))
        shared = {
            "country": code,
            "name": fmt.country(code, shapes.names.get(code)),
            "fill": list(fills.get(code, NO_DATA)),
            "label": labels.get(code, default_label),
            "tip": tip_direction(lon, lat),
        }
        rows.extend({"polygon": polygon, **shared} for polygon in polygons)
    return rows


def country_layer(rows: list[dict], *, pickable: bool = True) -> pdk.Layer:
    """Flat filled countries (their borders are the gaps between them); clicking one selects its row."""
    return pdk.Layer(
        "SolidPolygonLayer",
        data=rows,
        id=COUNTRY_LAYER,
        pickable=pickable,
        filled=True,
        get_polygon="polygon",
        get_fill_color="fill",
        auto_highlight=pickable,
        highlight_color=[255, 255, 255, 90],
    )


def selected_layer(country: str | None) -> pdk.Layer | None:
    """The selected country's outline: a dark copy of it, grown by HALO, drawn under the countries
    (the same layer type as theirs, see the module docstring). Not pickable."""
    grown = halo(country)
    if not grown:
        return None
    return pdk.Layer(
        "SolidPolygonLayer",
        data=[{"polygon": polygon} for polygon in grown],
        id=SELECTED_LAYER,
        pickable=False,
        get_polygon="polygon",
        get_fill_color=SELECTED,
    )


def arc_layer(arcs: pd.DataFrame, view: pdk.ViewState = VIEW) -> pdk.Layer | None:
    """Arcs from `true_country` to `predicted_country` (label points of marts.country_shapes),
    width by `n`. None when no arc has both ends on the map."""
    shapes = outlines()
    records = []
    top = max(int(arcs["n"].max()), 1) if not arcs.empty else 1
    for row in arcs.itertuples(index=False):
        start, end = shapes.points.get(row.true_country), shapes.points.get(row.predicted_country)
        if not start or not end or None in start or None in end:
            continue
        source, target = shapes.names.get(row.true_country), shapes.names.get(row.predicted_country)
        records.append(
            {
                "from": list(start),
                "to": list(end),
                "true_country": row.true_country,
                "predicted_country": row.predicted_country,
                "n": int(row.n),
                "width": 0.5 + 3.5 * math.sqrt(row.n / top),
                "name": f"{source} → {target}",
                "label": f"{fmt.count(row.n)} answers named {target} for a dish from {source}",
                "tip": tip_direction(*end, view),
            }
        )
    if not records:
        return None
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
    which makes the world outlines several MB and slow to encode."""

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


@dataclass(frozen=True)
class Scale:
    """A colour scale fitted to the values shown: viridis from 0 to `top` (a round number just above
    the largest value), on a square-root axis so that the many small values (most countries' recall
    is a few percent) are not all one colour."""

    top: float

    @classmethod
    def fitted(cls, values: pd.Series) -> Scale:
        largest = float(values.max()) if len(values) and values.notna().any() else 0.0
        if largest <= 0:
            return cls(1.0)
        steps = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0)
        step = next((s for s in steps if largest / s <= 10), 1.0)
        return cls(min(math.ceil(largest / step - 1e-9) * step, 1.0) if largest < 1 else 1.0)

    def position(self, value: float) -> float:
        """Where `value` sits on the colour bar, 0–1."""
        return math.sqrt(min(max(float(value) / self.top, 0.0), 1.0))

    def colour(self, value: float | None) -> list[int]:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return list(NO_DATA)
        return sequential(self.position(value))

    def ticks(self) -> list[tuple[float, str]]:
        """Tick labels along the bar: 0, round values below the top, the top; none closer than an
        eighth of the bar to its neighbour."""
        nice = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5)
        ticks: list[tuple[float, str]] = []
        for value in (0.0, *(v for v in nice if v < self.top), self.top):
            position = self.position(value)
            if ticks and position - ticks[-1][0] < 0.125:
                if value < self.top:
                    continue
                ticks.pop()
            ticks.append((position, self.label(value)))
        return ticks

    @staticmethod
    def label(value: float) -> str:
        """A round share as a short percentage: 0.5 → "50%", 0.025 → "2.5%"."""
        return f"{round(value * 100, 4):g}%"


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


def legend(label: str, scale: Scale) -> None:
    """A colour bar for `scale` with its tick labels, and the no-data grey."""
    stops = ", ".join(f"rgb{stop}" for stop in VIRIDIS)
    grey = f"rgb({NO_DATA[0]}, {NO_DATA[1]}, {NO_DATA[2]})"
    ticks = "".join(
        f'<span style="position:absolute;left:{position * 100:.1f}%;transform:translateX(-50%)">{text}</span>'
        for position, text in scale.ticks()
    )
    st.html(
        f"""
        <div style="display:flex;align-items:flex-start;gap:0.75rem;font-size:0.8rem;flex-wrap:wrap">
          <span>{label}:</span>
          <div style="width:18rem">
            <div style="height:0.7rem;border-radius:2px;background:linear-gradient(to right, {stops})"></div>
            <div style="position:relative;height:1.1rem">{ticks}</div>
          </div>
          <span style="display:inline-block;width:0.9rem;height:0.7rem;margin-left:1.5rem;
                       border-radius:2px;background:{grey}"></span><span>no data</span>
        </div>
        """
    )


def show(chart: CompactDeck, *, height: int = HEIGHT, key: str, **selection: object) -> object:
    """Draw a map; `selection`: on_select and selection_mode for a map that is clicked."""
    return st.pydeck_chart(chart, height=height, key=key, **selection)


def origins_map(highlight: dict[str, list[int]], height: int = 300, width: int = COLUMN_PX) -> None:
    """A small world map, about `width` x `height` px (the image fills its column, keeping its shape):
    the countries in `highlight` filled with their RGBA colour and named on the map, the rest light
    grey, centred on the highlighted ones (marts.country_shapes, `load_shapes`).

    Drawn as an SVG image (`svg_map`), not deck.gl: nothing on it is clicked, and a deck.gl map costs
    a fresh browser ~2 s before its first frame (its 3 MB script, the outlines parsed as JSON5,
    WebGL set-up; bench/pages.py), the image of the same outlines a fraction of that. An image has no
    hover, so the highlighted countries carry their names."""
    st.image(svg_map(highlight, centred_view(load_shapes(), highlight), height, width), width="stretch")


# The small maps' SVG: Web Mercator (as deck.gl's) scaled to a world WORLD units wide, one decimal.
WORLD = 1000.0
MAX_LATITUDE = 85.0511  # Web Mercator's square world
LABEL_PX = 13  # the highlighted countries' names, in pixels


def mercator(lon: float, lat: float) -> tuple[float, float]:
    """(x, y) of a point in the SVG's units: x east from the antimeridian, y south from the top."""
    phi = math.radians(max(min(lat, MAX_LATITUDE), -MAX_LATITUDE))
    y = (math.pi - math.log(math.tan(math.pi / 4 + phi / 2))) / (2 * math.pi)
    return (lon + 180.0) / 360.0 * WORLD, y * WORLD


@st.cache_resource(max_entries=2, show_spinner=False)
def _svg_paths(snap: data.Snapshot) -> Mapping[str, str]:
    """Each drawn country (`outlines`) as the `d` of one SVG path (its rings as subpaths, holes by the
    even-odd rule), computed once per snapshot."""
    paths = {}
    for code, polygons in _outlines(snap).polygons.items():
        subpaths = []
        for polygon in polygons:
            for ring in polygon:
                points = " ".join("{:.1f} {:.1f}".format(*mercator(lon, lat)) for lon, lat in ring[:-1])
                subpaths.append(f"M{points}Z")
        paths[code] = "".join(subpaths)
    return paths


def svg_window(view: pdk.ViewState, height: int, width: int = COLUMN_PX) -> tuple[float, float, float, float]:
    """The SVG's viewBox (x, y, width, height): what a deck.gl map of `view`, `width` x `height` px,
    would show, kept inside the world."""
    zoom = float(view.zoom or 0)
    wide = min(WORLD, WORLD * width / (512 * 2**zoom))
    tall = min(WORLD, wide * height / width)
    x, y = mercator(float(view.longitude or 0), float(view.latitude or 0))
    return min(max(x - wide / 2, 0.0), WORLD - wide), min(max(y - tall / 2, 0.0), WORLD - tall), wide, tall


def svg_map(highlight: Mapping[str, Sequence[int]], view: pdk.ViewState, height: int, width: int = COLUMN_PX) -> str:
    """The world's countries as an SVG image: `highlight`'s in their RGBA colour, named at their label
    points, the rest BACKGROUND; each path's id is its country code. Codes and names are escaped (they
    come from the warehouse)."""
    snap = data.snapshot()  # the outlines and their paths from one snapshot
    shapes = _outlines(snap)
    box = svg_window(view, height, width)
    font = LABEL_PX * box[2] / width
    drawn, labels = [], []
    for code, d in _svg_paths(snap).items():
        red, green, blue, alpha = (*highlight.get(code, BACKGROUND), 255)[:4]
        fill = f'fill="rgb({red},{green},{blue})" fill-opacity="{alpha / 255:.2f}"'
        drawn.append(f'<path id="{html.escape(code)}" d="{d}" {fill}/>')
        lon, lat = shapes.points.get(code, (None, None))
        if code in highlight and lon is not None and lat is not None:
            x, y = mercator(lon, lat)
            name = html.escape(fmt.country(code, shapes.names.get(code)))
            labels.append(f'<text x="{x:.1f}" y="{y:.1f}">{name}</text>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{" ".join(f"{v:.1f}" for v in box)}" '
        f'fill-rule="evenodd">{"".join(drawn)}'
        f'<g font-family="sans-serif" font-size="{font:.2f}" text-anchor="middle" fill="#222" stroke="#fff" '
        f'stroke-width="{font / 4:.2f}" paint-order="stroke">{"".join(labels)}</g></svg>'
    )


def centred_view(shapes: pd.DataFrame, countries: Sequence[str]) -> pdk.ViewState:
    """Centred on the label points of `countries` (South Africa stays in view), zoomed out enough
    to show them all; the world view when none is known."""
    points = shapes[shapes["country"].isin(list(countries))]
    if points.empty:
        return VIEW
    spread = max(points["lon"].max() - points["lon"].min(), (points["lat"].max() - points["lat"].min()) * 2)
    zoom = 1.6 if spread < 20 else 1.0 if spread < 90 else 0.5
    return pdk.ViewState(
        latitude=float(points["lat"].mean()), longitude=float(points["lon"].mean()), zoom=zoom, max_zoom=4
    )
