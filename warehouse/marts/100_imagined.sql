-- marts.imagined: one row per (generated image, encoder) of the imagine steps. Its first twelve
-- columns are the `export imagined` contract: model (the describer), dataset, dish_id,
-- description, translation, image (PNG path), generator, seed, encoder, intra_cosine,
-- inter_cosine, qa_jaccard. qa_jaccard is the describer's mean origin-QA Jaccard on the same dish
-- in the same language, NULL when that model has no scored QA answer for it (never invented).
CREATE OR REPLACE TABLE marts.imagined AS
WITH qa AS (
    SELECT model, dish_key, lang, avg(coalesce(jaccard, 0)) AS qa_jaccard, count(*) AS qa_answers
    FROM marts.origin_scores WHERE task = 'origin_qa' GROUP BY ALL
)
SELECT describer.model_id AS model, d.dataset, d.dish_id, describer.response AS description,
       coalesce(translation.response, describer.response) AS translation, img.local_path AS image,
       gi.generator, gi.seed, s.encoder, s.intra_cosine, s.inter_cosine, qa.qa_jaccard,
       d.lang, gi.dish_key, d.display_name, gi.image_id, gi.render_id, gi.steps, gi.guidance, gi.width, gi.height,
       gi.pipeline_class, translation.model_id AS translator, s.n_intra, s.n_inter, coalesce(qa.qa_answers, 0) AS qa_answers,
       gi.description_generation_id, gi.translation_generation_id, describer.variant AS description_variant,
       s.encoder_hash, gi.generator_hash
FROM core.generated_images gi
JOIN core.generations describer ON describer.generation_id = gi.description_generation_id
LEFT JOIN core.generations translation ON translation.generation_id = gi.translation_generation_id
JOIN core.dishes d ON d.dish_key = gi.dish_key
JOIN core.images img ON img.image_id = gi.image_id
JOIN core.image_similarities s ON s.image_id = gi.image_id AND s.dish_key = gi.dish_key
LEFT JOIN qa ON qa.model = describer.model_id AND qa.dish_key = gi.dish_key AND qa.lang = describer.lang
ORDER BY model, d.dataset, d.lang, try_cast(d.dish_id AS BIGINT) NULLS LAST, d.dish_id, gi.generator, gi.seed, s.encoder;

-- The real photos of the dishes the imagine steps drew, for the gallery.
CREATE OR REPLACE TABLE marts.imagined_real_images AS
SELECT i.dish_key, i.image_id, i.local_path AS image, i.position
FROM core.images i
WHERE i.kind = 'real' AND i.local_path IS NOT NULL AND i.dish_key IN (SELECT dish_key FROM core.generated_images)
ORDER BY i.dish_key, i.position NULLS LAST, i.image_id;

-- Which model played which part, and whether it is a tiny random test model.
CREATE OR REPLACE TABLE marts.imagined_models AS
SELECT model_id AS model, role, tiny_random FROM core.model_provenance ORDER BY role, model_id;
