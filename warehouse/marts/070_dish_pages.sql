-- What the per-dish page shows: names, images, every answer with its matched spans.
CREATE OR REPLACE TABLE marts.dish_names AS
SELECT dish_key, lang, name, display_name, is_primary FROM core.dish_names
ORDER BY dish_key, is_primary DESC, lang;

CREATE OR REPLACE TABLE marts.dish_images AS
SELECT dish_key, position, url, license FROM core.images
WHERE kind = 'real' AND dish_key IS NOT NULL ORDER BY dish_key, position;

CREATE OR REPLACE TABLE marts.answer_spans AS
SELECT sp.generation_id, sp.span_start, sp.span_end, sp.text, sp.country, sp.region, sp.negated
FROM core.extraction_spans sp ORDER BY sp.generation_id, sp.span_start;

-- The scored answers again, sorted by dish: the Dish and Live probe pages read one dish's answers
-- from a pruned range instead of scanning every answer.
CREATE OR REPLACE TABLE marts.dish_answers AS
SELECT * FROM marts.origin_scores ORDER BY dataset, dish_key, model, lang, variant;
