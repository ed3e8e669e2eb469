-- One dish across datasets (core.dish_links, written by the `link` step) and dish-name answers.

-- marts.dish_links: one row per direction of each link. Its first four columns are the
-- `export dish-links` contract: dish_key, linked_dish_key, method, score.
CREATE OR REPLACE TABLE marts.dish_links AS
SELECT l.dish_key, l.linked_dish_key, l.method, l.score,
       a.dataset, b.dataset AS linked_dataset, a.display_name, b.display_name AS linked_display_name,
       l.name, l.linked_name, l.name_lang, l.linked_name_lang, l.evidence::VARCHAR AS evidence,
       coalesce(oa.origins, '') AS origins, coalesce(ob.origins, '') AS linked_origins,
       coalesce(oa.origins, '') = coalesce(ob.origins, '') AS origins_agree, l.linker
FROM core.dish_links l
JOIN core.dishes a ON a.dish_key = l.dish_key
JOIN core.dishes b ON b.dish_key = l.linked_dish_key
LEFT JOIN marts.dishes oa ON oa.dish_key = l.dish_key
LEFT JOIN marts.dishes ob ON ob.dish_key = l.linked_dish_key
ORDER BY l.dish_key, l.score DESC, l.linked_dish_key;

-- Where two datasets' records of one dish (a link of score >= 0.5) disagree about its origin.
CREATE OR REPLACE TABLE marts.dish_origin_disagreements AS
WITH pairs AS (
    SELECT l.*,
           (SELECT list(country ORDER BY country) FROM core.dish_origins o WHERE o.dish_key = l.dish_key) AS a,
           (SELECT list(country ORDER BY country) FROM core.dish_origins o WHERE o.dish_key = l.linked_dish_key) AS b
    FROM marts.dish_links l
    WHERE l.score >= 0.5 AND l.dataset <> l.linked_dataset
)
SELECT dish_key, linked_dish_key, dataset, linked_dataset, display_name, linked_display_name, method, score,
       origins, linked_origins,
       array_to_string(list_filter(coalesce(a, []), lambda x: NOT list_contains(coalesce(b, []), x)), ',') AS only_here,
       array_to_string(list_filter(coalesce(b, []), lambda x: NOT list_contains(coalesce(a, []), x)), ',') AS only_linked,
       array_to_string(list_intersect(coalesce(a, []), coalesce(b, [])), ',') AS shared
FROM pairs
WHERE NOT origins_agree
ORDER BY dataset, dish_key, linked_dish_key;

