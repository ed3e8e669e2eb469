-- Reference data for maps and the language-pull analysis, loaded once with core.countries.

-- Country outlines (Natural Earth 1:10m, German point of view, which draws Crimea as part of
-- Ukraine as ISO 3166 and the UN do), simplified for the browser, with a label point.
CREATE TABLE core.country_shapes (
    country      TEXT PRIMARY KEY,
    name_en      TEXT NOT NULL,
    geojson      TEXT NOT NULL,          -- a GeoJSON geometry (Polygon or MultiPolygon), lon/lat
    lon          DOUBLE NOT NULL,
    lat          DOUBLE NOT NULL
);

-- Countries where a prompt language is spoken (CLDR territory data): official or de facto
-- official, else the territory where the language is most widespread.
CREATE TABLE core.language_countries (
    lang         TEXT NOT NULL,          -- CLDR language code (ru, es, zh, yue, ...)
    country      TEXT NOT NULL,
    PRIMARY KEY (lang, country)
);
