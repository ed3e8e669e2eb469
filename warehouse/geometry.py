"""Country outlines as the dashboard's world maps draw them (app/maps.py): `outline_rows`, drawn once per set of
outlines by the reference step into core.country_outlines (pipeline/reference/geo.py, cached), which
marts.map_outlines publishes (warehouse/marts/map_outlines.py).

Countries are drawn as flat polygons, each shrunk by GAP degrees (mitred corners), so the white page
shows between neighbours as their border (~1/3 px at the world view; the maps stop at zoom 4, where it
is ~3 px). Islands smaller than MIN_AREA square degrees (~2 pixels at the world view) are left
out, unless they are a country's largest polygon: they cannot be seen or clicked, and there are
thousands. Coordinates are rounded to 2 decimals (the outlines' own grid, pipeline/reference/geo.py PRECISION).

Before that, all countries are simplified together (`simplified`: GEOS coverage simplification, which
keeps neighbours' shared borders identical) by DETAIL (about half a pixel at the world view): with
the small islands left out, the 44,000 points of Natural Earth's outlines become ~17,000 (32,000
before). The browser parses and triangulates every point before a map's first frame (bench/pages.py:
the Map page's cold draw, ~0.4 s less).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

MIN_AREA = 0.3
GAP = 0.06
DETAIL = 0.2


def outline_rows(shapes: Iterable[tuple[str, str | None]]) -> list[tuple[str, str]]:
    """(country, its drawn polygons as JSON) for each (country, GeoJSON geometry) of core.country_shapes that is a
    non-empty (Multi)Polygon, by country."""
    from shapely.geometry import shape

    countries, geometries = [], []
    for country, geojson in sorted(shapes):
        if not geojson:
            continue
        geometry = shape(json.loads(geojson))
        if geometry.geom_type not in ("Polygon", "MultiPolygon") or geometry.is_empty:
            continue
        countries.append(country)
        geometries.append(geometry)
    return [
        (country, json.dumps(drawn_polygons(geometry), separators=(",", ":")))
        for country, geometry in zip(countries, simplified(geometries), strict=True)
    ]


def simplified(geometries: Sequence) -> list:
    """The countries' shapely (Multi)Polygons simplified together by DETAIL, shared borders kept shared."""
    import shapely

    return list(shapely.coverage_simplify(list(geometries), DETAIL))


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
