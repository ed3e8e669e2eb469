-- Per-country views of the answers, for the map and the confusion matrix.

-- One row per (answer, gold country): what the model said for that country. The predicted label
-- is '-' for an answer with no country (origin_scores.no_country), else the gold country itself when
-- the answer named it, else the first country it named.
-- The answer's text and scores ride along and rows are sorted by country, so the map's and the
-- confusion matrix's "answers behind this" lists read one pruned range without a join.
-- `origins` are the dish's origin countries: the item's gold and every origin the dataset gives the
-- dish (WorldCuisines asks about Paskha with the gold Ukraine, and lists the dish as from Russia and
-- Ukraine). `confusion_label` is the confusion matrix's rule: as predicted_country, except that an
-- answer naming another of the dish's origins, and not this one, is a hit '+' (naming Russia for
-- Paskha is no UA -> RU confusion).
CREATE OR REPLACE TABLE marts.answer_pairs AS
WITH dish_origins AS (
    SELECT dish_key, list(DISTINCT country) AS countries FROM core.dish_origins GROUP BY dish_key
), pairs AS (
    SELECT s.dataset, s.task, s.model, s.lang, g.country AS true_country,
           CASE WHEN s.no_country THEN '-' WHEN list_contains(e.countries, g.country) THEN g.country
                ELSE coalesce(e.countries[1], '-') END AS predicted_country,
           s.item_id, s.dish_key, s.generation_id, s.gold, s.predicted, s.status, s.jaccard, s.response,
           (SELECT p.value FROM core.scores p WHERE p.generation_id = s.generation_id AND p.metric = 'paper_substring')
               AS paper_hit,
           list_sort(list_distinct(list_concat(coalesce(o.countries, []), string_split(s.gold, ',')))) AS origins,
           e.countries AS named
    FROM marts.origin_scores s
    JOIN core.extractions e USING (generation_id)
    JOIN core.item_gold_countries g ON g.item_id = s.item_key
    LEFT JOIN dish_origins o ON o.dish_key = s.dish_key
)
SELECT * EXCLUDE (origins, named),
       array_to_string(list_filter(origins, lambda c: c <> ''), ',') AS origins,
       CASE WHEN predicted_country IN ('-', true_country) THEN predicted_country
            WHEN len(list_intersect(named, origins)) > 0 THEN '+'
            ELSE predicted_country END AS confusion_label
FROM pairs
ORDER BY dataset, true_country, predicted_country, model, lang;

-- Counts per matrix cell; `confusion_label` splits each (true, predicted) count by the co-origin rule.
CREATE OR REPLACE TABLE marts.confusion AS
SELECT dataset, task, model, lang, true_country, predicted_country, count(*) AS n, confusion_label
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
