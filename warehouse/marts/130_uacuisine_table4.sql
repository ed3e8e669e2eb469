-- marts.uacuisine_table4: the ZNO-Vision paper's Table 4 (BERTScore, EM, IM per model), per model and prompt
-- language, from the scores the score stage stored (pipeline/score/uacuisine_paper.py, pipeline/uacuisine_metrics.py):
-- - bertscore: mean BERTScore F1 of the recipes (Q5; §3), computed by `bertscore_model` (core.score_models);
-- - em: the paper's exact match at stem level (Appendix C, Eq. 1), mean over the questions it scores with EM:
--   the dish name (Q1-Q3, `name_stem_exact`: the whole answer against a name of the dish, as Eq. 1 compares
--   y with ŷ) and the two classification questions (Q6 taste, Q7 temperature, `stem_exact`);
--   em_identification / em_taste / em_temperature break it down;
-- - im: the paper's intersection match (Appendix C, Eq. 2) of the ingredients (Q4, `intersection_match_paper`).
-- Ours beside them: em_atlas (a dish name found in the answer at stem level, `name_stem`; taste and temperature as
-- the class named), em_identification_atlas (its dish-name part) and im_atlas (share of the gold ingredient
-- lemmas named). Undefined scores (NaN: a gold with no words) are left out.
CREATE OR REPLACE TABLE marts.uacuisine_table4 AS
WITH scored AS (
    SELECT g.model_id AS model, g.lang, split_part(i.task_id, '.', 2) AS question, s.metric, s.value,
           (question = 'identification' AND s.metric = 'name_stem_exact') AS name_em,
           (question = 'identification' AND s.metric = 'name_stem') AS name_atlas,
           (question IN ('taste', 'temperature') AND s.metric = 'stem_exact') AS class_em,
           (question = 'taste' AND s.metric = 'taste_match')
               OR (question = 'temperature' AND s.metric = 'temperature_match') AS class_atlas
    FROM core.scores s
    JOIN core.generations g USING (generation_id)
    JOIN core.items i USING (item_id)
    JOIN core.tasks t USING (task_id)
    WHERE t.dataset = 'uacuisine' AND s.value IS NOT NULL AND NOT isnan(s.value)
),
models AS (
    SELECT g.model_id AS model, g.lang, string_agg(DISTINCT m.model, ', ' ORDER BY m.model) AS bertscore_model
    FROM core.score_models m JOIN core.generations g USING (generation_id)
    WHERE m.metric = 'bertscore'
    GROUP BY ALL
),
table4 AS (
    SELECT model, lang,
           avg(value) FILTER (metric = 'bertscore') AS bertscore,
           avg(value) FILTER (name_em OR class_em) AS em,
           avg(value) FILTER (metric = 'intersection_match_paper') AS im,
           avg(value) FILTER (name_atlas OR class_atlas) AS em_atlas,
           avg(value) FILTER (metric = 'intersection_match') AS im_atlas,
           avg(value) FILTER (name_em) AS em_identification,
           avg(value) FILTER (class_em AND question = 'taste') AS em_taste,
           avg(value) FILTER (class_em AND question = 'temperature') AS em_temperature,
           count(*) FILTER (metric = 'bertscore') AS n_recipes,
           count(*) FILTER (name_em OR class_em) AS n_em,
           count(*) FILTER (metric = 'intersection_match_paper') AS n_ingredients,
           avg(value) FILTER (name_atlas) AS em_identification_atlas
    FROM scored
    GROUP BY model, lang
)
SELECT t.model, t.lang, t.bertscore, t.em, t.im, m.bertscore_model, t.em_atlas, t.im_atlas, t.em_identification,
       t.em_taste, t.em_temperature, t.n_recipes, t.n_em, t.n_ingredients, t.em_identification_atlas
FROM table4 t LEFT JOIN models m USING (model, lang)
ORDER BY t.lang DESC, t.model;
