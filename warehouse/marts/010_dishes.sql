-- marts.dishes: one row per dish. Its first six columns are the `export dishes` contract:
-- dataset, lang, dish_id, name, origins (sorted alpha-2 joined by ','), source.
CREATE OR REPLACE TABLE marts.dishes AS
WITH origins AS (
    SELECT dish_key, string_agg(country, ',' ORDER BY country) AS origins, count(*) AS n_origins
    FROM core.dish_origins GROUP BY dish_key
), names AS (
    SELECT dish_key,
           string_agg(display_name, ' / ' ORDER BY is_primary DESC, display_name) FILTER (lang = 'ru') AS names_ru,
           string_agg(display_name, ' / ' ORDER BY is_primary DESC, display_name) FILTER (lang = 'uk') AS names_uk,
           string_agg(display_name, ' / ' ORDER BY is_primary DESC, display_name) FILTER (lang = 'en') AS names_en
    FROM core.dish_names GROUP BY dish_key
), images AS (
    SELECT dish_key, count(*) AS n_images, min_by(url, position) AS first_image_url
    FROM core.images WHERE kind = 'real' AND dish_key IS NOT NULL GROUP BY dish_key
)
SELECT d.dataset, d.lang, d.dish_id, d.name, coalesce(o.origins, '') AS origins, d.source,
       d.display_name, d.dish_key, coalesce(o.n_origins, 0) AS n_origins,
       n.names_ru, n.names_uk, n.names_en, d.description, d.category,
       coalesce(i.n_images, 0) AS n_images, i.first_image_url, ds.is_sample
FROM core.dishes d
JOIN core.datasets ds USING (dataset)
LEFT JOIN origins o USING (dish_key)
LEFT JOIN names n USING (dish_key)
LEFT JOIN images i USING (dish_key)
ORDER BY d.dataset, d.lang, try_cast(d.dish_id AS BIGINT) NULLS LAST, d.dish_id;
