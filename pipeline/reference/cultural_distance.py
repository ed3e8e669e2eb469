"""Cultural distance between two countries: the same country, the same continent, or another
continent, plus the great-circle distance between their label points.

Continents come from Natural Earth's `CONTINENT` field (the admin-0 frame of pipeline/reference/geo.py, read
with geopandas); so Russia is in Europe and Turkey in Asia, as Natural
Earth draws them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

DISTANCES = ("same_country", "same_continent", "other_continent")
EARTH_RADIUS_KM = 6371.0088


@dataclass(frozen=True)
class Place:
    continent: str
    lon: float
    lat: float


@functools.cache
def country_places() -> dict[str, Place]:
    """Alpha-2 code -> continent and label point, from the shipped Natural Earth countries."""
    from pipeline.reference.geo import country_continents

    return {code: Place(continent, lon, lat) for code, continent, lon, lat in country_continents()}


def continent_of(country: str | None) -> str | None:
    """Natural Earth's continent of an alpha-2 country, None when unknown."""
    place = country_places().get(country or "")
    return place.continent if place else None


def cultural_distance(a: str | None, b: str | None) -> str | None:
    """same_country / same_continent / other_continent; None when either country is unknown."""
    if not a or not b:
        return None
    if a == b:
        return "same_country"
    continent_a, continent_b = continent_of(a), continent_of(b)
    if continent_a is None or continent_b is None:
        return None
    return "same_continent" if continent_a == continent_b else "other_continent"


def great_circle_km(a: str | None, b: str | None) -> float | None:
    """Haversine distance between the two countries' label points (0 for one country)."""
    places = country_places()
    if not a or not b or a not in places or b not in places:
        return None
    p, q = places[a], places[b]
    phi1, phi2 = math.radians(p.lat), math.radians(q.lat)
    dphi, dlambda = phi2 - phi1, math.radians(q.lon - p.lon)
    h = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def nearest(*distances: str | None) -> str | None:
    """The closest of several distances (same_country < same_continent < other_continent)."""
    known = [d for d in distances if d]
    return min(known, key=DISTANCES.index) if known else None


def continent_rows() -> list[dict]:
    """Rows of core.country_continents."""
    return [
        {"country": code, "continent": place.continent, "lon": place.lon, "lat": place.lat}
        for code, place in sorted(country_places().items())
    ]
