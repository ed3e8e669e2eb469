-- BORSch Fig. 8 (§5): the imagined-vs-real cosine (a generated image against its own dish's real photos, the
-- intra cosine of marts.imagined) averaged per prompt language and origin region of the dish (issue 35).
-- The regions: the figure's caption does not list them, so the Post-Soviet states are grouped as the paper groups
-- them elsewhere (Fig. 3's caption names the Caucasus and Central Asia; Table 2 lists the states Baltic first, then
-- Russia, Ukraine, Belarus and Moldova, then the Caucasus, then Central Asia); an origin outside the Post-Soviet
-- states falls in its continent (core.country_continents, Natural Earth). A dish of several origins counts in each
-- of their regions, as Fig. 11 counts origins (Appendix D).
CREATE OR REPLACE TABLE marts.imagined_region_dishes AS
WITH post_soviet_regions(country, region, region_order) AS (
    VALUES ('EE', 'Baltic states', 1), ('LV', 'Baltic states', 1), ('LT', 'Baltic states', 1),
           ('RU', 'Eastern Europe (Russia, Ukraine, Belarus, Moldova)', 2),
           ('UA', 'Eastern Europe (Russia, Ukraine, Belarus, Moldova)', 2),
           ('BY', 'Eastern Europe (Russia, Ukraine, Belarus, Moldova)', 2),
           ('MD', 'Eastern Europe (Russia, Ukraine, Belarus, Moldova)', 2),
           ('AM', 'Caucasus', 3), ('AZ', 'Caucasus', 3), ('GE', 'Caucasus', 3),
           ('KZ', 'Central Asia', 4), ('KG', 'Central Asia', 4), ('TJ', 'Central Asia', 4), ('TM', 'Central Asia', 4),
           ('UZ', 'Central Asia', 4)
), dish_regions AS (
    SELECT o.dish_key,
           coalesce(r.region, 'Outside the Post-Soviet states: ' || coalesce(cc.continent, 'continent unknown'))
               AS region,
           coalesce(r.region_order, 5) AS region_order, string_agg(DISTINCT o.country, ',' ORDER BY o.country)
               AS countries
    FROM core.dish_origins o
    LEFT JOIN post_soviet_regions r USING (country)
    LEFT JOIN core.country_continents cc USING (country)
    GROUP BY ALL
)
SELECT i.model, i.dataset, i.lang, i.encoder, r.region, i.dish_key, i.dish_id, i.display_name, r.countries,
       avg(i.intra_cosine) AS intra_mean, avg(i.inter_cosine) AS inter_mean, count(*)::BIGINT AS n_images,
       r.region_order
FROM marts.imagined i
JOIN dish_regions r USING (dish_key)
WHERE i.intra_cosine IS NOT NULL
GROUP BY ALL
ORDER BY i.model, i.dataset, i.lang, i.encoder, r.region_order, r.region, intra_mean DESC, i.dish_key;

-- The figure's cells: per describer model, prompt language, encoder and region, the mean intra cosine over the
-- region's generated images (and the inter cosine beside it), with the dish and image counts behind it.
CREATE OR REPLACE TABLE marts.imagined_regions AS
SELECT model, dataset, lang, encoder, region, count(*)::BIGINT AS n_dishes, sum(n_images)::BIGINT AS n_images,
       sum(intra_mean * n_images) / sum(n_images) AS intra_mean,
       sum(inter_mean * n_images) / sum(n_images) FILTER (inter_mean IS NOT NULL)
           AS inter_mean, any_value(region_order) AS region_order
FROM marts.imagined_region_dishes
GROUP BY model, dataset, lang, encoder, region
ORDER BY model, dataset, lang, encoder, region_order, region;