-- marts.name_scores: one row per dish-name answer. Its first fifteen columns are the
-- `export name-scores` contract: dataset, model, task, lang, item_id, gold, prediction, matched_name,
-- named_dish_key, exact, lev1, stem, similarity, paper, status (exact/lev1/stem/paper 0/1,
-- similarity 0-1). item_id is the dataset's own question id: WorldCuisines' qa_id (kept as the
-- answer's variant), BORSch's dish id.
CREATE OR REPLACE TABLE marts.name_scores AS
WITH metric AS (
    SELECT generation_id,
           max(value) FILTER (metric = 'name_exact') AS exact,
           max(value) FILTER (metric IN ('name_lev1', 'name_match')) AS lev1,  -- name_match: its older name
           max(value) FILTER (metric = 'name_stem') AS stem,
           max(value) FILTER (metric = 'name_similarity') AS similarity,
           max(value) FILTER (metric = 'name_paper') AS paper
    FROM core.scores WHERE metric LIKE 'name\_%' ESCAPE '\' GROUP BY generation_id
)
SELECT t.dataset, g.model_id AS model, split_part(t.task_id, '.', 2) AS task, g.lang,
       CASE WHEN t.dataset = 'worldcuisines' THEN g.variant ELSE i.source_ref END AS item_id,
       coalesce(gt.text, d.name) AS gold, g.response AS prediction, nm.matched_name, nm.named_dish_key,
       m.exact::INTEGER AS exact, m.lev1::INTEGER AS lev1, m.stem::INTEGER AS stem, m.similarity,
       m.paper::INTEGER AS paper, e.status,
       i.dish_key, d.display_name AS dish_name, nd.display_name AS named_dish_name, nm.named_name,
       nm.matched_lang, nm.matched_rule, array_to_string(nm.candidates, ' | ') AS candidates,
       -- 0.8: CultureMix's food-match threshold (pipeline/culturemix_metrics.py FOOD_THRESHOLD)
       (m.similarity >= 0.8)::INTEGER AS similarity_ok, m.lev1 AS name_match, g.variant, t.task_id,
       g.item_id AS item_key, g.generation_id,
       e.extractor
FROM core.generations g
JOIN core.items i USING (item_id)
JOIN core.tasks t USING (task_id)
LEFT JOIN core.extractions e USING (generation_id)
JOIN metric m USING (generation_id)
LEFT JOIN core.name_matches nm USING (generation_id)
LEFT JOIN core.dishes d ON d.dish_key = i.dish_key
LEFT JOIN core.dishes nd ON nd.dish_key = nm.named_dish_key
LEFT JOIN core.item_gold_text gt ON gt.item_id = g.item_id AND gt.lang = g.lang
WHERE t.answer_kind = 'dish_name'
ORDER BY t.dataset, model, task, g.lang, i.dish_key, g.variant;

-- Name accuracy per model x prompt language under each rule (similarity: at or above 0.8, CultureMix's food match).
CREATE OR REPLACE TABLE marts.name_accuracy AS
WITH long AS (
    SELECT dataset, task, model, lang, 'exact' AS rule, exact AS value FROM marts.name_scores
    UNION ALL SELECT dataset, task, model, lang, 'lev1', lev1 FROM marts.name_scores
    UNION ALL SELECT dataset, task, model, lang, 'stem', stem FROM marts.name_scores
    UNION ALL SELECT dataset, task, model, lang, 'similarity', similarity_ok FROM marts.name_scores
    UNION ALL SELECT dataset, task, model, lang, 'paper', paper FROM marts.name_scores
)
SELECT dataset, task, model, lang, rule, count(*) AS n, sum(value) AS correct, avg(value) AS accuracy
FROM long
GROUP BY ALL
ORDER BY dataset, task, model, lang, rule;

-- True dish -> the other knowledge-base dish an answer named instead, per model and prompt language.
CREATE OR REPLACE TABLE marts.name_confusions AS
SELECT s.dataset, s.task, s.model, s.lang, s.dish_key, s.dish_name, s.named_dish_key, s.named_dish_name,
       count(*) AS n, any_value(s.named_name) AS example_answer,
       (SELECT min_by(url, position) FROM core.images im WHERE im.dish_key = s.dish_key AND im.kind = 'real')
           AS image_url,
       (SELECT min_by(url, position) FROM core.images im WHERE im.dish_key = s.named_dish_key AND im.kind = 'real')
           AS named_image_url
FROM marts.name_scores s
WHERE s.named_dish_key IS NOT NULL AND s.named_dish_key <> s.dish_key AND s.lev1 = 0
GROUP BY ALL
ORDER BY n DESC, s.dish_key, s.named_dish_key;

-- The answers about a dish that were asked about a *linked* dish (score >= 0.5) of another dataset,
-- with the origin answers also scored against this dish's own gold origins (e.g. WorldCuisines
-- answers about Borscht against BORSch's gold for борщ). `via` is the link's method; `dataset` and
-- `answer_gold` are the dataset the question came from and its gold. (A dish's own answers are in
-- marts.dish_answers and marts.name_scores.)
CREATE OR REPLACE TABLE marts.linked_answers AS
WITH links AS (
    SELECT l.dish_key, l.linked_dish_key AS answer_dish_key, l.method AS via, l.score AS link_score
    FROM core.dish_links l
    JOIN core.dishes a ON a.dish_key = l.dish_key
    JOIN core.dishes b ON b.dish_key = l.linked_dish_key
    WHERE l.score >= 0.5 AND a.dataset <> b.dataset
), dish_gold AS (
    SELECT dish_key, list(country ORDER BY country) AS countries FROM core.dish_origins GROUP BY dish_key
), origin AS (
    SELECT l.dish_key, l.answer_dish_key, l.via, l.link_score, s.dataset, s.task, s.model, s.lang, s.variant,
           s.item_id, 'origin' AS kind, s.gold AS answer_gold, s.predicted AS prediction, s.response, s.status,
           s.accuracy AS score_own_gold, s.generation_id,
           CASE WHEN len(coalesce(dg.countries, [])) = 0 THEN NULL
                WHEN s.predicted = '' THEN 0.0
                ELSE list_contains(dg.countries, string_split(s.predicted, ',')[1])::DOUBLE END AS score_dish_gold,
           array_to_string(dg.countries, ',') AS dish_gold
    FROM links l
    JOIN marts.origin_scores s ON s.dish_key = l.answer_dish_key
    LEFT JOIN dish_gold dg ON dg.dish_key = l.dish_key
), name AS (
    SELECT l.dish_key, l.answer_dish_key, l.via, l.link_score, s.dataset, s.task, s.model, s.lang, s.variant,
           s.item_id, 'name' AS kind, s.gold AS answer_gold, s.prediction, s.prediction AS response, s.status,
           s.lev1::DOUBLE AS score_own_gold, s.generation_id,
           NULL::DOUBLE AS score_dish_gold, NULL::VARCHAR AS dish_gold
    FROM links l
    JOIN marts.name_scores s ON s.dish_key = l.answer_dish_key
)
SELECT * FROM origin
UNION ALL BY NAME
SELECT * FROM name
ORDER BY dish_key, kind DESC, dataset, model, lang, variant;
