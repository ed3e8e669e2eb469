-- marts.origin_scores: one row per scored answer about countries of origin. Its first twelve
-- columns are the `export origin-scores` contract: dataset, model, task, lang, item_id, variant,
-- gold, predicted (alpha-2 joined by ','), jaccard, dice, overlap, status.
CREATE OR REPLACE TABLE marts.origin_scores AS
WITH gold AS (
    SELECT item_id, string_agg(country, ',' ORDER BY country) AS gold FROM core.item_gold_countries GROUP BY item_id
), nations AS (
    SELECT item_id, string_agg(nation, ',' ORDER BY nation) AS gold_nations FROM core.item_gold_nations GROUP BY item_id
), metric AS (
    SELECT generation_id,
           max(value) FILTER (metric = 'jaccard') AS jaccard,
           max(value) FILTER (metric = 'dice') AS dice,
           max(value) FILTER (metric = 'overlap') AS overlap,
           max(value) FILTER (metric = 'accuracy') AS accuracy,
           max(value) FILTER (metric = 'uk_nation_match') AS uk_nation_match
    FROM core.scores GROUP BY generation_id
), gold_codes AS (
    SELECT item_id, list(DISTINCT country) AS codes FROM core.item_gold_countries GROUP BY item_id
), paper_sets AS (
    -- BORSch's own rule (§4.1): every country the answer names (core.extractions.paper_countries), scored with
    -- the same set measures as ours (§J, equations 1-3; both sets empty -> 1, one empty -> 0).
    SELECT e.generation_id, list_distinct(e.paper_countries) AS p, coalesce(gc.codes, []) AS t
    FROM core.extractions e JOIN core.generations g USING (generation_id)
    LEFT JOIN gold_codes gc ON gc.item_id = g.item_id
    WHERE e.paper_countries IS NOT NULL
), paper AS (
    SELECT generation_id, len(p) AS np, len(t) AS nt, len(list_intersect(p, t)) AS inter,
           list_sort(p) = list_sort(t) AS same
    FROM paper_sets
)
SELECT t.dataset, g.model_id AS model, split_part(t.task_id, '.', 2) AS task, g.lang, i.source_ref AS item_id,
       g.variant, coalesce(gold.gold, '') AS gold, array_to_string(e.countries, ',') AS predicted,
       m.jaccard, m.dice, m.overlap, e.status,
       m.accuracy, al.answer_lang, array_to_string(e.regions, ',') AS regions, g.response, i.dish_key,
       t.task_id, g.item_id AS item_key, g.generation_id, e.extractor,
       -- The one definition of "no country" (every page's no-country share is the mean of this): the
       -- extraction found no country in the answer, whatever the reason (status no_country, refusal or
       -- empty; a broad region alone is no country).
       e.status IN ('no_country', 'refusal', 'empty') AS no_country,
       -- The UK nation the dataset names as gold (GB-SCT...; empty otherwise) and whether the answer
       -- named that nation (NULL where the gold names none): a Scottish dish credited to England is
       -- 0 here while the country-level scores see GB = GB.
       coalesce(nations.gold_nations, '') AS gold_nations, m.uk_nation_match,
       -- Which reading of its question produced `predicted` (origin | served, issue 35), and the paper's
       -- rule beside ours: every country named (`paper_predicted`, in order of first mention) and its scores.
       e.reading, array_to_string(e.paper_countries, ',') AS paper_predicted,
       CASE WHEN pp.np + pp.nt = 0 THEN 1.0 ELSE pp.inter / (pp.np + pp.nt - pp.inter) END AS paper_jaccard,
       CASE WHEN pp.np + pp.nt = 0 THEN 1.0 ELSE 2 * pp.inter / (pp.np + pp.nt) END AS paper_dice,
       CASE WHEN pp.np + pp.nt = 0 THEN 1.0 WHEN pp.np = 0 OR pp.nt = 0 THEN 0.0
            ELSE pp.inter / least(pp.np, pp.nt) END AS paper_overlap,
       pp.same::INTEGER::DOUBLE AS paper_exact
FROM core.generations g
JOIN core.items i USING (item_id)
JOIN core.tasks t USING (task_id)
JOIN core.extractions e USING (generation_id)
JOIN metric m USING (generation_id)
-- The answer's language is the languages step's (its one home); NULL until that step has read the answer.
LEFT JOIN core.answer_languages al USING (generation_id)
LEFT JOIN gold ON gold.item_id = g.item_id
LEFT JOIN nations ON nations.item_id = g.item_id
LEFT JOIN paper pp USING (generation_id)
WHERE t.answer_kind = 'countries'
ORDER BY t.dataset, model, task, g.lang, try_cast(i.source_ref AS BIGINT) NULLS LAST, i.source_ref, g.variant;

-- How often each extraction status occurs per model and prompt language (no_country share etc.).
CREATE OR REPLACE TABLE marts.extraction_status AS
WITH counts AS (
    SELECT dataset, model, task, lang, status, count(*) AS n FROM marts.origin_scores GROUP BY ALL
)
SELECT *, n / sum(n) OVER (PARTITION BY dataset, model, task, lang) AS share
FROM counts
ORDER BY dataset, model, task, lang, status;
