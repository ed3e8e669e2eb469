"""marts.map_outlines: each country's outline as the dashboard's world maps draw it (app/maps.py),
computed once at publish instead of on every server's first map.

Why here: parsing the 238 outlines of marts.country_shapes and shrinking each polygon took 1–2 s of
the first Map or Dish page a fresh server draws (bench/pages.py, cold), on every start; the app
now reads these rows and only parses JSON.

How a country is drawn: warehouse/geometry.py `simplified` (all countries together, borders kept
shared) and `drawn_polygons` (shrunk by a hair, so neighbours show a white border; islands too small to
see left out).
"""

from __future__ import annotations

import json

import duckdb
import polars as pl


def build(con: duckdb.DuckDBPyConnection) -> None:
    from shapely.geometry import shape

    from warehouse.geometry import drawn_polygons, simplified

    countries, geometries = [], []
    shapes = con.execute("SELECT country, geojson FROM marts.country_shapes ORDER BY country").fetchall()
    for country, geojson in shapes:
        if not geojson:
            continue
        geometry = shape(json.loads(geojson))
        if geometry.geom_type not in ("Polygon", "MultiPolygon") or geometry.is_empty:
            continue
        countries.append(country)
        geometries.append(geometry)
    rows = [
        {"country": country, "polygons": json.dumps(drawn_polygons(geometry), separators=(",", ":"))}
        for country, geometry in zip(countries, simplified(geometries), strict=True)
    ]
    frame = pl.DataFrame(rows, schema={"country": pl.String, "polygons": pl.String})
    con.register("_outlines", frame)
    con.execute("CREATE OR REPLACE TABLE marts.map_outlines AS SELECT * FROM _outlines ORDER BY country")
    con.unregister("_outlines")
