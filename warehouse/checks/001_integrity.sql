-- Each query returns offending rows; publishing refuses a warehouse where any returns rows.

-- dish origins, names and regions point at existing dishes
SELECT o.dish_key FROM core.dish_origins o ANTI JOIN core.dishes d USING (dish_key);
SELECT n.dish_key FROM core.dish_names n ANTI JOIN core.dishes d USING (dish_key);
-- every origin is a known ISO 3166-1 country
SELECT o.country FROM core.dish_origins o ANTI JOIN core.countries c USING (country);
SELECT g.country FROM core.item_gold_countries g ANTI JOIN core.countries c USING (country);
-- a UK nation is gold only beside GB, its country (the country-level gold stays whole)
SELECT n.dish_key FROM core.dish_origin_nations n
WHERE NOT EXISTS (SELECT 1 FROM core.dish_origins o WHERE o.dish_key = n.dish_key AND o.country = 'GB');
SELECT n.item_id FROM core.item_gold_nations n
WHERE NOT EXISTS (SELECT 1 FROM core.item_gold_countries g WHERE g.item_id = n.item_id AND g.country = 'GB');
SELECT image, target_nation, distractor_nation FROM core.culturemix_images
WHERE (target_nation IS NOT NULL AND (target_country IS DISTINCT FROM 'GB'
                                      OR target_nation NOT IN ('GB-ENG', 'GB-SCT', 'GB-WLS', 'GB-NIR')))
   OR (distractor_nation IS NOT NULL AND (distractor_country IS DISTINCT FROM 'GB'
                                          OR distractor_nation NOT IN ('GB-ENG', 'GB-SCT', 'GB-WLS', 'GB-NIR')));
-- every dish has at least one origin (BORSch and the sample always give one)
SELECT d.dish_key FROM core.dishes d ANTI JOIN core.dish_origins o USING (dish_key) WHERE d.dataset IN ('borsch', 'sample');
-- parallel pairs point at existing dishes of the right language
SELECT p.pair_id FROM core.parallel_dishes p LEFT JOIN core.dishes d ON d.dish_key = p.ru_dish_key
WHERE p.ru_dish_key IS NOT NULL AND (d.dish_key IS NULL OR d.lang <> 'ru');
SELECT p.pair_id FROM core.parallel_dishes p LEFT JOIN core.dishes d ON d.dish_key = p.uk_dish_key
WHERE p.uk_dish_key IS NOT NULL AND (d.dish_key IS NULL OR d.lang <> 'uk');
-- an item and an image are one row across the steps' tables the views core.items and core.images unite (migration 090)
SELECT item_id, count(*) FROM core.items GROUP BY ALL HAVING count(*) > 1;
SELECT task_id, source_ref, count(*) FROM core.items GROUP BY ALL HAVING count(*) > 1;
SELECT image_id, count(*) FROM core.images GROUP BY ALL HAVING count(*) > 1;
-- items and generations are linked
SELECT i.item_id FROM core.items i ANTI JOIN core.tasks t USING (task_id);
SELECT i.item_id FROM core.items i WHERE i.dish_key IS NOT NULL AND i.dish_key NOT IN (SELECT dish_key FROM core.dishes);
SELECT g.generation_id FROM core.generations g ANTI JOIN core.items i USING (item_id);
SELECT g.generation_id FROM core.generations g ANTI JOIN core.models m USING (model_id);
SELECT ii.item_id FROM core.item_images ii ANTI JOIN core.images i USING (image_id);
-- at most one answer per model, item, prompt language, variant and repeated sample
SELECT model_id, item_id, lang, variant, sample, count(*) FROM core.generations GROUP BY ALL HAVING count(*) > 1;
