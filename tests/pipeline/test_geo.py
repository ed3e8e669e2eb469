"""Country outlines and continents, read with geopandas from the Natural Earth file a package ships."""

from __future__ import annotations

import json

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
