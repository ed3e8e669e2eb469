"""Reference data, loaded by one explicit step (`reference` in pipeline/flow/steps.py) before any
dataset: every ISO 3166-1 country with its names, their outlines, and where languages are
spoken. Datasets read these tables; none of them writes them."""

from __future__ import annotations

import duckdb

from pipeline.reference.countries import country_table, language_countries
from pipeline.reference.cultural_distance import continent_rows
from pipeline.reference.geo import country_outlines, country_shapes
from warehouse.io import insert, scalar, transaction

# in load order: the outlines are drawn from the shapes stored before them
TABLES = (
    "core.countries",
    "core.country_shapes",
    "core.language_countries",
    "core.country_continents",
    "core.country_outlines",
)


def load_reference(con: duckdb.DuckDBPyConnection) -> bool:
    """Fill the reference tables that are empty (one transaction); True when something was loaded."""
    loaders = {
        "core.countries": country_table,
        "core.country_shapes": country_shapes,
        "core.language_countries": language_countries,
        "core.country_continents": continent_rows,
        "core.country_outlines": lambda: _outline_rows(con),
    }
    missing = [table for table in TABLES if not scalar(con, f"SELECT count(*) FROM {table}")]
    if not missing:
        return False
    with transaction(con):
        for table in missing:
            insert(con, table, loaders[table]())
    return True


def _outline_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """The outlines of the shapes this warehouse holds (stored in this transaction, or by an earlier version)."""
    shapes = con.execute("SELECT country, geojson FROM core.country_shapes").fetchall()
    return [{"country": country, "polygons": polygons} for country, polygons in country_outlines(shapes)]
