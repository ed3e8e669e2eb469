"""CultureMix marts: one row per answer with its parse, correctness and label shift; entropies per
target food; where the answers come from. The measures were applied once, in the score stage
(core.culturemix_scores, written by pipeline/score/culturemix_stage.py): these marts only join and
aggregate, in SQL (warehouse/ never imports the pipeline).

- marts.culturemix_answers: the `export culturemix` contract (model, subtask, prompt,
  target_food_id, image, target_country, distractor_country, background_country, distance,
  predicted_food, predicted_country, food_correct, country_correct, shift) and more columns after;
- marts.culturemix_entropy: per model, prompt and target food, the entropy of the predicted
  countries (and foods) over each image's repeated samples (the paper's, §4 and Fig. 7) and, ours
  beside it, across its images; over all its variants, over its SF answers, per cultural distance,
  per distractor kind and per subtask (Table 8);
- marts.culturemix_images: every image with its labels and local file, for the drilldown;
- marts.culturemix_sources: per model, the backend and how many answers, and whether it is a
  small test model (random weights: a name with tiny / random / test).
"""

from __future__ import annotations

import duckdb
import polars as pl

ANSWERS_SQL = """
SELECT g.model_id AS model, c.subtask, g.variant AS prompt, c.target_food_id, c.image,
       c.target_country, c.distractor_country, c.background_country, c.distance,
       s.predicted_food, s.predicted_country, s.food_correct, s.country_correct, s.shift,
       g.generation_id, s.food_similarity,
       c.target_food_name, c.distractor_food_name, c.background_label, c.distractor_kind, c.scene,
       c.distance_food, c.distance_background, c.km_food, c.km_background, c.subset, c.origin,
       coalesce(m.backend, r.backend, g.origin) AS backend, g.origin AS answer_origin, g.response,
       e.status AS extraction_status, coalesce(e.countries, []) AS predicted_countries,
       -- the UK nations beside GB where the labels give one (GB-ENG...), and the nations the answer named
       c.target_nation, c.distractor_nation, coalesce(e.regions, []) AS predicted_regions,
       -- issue 37: how the country was read (§3.1), the SF answer compared with, and the bias labels
       s.country_source, s.scorer, s.sf_generation_id, sf.country_correct AS sf_country_correct,
       sf.food_correct AS sf_food_correct, sf.predicted_country AS sf_country,
       -- MF/MFB put the target on the left as published (§3.1) unless a flipped variant says otherwise
       CASE WHEN c.subtask IN ('MF', 'MFB') THEN coalesce(c.target_position, 'left') END AS target_position,
       coalesce(c.target_scale, 1.0) AS target_scale,
       -- CultureMix-Real photos (§5.1, Fig. 8, Table 9): same- or cross-culture as the photo's row labels it
       -- (pipeline/datasets/culturemix_real.py). A composed red-box variant (compose's REAL, photo empty) is
       -- no real photo and has none.
       CASE WHEN c.subtask = 'REAL' AND c.photo IS NOT NULL
            THEN CASE c.real_culture WHEN 'same' THEN 'same_culture' WHEN 'cross' THEN 'cross_culture' END
       END AS real_relation,
       g.sample,  -- the repeated sample (0: the first answer), which the paper's entropy is over
       c.photo AS real_photo  -- the CultureMix-Real photo the image was boxed or cropped from
FROM core.generations g
JOIN core.items i USING (item_id)
JOIN core.culturemix_images c ON c.image = i.source_ref
JOIN core.culturemix_scores s USING (generation_id)
LEFT JOIN core.culturemix_scores sf ON sf.generation_id = s.sf_generation_id
LEFT JOIN core.extractions e USING (generation_id)
LEFT JOIN core.models m ON m.model_id = g.model_id
LEFT JOIN core.generation_runs r ON r.run_id = g.run_id
WHERE i.task_id LIKE 'culturemix.%'
ORDER BY model, target_food_id, subtask, image, prompt, g.sample
"""
CONTRACT = [
    "model",
    "subtask",
    "prompt",
    "target_food_id",
    "image",
    "target_country",
    "distractor_country",
    "background_country",
    "distance",
    "predicted_food",
    "predicted_country",
    "food_correct",
    "country_correct",
    "shift",
]

