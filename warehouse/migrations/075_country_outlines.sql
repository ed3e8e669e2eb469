-- Each country's outline as the dashboard's world maps draw it (warehouse/geometry.py `outline_rows`): drawn by the
-- reference step from core.country_shapes (cached, pipeline/reference/geo.py) instead of at every new warehouse's
-- first publish; marts.map_outlines publishes it.
CREATE TABLE core.country_outlines (
    country      TEXT PRIMARY KEY,
    polygons     TEXT NOT NULL           -- JSON: the country's polygons, each a list of rings of [lon, lat]
);
