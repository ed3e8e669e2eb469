"""marts.map_outlines: each country's outline as the dashboard's world maps draw them (app/maps.py), so the app
only parses JSON (parsing and shrinking the 238 outlines took 1–2 s of the first Map or Dish page of every server).

The reference step draws them (warehouse/geometry.py `outline_rows`) into core.country_outlines, from a cache
(pipeline/reference/geo.py): drawing them here took a third of a CPU-second of every new warehouse's first publish,
for the same rows. A warehouse whose reference data was loaded before that table existed (migration 075) has none
until its next `ingest`: its outlines are drawn here from marts.country_shapes, as before.
"""

from __future__ import annotations

import duckdb
import polars as pl

from warehouse.geometry import outline_rows
from warehouse.io import scalar

PUBLISHED = "CREATE OR REPLACE TABLE marts.map_outlines AS SELECT country, polygons FROM {} ORDER BY country"


def build(con: duckdb.DuckDBPyConnection) -> None:
    drawn = scalar(con, "SELECT count(*) FROM core.country_outlines")
    shapes = scalar(con, "SELECT count(*) FROM marts.country_shapes")
    if drawn or not shapes:
        con.execute(PUBLISHED.format("core.country_outlines"))
        return
    rows = outline_rows(con.execute("SELECT country, geojson FROM marts.country_shapes").fetchall())
    frame = pl.DataFrame(rows, schema={"country": pl.String, "polygons": pl.String}, orient="row")
    con.register("_outlines", frame)
    con.execute(PUBLISHED.format("_outlines"))
    con.unregister("_outlines")