# Entropy (bits) of the labels a model gave one target food, a missing label counting as one label of
# its own; per grouping: all its answers, its SF answers, per cultural distance, per distractor kind and
# per subtask (CultureMix Table 8).
#
# `entropy` / `food_entropy`: the paper's measure as we read it. §4 uses entropy "for prediction
# confidence and consistency" and Fig. 7 plots "SF entropy (a proxy for prediction confidence)" per
# food, and Table 8 reports it high in SF, where each food has one image: so it cannot be the spread of
# the labels across a food's images (0 in SF by construction). It is the entropy of the labels over
# the model's repeated samples of the same image (the same question asked again at temperature > 0:
# `import-responses` lines with `sample`, or `generate` runs with another `--setting seed=N`), per
# image, averaged over the food's images in the group. The paper does not print its sampling; with
# one answer per image it is 0 (`samples_per_image` says how many there were).
# `entropy_across_images` / `food_entropy_across_images`: ours, kept beside it: the entropy of every
# label the food got in the group, its images and samples pooled (how consistently it is named
# whatever the distractor; 0 in SF with one answer per image).
ENTROPY_SQL = """
CREATE OR REPLACE TABLE marts.culturemix_entropy AS
WITH grouped AS (
    SELECT model, prompt, target_food_id, target_food_name, 'all' AS grouping, 'all' AS group_value, image,
           predicted_country, predicted_food, shift FROM marts.culturemix_answers
    UNION ALL
    SELECT model, prompt, target_food_id, target_food_name, 'SF', 'SF', image, predicted_country, predicted_food,
           shift
    FROM marts.culturemix_answers WHERE subtask = 'SF'
    UNION ALL
    SELECT model, prompt, target_food_id, target_food_name, 'distance', distance, image, predicted_country,
           predicted_food, shift
    FROM marts.culturemix_answers WHERE distance IS NOT NULL
    UNION ALL
    SELECT model, prompt, target_food_id, target_food_name, 'distractor_kind', distractor_kind, image,
           predicted_country, predicted_food, shift
    FROM marts.culturemix_answers WHERE distractor_kind IS NOT NULL
    UNION ALL
    SELECT model, prompt, target_food_id, target_food_name, 'subtask', subtask, image, predicted_country,
           predicted_food, shift
    FROM marts.culturemix_answers
), per_image AS (  -- over the repeated samples of one image (§4, Fig. 7)
    SELECT model, prompt, target_food_id, grouping, group_value, image,
           entropy(coalesce(predicted_country, chr(0))) AS entropy,
           entropy(coalesce(predicted_food, chr(0))) AS food_entropy
    FROM grouped GROUP BY ALL
), per_food AS (
    SELECT model, prompt, target_food_id, grouping, group_value, avg(entropy) AS entropy,
           avg(food_entropy) AS food_entropy, count(*) AS n_images
    FROM per_image GROUP BY ALL
)
SELECT g.model, g.prompt, g.target_food_id, any_value(g.target_food_name) AS target_food_name, g.grouping,
       g.group_value, count(*) AS n_answers,
       greatest(any_value(p.entropy), 0.0)::DOUBLE AS entropy,
       greatest(any_value(p.food_entropy), 0.0)::DOUBLE AS food_entropy,
       (avg((g.shift <> 'kept')::INT) FILTER (g.shift IS NOT NULL))::DOUBLE AS shifted_share,
       greatest(entropy(coalesce(g.predicted_country, chr(0))), 0.0)::DOUBLE AS entropy_across_images,
       greatest(entropy(coalesce(g.predicted_food, chr(0))), 0.0)::DOUBLE AS food_entropy_across_images,
       (count(*) / any_value(p.n_images))::DOUBLE AS samples_per_image
FROM grouped g
JOIN per_food p USING (model, prompt, target_food_id, grouping, group_value)
GROUP BY g.model, g.prompt, g.target_food_id, g.grouping, g.group_value
ORDER BY g.model, g.prompt, g.target_food_id, g.grouping, g.group_value
"""

ENTROPY_SCHEMA = {
    "model": pl.String,
    "prompt": pl.String,
    "target_food_id": pl.String,
    "target_food_name": pl.String,
    "grouping": pl.String,
    "group_value": pl.String,
    "n_answers": pl.Int64,
    "entropy": pl.Float64,
    "food_entropy": pl.Float64,
    "shifted_share": pl.Float64,
    "entropy_across_images": pl.Float64,
    "food_entropy_across_images": pl.Float64,
    "samples_per_image": pl.Float64,
}


def build(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"CREATE OR REPLACE TABLE marts.culturemix_answers AS {ANSWERS_SQL}")
    con.execute(ENTROPY_SQL)
    con.execute(
        """
        CREATE OR REPLACE TABLE marts.culturemix_images AS
        SELECT c.*, im.local_path, im.width, im.height
        FROM core.culturemix_images c LEFT JOIN core.images im USING (image_id)
        ORDER BY c.target_food_id, list_position(['SF', 'MF', 'SFB', 'MFB', 'REAL'], c.subtask), c.image
        """
    )
    con.execute(
        """
        CREATE OR REPLACE TABLE marts.culturemix_sources AS
        SELECT model, any_value(backend) AS backend, count(*) AS n_answers,
               count(DISTINCT image) AS n_images, list(DISTINCT prompt ORDER BY prompt) AS prompts,
               regexp_matches(lower(model), '(^|[^a-z])(tiny|random|test)') AS is_test_model
        FROM marts.culturemix_answers GROUP BY model ORDER BY model
        """
    )
