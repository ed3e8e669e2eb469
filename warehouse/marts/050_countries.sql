-- Per-country views of the answers, for the map and the confusion matrix.

-- One row per (answer, gold country): what the model said for that country. The predicted label
-- is '-' for an answer with no country (origin_scores.no_country), else the gold country itself when
-- the answer named it, else the first country it named.
-- The answer's text and scores ride along and rows are sorted by country, so the map's and the
-- confusion matrix's "answers behind this" lists read one pruned range without a join.
CREATE OR REPLACE TABLE marts.answer_pairs AS
SELECT s.dataset, s.task, s.model, s.lang, g.country AS true_country,
       CASE WHEN s.no_country THEN '-' WHEN list_contains(e.countries, g.country) THEN g.country
            ELSE coalesce(e.countries[1], '-') END AS predicted_country,
       s.item_id, s.dish_key, s.generation_id, s.gold, s.predicted, s.status, s.jaccard, s.response,
       (SELECT p.value FROM core.scores p WHERE p.generation_id = s.generation_id AND p.metric = 'paper_substring')
           AS paper_hit
FROM marts.origin_scores s
JOIN core.extractions e USING (generation_id)
JOIN core.item_gold_countries g ON g.item_id = s.item_key
ORDER BY s.dataset, true_country, predicted_country, s.model, s.lang;

CREATE OR REPLACE TABLE marts.confusion AS
SELECT dataset, task, model, lang, true_country, predicted_country, count(*) AS n
FROM marts.answer_pairs GROUP BY ALL;

-- Recall per gold origin country: the share of answers about its dishes that named it.
CREATE OR REPLACE TABLE marts.country_recall AS
SELECT p.dataset, p.task, p.model, p.lang, p.true_country AS country, c.name_en AS country_name,
       count(*) AS n_answers, count(*) FILTER (p.predicted_country = p.true_country) AS n_hits,
       count(*) FILTER (p.predicted_country = p.true_country) / count(*) AS recall,
       -- the paper's rule (gold string in the answer), where the task declares it
       sum(p.paper_hit)::BIGINT AS n_paper_hits, sum(p.paper_hit) / count(p.paper_hit) AS paper_recall
FROM marts.answer_pairs p LEFT JOIN core.countries c ON c.country = p.true_country
GROUP BY p.dataset, p.task, p.model, p.lang, p.true_country, c.name_en;

-- Over-prediction: how often each country is named for a dish that is not from there.
CREATE OR REPLACE TABLE marts.country_overprediction AS
WITH named AS (
    SELECT s.dataset, s.task, s.model, s.lang, s.generation_id, unnest(e.countries) AS country,
           string_split(s.gold, ',') AS gold
    FROM marts.origin_scores s JOIN core.extractions e USING (generation_id)
), totals AS (
    SELECT dataset, task, model, lang, count(*) AS n_answers FROM marts.origin_scores GROUP BY ALL
)
SELECT n.dataset, n.task, n.model, n.lang, n.country, c.name_en AS country_name,
       count(*) AS n_wrong, any_value(t.n_answers) AS n_answers, count(*) / any_value(t.n_answers) AS share
FROM named n
JOIN totals t USING (dataset, task, model, lang)
LEFT JOIN core.countries c ON c.country = n.country
WHERE NOT list_contains(n.gold, n.country)
GROUP BY n.dataset, n.task, n.model, n.lang, n.country, c.name_en;

CREATE OR REPLACE TABLE marts.country_shapes AS
SELECT s.country, coalesce(c.name_en, s.name_en) AS name_en, c.post_soviet, s.geojson, s.lon, s.lat
FROM core.country_shapes s LEFT JOIN core.countries c USING (country);
