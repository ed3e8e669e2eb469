-- Real origin answers borrowed through dish identity (core.dish_links): one row per (dish, answer)
-- where the answer was asked about a *linked* record of another dataset (link score >= 0.5), e.g.
-- WorldCuisines' 12 models on Vinegret for BORSch's винегрет. Until a dataset has native runs
-- (BORSch ships no model answers), its co-occurrence, code-mixing and language-pull views read these,
-- always labelled: `answer_dataset` asked the question (its photo, its prompt in `lang`), `model`
-- answered, and each score exists twice, against the dish's own gold (`*_dish_gold`: the dataset the
-- dish belongs to, e.g. BORSch) and against the asking dataset's gold (`*_answer_gold`).
-- Scores are the score stage's own set measures (warehouse/set_measures.py, registered as `set_jaccard` and
-- `first_in_gold` for every mart): Jaccard of the named countries and the gold, accuracy = the first named country
-- is a gold one (an answer naming none scores 0 on both); NULL when the dish has no gold origin (the mart's rule:
-- nothing to score against, where the measures would score an empty gold).
CREATE OR REPLACE TABLE marts.linked_origin_answers AS
WITH links AS (
    SELECT l.dish_key, a.dataset, l.linked_dish_key AS answer_dish_key, b.dataset AS answer_dataset,
           l.method AS via, l.score AS link_score
    FROM core.dish_links l
    JOIN core.dishes a ON a.dish_key = l.dish_key
    JOIN core.dishes b ON b.dish_key = l.linked_dish_key
    WHERE l.score >= 0.5 AND a.dataset <> b.dataset
), dish_gold AS (
    SELECT dish_key, list(country ORDER BY country) AS gold FROM core.dish_origins GROUP BY dish_key
), answers AS (
    SELECT l.*, s.task, s.model, s.lang, s.item_id, s.variant, s.generation_id, s.status, s.gold AS answer_gold,
           s.predicted, e.countries, dg.gold AS dish_gold_list, s.jaccard AS jaccard_answer_gold,
           s.accuracy AS accuracy_answer_gold, s.response
    FROM links l
    JOIN marts.origin_scores s ON s.dish_key = l.answer_dish_key AND s.dataset = l.answer_dataset
    JOIN core.extractions e USING (generation_id)
    LEFT JOIN dish_gold dg ON dg.dish_key = l.dish_key
)
SELECT dish_key, dataset, answer_dish_key, answer_dataset, via, link_score, task, model, lang, item_id, variant,
       generation_id, status, predicted, coalesce(array_to_string(dish_gold_list, ','), '') AS dish_gold, answer_gold,
       CASE WHEN len(coalesce(dish_gold_list, [])) > 0 THEN set_jaccard(countries, dish_gold_list) END
           AS jaccard_dish_gold,
       jaccard_answer_gold,
       CASE WHEN len(coalesce(dish_gold_list, [])) > 0 THEN first_in_gold(countries, dish_gold_list) END
           AS accuracy_dish_gold,
       accuracy_answer_gold, countries, response
FROM answers
ORDER BY dataset, dish_key, model, lang, item_id, variant;
