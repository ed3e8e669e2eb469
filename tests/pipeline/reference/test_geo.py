"""Country outlines and continents, read with geopandas from the Natural Earth file a package ships."""

from __future__ import annotations

import json

import pytest
from shapely.geometry import Point, shape

from pipeline.reference.cultural_distance import continent_of
from pipeline.reference.geo import country_shapes


def test_one_outline_per_country_with_crimea_in_ukraine_and_mainland_label_points() -> None:
    shapes = {row["country"]: row for row in country_shapes()}
    assert len(shapes) == len(country_shapes()) > 230
    ukraine, russia = (shape(json.loads(shapes[code]["geojson"])) for code in ("UA", "RU"))
    simferopol = Point(34.10, 44.95)
    assert ukraine.contains(simferopol) and not russia.contains(simferopol)
    france = shapes["FR"]  # ISO_A2 is -99 in Natural Earth: filled from ISO_A2_EH
    assert france["name_en"] == "France" and -5 < france["lon"] < 9 and 42 < france["lat"] < 51  # not Guiana
    assert shapes["BR"]["name_en"] == "Brazil"  # the first record names a dissolved country, not an island


def test_continents_follow_natural_earth() -> None:
    assert (continent_of("RU"), continent_of("TR"), continent_of("UA"), continent_of("MX")) == (
        "Europe",
        "Asia",
        "Europe",
        "North America",
    )
    assert continent_of("XX") is None


def test_outlines_are_kept_in_the_cache_and_a_damaged_file_is_rebuilt(tmp_path, monkeypatch) -> None:
    """A new warehouse reads the outlines a first one built (seconds of geopandas work) instead of rebuilding them."""
    from pipeline.core import derived
    from pipeline.reference import geo

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = derived.cache_path("reference", "country_shapes", geo._digest())
    assert path is not None and path.is_relative_to(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a pickle")
    built = country_shapes()  # the damaged file is ignored, the rows are built and stored in its place
    assert derived.load(path) == built
    assert country_shapes() == built
    monkeypatch.setenv(derived.CACHE_ENV, "off")
    assert derived.cache_path("reference", "country_shapes", geo._digest()) is None


def test_drawn_outlines_are_kept_in_the_cache_for_the_same_shapes_and_redrawn_for_others(tmp_path, monkeypatch) -> None:
    """The reference step draws the maps' outlines once per set of shapes: a new warehouse with the same shapes reads
    them from the cache; other shapes (one country changed) are drawn anew."""
    from pipeline.reference import geo

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    shapes = [(row["country"], row["geojson"]) for row in country_shapes()][:40]
    drawn = geo.country_outlines(shapes)
    assert [country for country, _ in drawn] == sorted(country for country, _ in shapes)

    def never(_shapes):
        raise AssertionError("drawn again")

    monkeypatch.setattr(geo, "outline_rows", never)
    assert geo.country_outlines(list(reversed(shapes))) == drawn  # the same shapes, in any order
    moved = [(shapes[0][0], json.dumps({"type": "Polygon", "coordinates": [[[0, 0], [0, 1], [1, 1], [0, 0]]]}))]
    with pytest.raises(AssertionError, match="drawn again"):
        geo.country_outlines(moved + shapes[1:])


def test_the_drawn_outlines_are_simplified_together_so_neighbours_still_share_their_border() -> None:
    """warehouse/geometry.py: fewer points for the browser, and no overlaps or slivers between countries."""
    import shapely

    from warehouse.geometry import GAP, simplified

    shapes = [row for row in country_shapes() if row["geojson"]]
    original = [shape(json.loads(row["geojson"])) for row in shapes]
    drawn = dict(zip((row["country"] for row in shapes), simplified(original), strict=True))
    points = sum(shapely.get_num_coordinates(geometry) for geometry in drawn.values())
    assert points < 0.7 * sum(shapely.get_num_coordinates(geometry) for geometry in original)
    assert all(geometry.is_valid and not geometry.is_empty for geometry in drawn.values())
    for a, b in (("UA", "PL"), ("UA", "RU"), ("UA", "BY"), ("FR", "ES"), ("US", "CA")):
        shared = drawn[a].intersection(drawn[b])
        assert shared.length > 1  # still a common border
        # Natural Earth's outlines (2 decimals) overlap by slivers; so do the simplified ones, far thinner than
        # the gap each drawn country is shrunk by, so the white border between neighbours still shows
        assert shared.area / shared.length < GAP / 4
    assert drawn["UA"].contains(Point(34.10, 44.95))  # Simferopol: Crimea still in Ukraine


def test_a_warehouse_loaded_before_the_outlines_table_draws_them_at_publish_until_its_next_reference_step(
    sample_warehouse,
) -> None:
    """Migration 075 adds core.country_outlines empty to a warehouse whose reference data is already loaded: its
    publish draws the outlines from the stored shapes, the same rows the reference step stores at the next `ingest`."""
    import duckdb

    from pipeline.reference.load import load_reference
    from warehouse.db import Warehouse

    published = "SELECT country, polygons FROM marts.map_outlines ORDER BY country"
    warehouse = Warehouse(sample_warehouse)
    with duckdb.connect(str(warehouse.path), read_only=True) as con:
        drawn = con.execute(published).fetchall()
    assert len(drawn) > 230
    with duckdb.connect(str(warehouse.working_path)) as con:
        con.execute("DELETE FROM core.country_outlines")
    assert warehouse.publish(force=True)
    with duckdb.connect(str(warehouse.path), read_only=True) as con:
        assert con.execute(published).fetchall() == drawn
    with warehouse.writer() as con:
        assert load_reference(con)  # only the empty table is filled
        assert con.execute("SELECT country, polygons FROM core.country_outlines ORDER BY country").fetchall() == drawn
