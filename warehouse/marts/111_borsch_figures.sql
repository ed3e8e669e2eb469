-- BORSch's figures and tables that had no home (issue 35), each built from what ingest and the score stage
-- wrote (marts.origin_scores, marts.name_scores and the dataset's own tables). Empty, not missing, without
-- BORSch answers; the dataset figures (2b, 11) need only `ingest borsch`.

-- Fig. 2b and Fig. 11: origin countries of BORSch's dishes, by how the dataset found them (`found_by`: wikidata or
-- bootstrapped, §3.1-3.2) and whether they are in the parallel subset (§3.5: the 433 pairs, either side).
CREATE OR REPLACE TABLE marts.borsch_origins AS
WITH dishes AS (
    SELECT d.dish_key, d.lang,
           CASE WHEN d.source = 'wikidata' THEN 'wikidata' ELSE 'bootstrapped' END AS found_by,
           (SELECT count(*) FROM core.dish_origins x WHERE x.dish_key = d.dish_key) AS n_origins,
           EXISTS (SELECT 1 FROM core.parallel_dishes p WHERE d.dish_key IN (p.ru_dish_key, p.uk_dish_key))
               AS parallel
    FROM core.dishes d WHERE d.dataset = 'borsch'
)
SELECT d.lang, d.found_by, d.parallel, o.country, c.name_en AS country_name, coalesce(c.post_soviet, false)
           AS post_soviet, count(DISTINCT d.dish_key)::BIGINT AS n_dishes,
       count(DISTINCT d.dish_key) FILTER (d.n_origins > 1)::BIGINT AS n_shared_dishes
FROM dishes d
JOIN core.dish_origins o USING (dish_key)
LEFT JOIN core.countries c USING (country)
GROUP BY ALL
ORDER BY d.lang, d.found_by, n_dishes DESC, o.country;

-- Fig. 12: the countries BORSch answers name wrongly (not a gold origin) that are not Post-Soviet, per model,
-- task and prompt language, ranked (top 10 in the paper), under our reading and the paper's rule (§4.1).
CREATE OR REPLACE TABLE marts.borsch_wrong_predictions AS
WITH named AS (
    SELECT s.model, s.task, s.lang, 'atlas' AS method, s.generation_id, unnest(string_split(s.predicted, ',')) AS country,
           string_split(s.gold, ',') AS gold
    FROM marts.origin_scores s WHERE s.dataset = 'borsch' AND s.predicted <> ''
    UNION ALL
    SELECT s.model, s.task, s.lang, 'paper', s.generation_id, unnest(string_split(s.paper_predicted, ',')),
           string_split(s.gold, ',')
    FROM marts.origin_scores s WHERE s.dataset = 'borsch' AND coalesce(s.paper_predicted, '') <> ''
), wrong AS (
    SELECT n.model, n.task, n.lang, n.method, n.country, count(DISTINCT n.generation_id)::BIGINT AS n_answers
    FROM named n LEFT JOIN core.countries c USING (country)
    WHERE NOT list_contains(n.gold, n.country) AND NOT coalesce(c.post_soviet, false)
    GROUP BY ALL
)
SELECT w.model, w.task, w.lang, w.method, w.country, c.name_en AS country_name, w.n_answers,
       row_number() OVER (PARTITION BY w.model, w.task, w.lang, w.method ORDER BY w.n_answers DESC, w.country)
           AS rank
FROM wrong w LEFT JOIN core.countries c USING (country)
ORDER BY w.model, w.task, w.lang, w.method, rank;

-- Fig. 14: per dish, what adding the name to the photos gains (Appendix H): mean Jaccard of origin_vqa_with_name
-- minus that of origin_vqa, per model and prompt language, over the dish's answers (every prompt variant).
CREATE OR REPLACE TABLE marts.borsch_vqa_name_gain AS
WITH per_dish AS (
    SELECT model, lang, dish_key, task, avg(jaccard) AS jaccard, count(*)::BIGINT AS n
    FROM marts.origin_scores
    WHERE dataset = 'borsch' AND task IN ('origin_vqa', 'origin_vqa_with_name') AND jaccard IS NOT NULL
    GROUP BY ALL
)
SELECT v.model, v.lang, v.dish_key, d.display_name AS dish_name, v.jaccard AS vqa_jaccard,
       w.jaccard AS vqa_with_name_jaccard, w.jaccard - v.jaccard AS gain, v.n AS n_vqa, w.n AS n_vqa_with_name
FROM per_dish v
JOIN per_dish w ON w.model = v.model AND w.lang = v.lang AND w.dish_key = v.dish_key
                AND w.task = 'origin_vqa_with_name'
JOIN core.dishes d ON d.dish_key = v.dish_key
WHERE v.task = 'origin_vqa'
ORDER BY v.model, v.lang, gain DESC, v.dish_key;

-- Table 2: dish-name VQA accuracy per origin country of the dish, per model and prompt language; a dish with several
-- origins counts for each. `accuracy`: ours (a whole candidate within one edit of a gold name, `lev1`);
-- `paper_accuracy`: as published (Appendix I: the answer contains a gold name within one edit, name_contains_lev1).
CREATE OR REPLACE TABLE marts.borsch_name_accuracy_by_origin AS
SELECT n.model, n.lang, o.country, c.name_en AS country_name, count(*)::BIGINT AS n_answers,
       count(DISTINCT n.dish_key)::BIGINT AS n_dishes, avg(n.lev1) AS accuracy, avg(p.value) AS paper_accuracy
FROM marts.name_scores n
JOIN core.dish_origins o USING (dish_key)
LEFT JOIN core.countries c USING (country)
LEFT JOIN core.scores p ON p.generation_id = n.generation_id AND p.metric = 'name_contains_lev1'
WHERE n.dataset = 'borsch' AND n.lev1 IS NOT NULL
GROUP BY ALL
ORDER BY n.model, n.lang, n_answers DESC, o.country;
