-- CultureMix scored as published (issue 37): one row per CultureMix answer, written by the score
-- stage (the culturemix_parse step, pipeline/score/culturemix_stage.py); the marts only aggregate it.
-- `scorer` is name@version: a new version rescores every older row, so a change of rule never needs
-- a hand migration.
CREATE TABLE core.culturemix_scores (
    generation_id     TEXT PRIMARY KEY,
    scorer            TEXT NOT NULL,          -- culturemix_score@N
    predicted_country TEXT,                   -- alpha-2 (name variants resolved by the countries extractor)
    country_source    TEXT NOT NULL CHECK (country_source IN ('country_line', 'first_mention', 'fallback_first_mention', 'none')),
    country_correct   BOOLEAN NOT NULL,
    predicted_food    TEXT,
    food_similarity   DOUBLE NOT NULL,        -- 0..1 against the target's name (the one food-match rule)
    food_correct      BOOLEAN NOT NULL,       -- food_similarity >= the rule's threshold
    sf_generation_id  TEXT,                   -- the same model's SF answer for the same food and prompt
    shift             TEXT CHECK (shift IN ('kept', 'to_distractor_country', 'to_distractor_continent', 'elsewhere')),
    scored_at         TIMESTAMP NOT NULL
);

-- The bias ablations' columns of core.culturemix_images (target_position, target_scale) come with the
-- composition as published, migration 061.
