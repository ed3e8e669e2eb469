-- marts.uacuisine_classes: UACUISINE's taste (salty / sweet) and serving-temperature (hot / cold) questions as
-- classification, per model and prompt language: precision, recall and support of each class, the way the study
-- reports them. The classes were read by the score stage (core.answer_classes, pipeline/score/classes.py);
-- precision (recall) is NaN for a class no answer (no gold) names.
CREATE OR REPLACE TABLE marts.uacuisine_classes AS
WITH answers AS (
    SELECT 'uacuisine' AS dataset, c.question AS task, g.model_id AS model, g.lang, c.predicted, c.gold
    FROM core.answer_classes c JOIN core.generations g USING (generation_id)
),
labels AS (
    SELECT DISTINCT dataset, task, model, lang, label
    FROM (
        SELECT dataset, task, model, lang, predicted AS label FROM answers WHERE predicted IS NOT NULL
        UNION ALL
        SELECT dataset, task, model, lang, gold AS label FROM answers WHERE gold IS NOT NULL
    )
)
SELECT l.dataset, l.task, l.model, l.lang, l.label AS class,
       CASE WHEN count(*) FILTER (a.predicted = l.label) = 0 THEN 'NaN'::DOUBLE
            ELSE (count(*) FILTER (a.predicted = l.label AND a.gold = l.label))::DOUBLE
                 / count(*) FILTER (a.predicted = l.label) END AS precision,
       CASE WHEN count(*) FILTER (a.gold = l.label) = 0 THEN 'NaN'::DOUBLE
            ELSE (count(*) FILTER (a.predicted = l.label AND a.gold = l.label))::DOUBLE
                 / count(*) FILTER (a.gold = l.label) END AS recall,
       (count(*) FILTER (a.gold = l.label))::DOUBLE AS support
FROM labels l JOIN answers a USING (dataset, task, model, lang)
GROUP BY ALL
ORDER BY ALL;
