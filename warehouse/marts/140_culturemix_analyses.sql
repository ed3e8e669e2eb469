-- CultureMix's analyses as published (issue 37), aggregated from marts.culturemix_answers, which
-- joins what the score stage wrote (core.culturemix_scores). Accuracy is the share of answers right.
-- Entropy (bits, a missing label a label of its own), as published (§4: "prediction confidence and
-- consistency"; Fig. 7's SF entropy per food; Table 8 reports it high in SF, one image per food): per
-- image, the entropy of the labels over the model's repeated samples of it, averaged over the food's
-- images in the cell, then over the cell's foods; 0 where each image was answered once (see
-- marts/culturemix.py for why). Ours beside it (`*_entropy_across_images`): per target food, the
-- entropy of every label it got within the cell, images and samples pooled, averaged over the foods.
--
-- marts.culturemix_cells: one row per analysis, model, prompt, subtask and cell:
--   subtask    (Fig. 3a, Tables 6 and 8): cell = the subtask;
--   distance   (Fig. 5 and 19, per subtask): cell = same_country | same_continent | other_continent;
--   background (Table 7, SFB and MFB): cell = street | landmark;
--   real       (Fig. 8, Table 9, §5): cell = same_culture | cross_culture for the CultureMix-Real photos
--              (the target in a red box; the photo's own same/cross label), and SF for the same model's
--              answers on the foods cropped out of those photos. The composed red-box variants
--              (compose's REAL) are not real photos and are left out (they stay in the `subtask` cells);
--   position   (Table 10): cell = left | right, where the target stands in MF/MFB;
--   size       (Table 11): cell = original | smaller | larger, the target's scale.
-- marts.culturemix_cell_answers: which answers make up each cell (the page's click-through lists
-- them), including the SF → mixed transitions of Fig. 17 (analysis `transition`).
CREATE OR REPLACE TABLE marts.culturemix_cell_answers AS
WITH labelled AS (
    SELECT 'subtask' AS analysis, subtask AS cell, * FROM marts.culturemix_answers
    UNION ALL BY NAME
    SELECT 'distance' AS analysis, distance AS cell, * FROM marts.culturemix_answers
    WHERE distance IS NOT NULL AND distractor_kind = 'cultural'
    UNION ALL BY NAME
    SELECT 'background' AS analysis, scene AS cell, * FROM marts.culturemix_answers
    WHERE subtask IN ('SFB', 'MFB') AND scene IN ('street', 'landmark')
    UNION ALL BY NAME
    SELECT 'real' AS analysis, real_relation AS cell, * FROM marts.culturemix_answers WHERE real_relation IS NOT NULL
    UNION ALL BY NAME
    SELECT 'real' AS analysis, 'SF' AS cell, a.* FROM marts.culturemix_answers a
    WHERE a.subtask = 'SF' AND a.real_photo IS NOT NULL
    UNION ALL BY NAME
    SELECT 'position' AS analysis, target_position AS cell, * FROM marts.culturemix_answers
    WHERE target_position IS NOT NULL
    UNION ALL BY NAME
    SELECT 'size' AS analysis,
           CASE WHEN target_scale = 1 THEN 'original' WHEN target_scale < 1 THEN 'smaller' ELSE 'larger' END AS cell,
           * FROM marts.culturemix_answers
    WHERE target_food_id IN (SELECT target_food_id FROM marts.culturemix_answers WHERE target_scale <> 1)
)
SELECT analysis, model, prompt, CASE WHEN analysis = 'real' THEN 'REAL' ELSE subtask END AS subtask, cell,
       generation_id, image
FROM labelled
UNION ALL
SELECT 'transition', model, prompt, subtask,
       measure || ': ' || CASE WHEN sf_correct THEN 'right' ELSE 'wrong' END || ' in SF → '
       || CASE WHEN mixed_correct THEN 'right' ELSE 'wrong' END,
       generation_id, image
FROM (
    SELECT *, 'country' AS measure, sf_country_correct AS sf_correct, country_correct AS mixed_correct
    FROM marts.culturemix_answers WHERE sf_generation_id IS NOT NULL
    UNION ALL BY NAME
    SELECT *, 'food' AS measure, sf_food_correct AS sf_correct, food_correct AS mixed_correct
    FROM marts.culturemix_answers WHERE sf_generation_id IS NOT NULL
)
ORDER BY ALL;

CREATE OR REPLACE TABLE marts.culturemix_cells AS
WITH keyed AS (
    SELECT c.analysis, c.subtask AS cell_subtask, c.cell, a.model, a.prompt, a.target_food_id, a.image,
           a.predicted_country, a.predicted_food, a.country_correct, a.food_correct
    FROM marts.culturemix_cell_answers c JOIN marts.culturemix_answers a USING (generation_id)
    WHERE c.analysis <> 'transition'
), per_image AS (  -- as published: over the repeated samples of one image
    SELECT analysis, model, prompt, cell_subtask, cell, target_food_id, image,
           entropy(coalesce(predicted_country, chr(0))) AS country_entropy,
           entropy(coalesce(predicted_food, chr(0))) AS food_entropy
    FROM keyed GROUP BY ALL
), per_food AS (
    SELECT p.analysis, p.model, p.prompt, p.cell_subtask, p.cell, p.target_food_id,
           avg(p.country_entropy) AS country_entropy, avg(p.food_entropy) AS food_entropy
    FROM per_image p GROUP BY ALL
), across_images AS (  -- ours: every label of the food in the cell, images and samples pooled
    SELECT analysis, model, prompt, cell_subtask, cell, target_food_id,
           entropy(coalesce(predicted_country, chr(0))) AS country_entropy,
           entropy(coalesce(predicted_food, chr(0))) AS food_entropy
    FROM keyed GROUP BY ALL
), entropy AS (
    SELECT p.analysis, p.model, p.prompt, p.cell_subtask, p.cell, count(*) AS n_foods,
           greatest(avg(p.country_entropy), 0.0) AS country_entropy, greatest(avg(p.food_entropy), 0.0) AS food_entropy,
           greatest(avg(x.country_entropy), 0.0) AS country_entropy_across_images,
           greatest(avg(x.food_entropy), 0.0) AS food_entropy_across_images
    FROM per_food p JOIN across_images x USING (analysis, model, prompt, cell_subtask, cell, target_food_id)
    GROUP BY ALL
)
SELECT k.analysis, k.model, k.prompt, k.cell_subtask AS subtask, k.cell, count(*) AS n_answers, e.n_foods,
       avg(k.country_correct::INT)::DOUBLE AS country_accuracy, avg(k.food_correct::INT)::DOUBLE AS food_accuracy,
       any_value(e.country_entropy)::DOUBLE AS country_entropy, any_value(e.food_entropy)::DOUBLE AS food_entropy,
       any_value(e.country_entropy_across_images)::DOUBLE AS country_entropy_across_images,
       any_value(e.food_entropy_across_images)::DOUBLE AS food_entropy_across_images,
       (count(*) / count(DISTINCT k.image))::DOUBLE AS samples_per_image
FROM keyed k
JOIN entropy e ON e.analysis = k.analysis AND e.model = k.model AND e.prompt = k.prompt
     AND e.cell_subtask = k.cell_subtask AND e.cell = k.cell
GROUP BY k.analysis, k.model, k.prompt, k.cell_subtask, k.cell, e.n_foods
ORDER BY k.analysis, k.model, k.prompt,
         list_position(['SF', 'MF', 'SFB', 'MFB', 'REAL'], k.cell_subtask),
         list_position(['SF', 'MF', 'SFB', 'MFB', 'REAL', 'same_country', 'same_continent', 'other_continent',
                        'street', 'landmark', 'same_culture', 'cross_culture', 'left', 'right',
                        'original', 'smaller', 'larger'], k.cell);

-- Correctness from SF to each mixed subtask (Fig. 17): per model, prompt and subtask, how many
-- answers were right/wrong in SF and right/wrong with the distractor, for the country and the food.
CREATE OR REPLACE TABLE marts.culturemix_transitions AS
SELECT model, prompt, subtask, measure, sf_correct, mixed_correct, count(*) AS n_answers,
       count(*) / sum(count(*)) OVER (PARTITION BY model, prompt, subtask, measure) AS share,
       -- the cell's name in marts.culturemix_cell_answers
       measure || ': ' || CASE WHEN sf_correct THEN 'right' ELSE 'wrong' END || ' in SF → '
       || CASE WHEN mixed_correct THEN 'right' ELSE 'wrong' END AS cell
FROM (
    SELECT model, prompt, subtask, 'country' AS measure, sf_country_correct AS sf_correct,
           country_correct AS mixed_correct
    FROM marts.culturemix_answers WHERE sf_generation_id IS NOT NULL
    UNION ALL
    SELECT model, prompt, subtask, 'food', sf_food_correct, food_correct
    FROM marts.culturemix_answers WHERE sf_generation_id IS NOT NULL
)
GROUP BY model, prompt, subtask, measure, sf_correct, mixed_correct
ORDER BY model, prompt, list_position(['MF', 'SFB', 'MFB', 'REAL'], subtask), measure, sf_correct DESC,
         mixed_correct DESC;

-- Position and size ablations (Tables 10 and 11): each flipped (target on the right) or resized
-- image paired with the image of the same composition as published (target on the left, scale 1:
-- the same target food, other food and background), both answered by the same model with the same
-- prompt. Consistency = the share of pairs whose two answers name the same label.
CREATE OR REPLACE TABLE marts.culturemix_pairs AS
WITH answers AS (
    SELECT *, coalesce(distractor_food_name, '') AS other_food, coalesce(background_label, '') AS background,
           coalesce(target_position, 'left') AS position
    FROM marts.culturemix_answers
), variants AS (
    SELECT 'position' AS analysis, 'right' AS variant, * FROM answers WHERE position = 'right' AND target_scale = 1
    UNION ALL BY NAME
    SELECT 'size' AS analysis, CASE WHEN target_scale < 1 THEN 'smaller' ELSE 'larger' END AS variant, *
    FROM answers WHERE target_scale <> 1 AND position = 'left'
)
SELECT v.analysis, v.model, v.prompt, v.subtask, v.variant, count(*) AS n_pairs,
       avg((o.predicted_country IS NOT DISTINCT FROM v.predicted_country)::INT)::DOUBLE AS country_consistency,
       avg((o.predicted_food IS NOT DISTINCT FROM v.predicted_food)::INT)::DOUBLE AS food_consistency,
       avg(o.country_correct::INT)::DOUBLE AS original_country_accuracy,
       avg(v.country_correct::INT)::DOUBLE AS variant_country_accuracy,
       avg(o.food_correct::INT)::DOUBLE AS original_food_accuracy,
       avg(v.food_correct::INT)::DOUBLE AS variant_food_accuracy
FROM variants v
JOIN answers o ON o.model = v.model AND o.prompt = v.prompt AND o.subtask = v.subtask
     AND o.target_food_id = v.target_food_id AND o.other_food = v.other_food AND o.background = v.background
     AND o.position = 'left' AND o.target_scale = 1
GROUP BY v.analysis, v.model, v.prompt, v.subtask, v.variant
ORDER BY v.analysis, v.model, v.prompt, list_position(['SF', 'MF', 'SFB', 'MFB'], v.subtask), v.variant;

-- The MF combinations (Fig. 9): how many MF images pair a target country with a distractor country,
-- and how many target foods they show.
CREATE OR REPLACE TABLE marts.culturemix_combinations AS
SELECT target_country, distractor_country, count(*) AS n_images, count(DISTINCT target_food_id) AS n_foods
FROM marts.culturemix_images
WHERE subtask = 'MF' AND distractor_kind = 'cultural' AND target_country IS NOT NULL AND distractor_country IS NOT NULL
GROUP BY ALL
ORDER BY target_country, distractor_country;
