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
           max(value) FILTER (metric = 'uk_nation_match') AS uk_nation_match,
           -- BORSch's own rule (§4.1): every country the answer names, scored with the set measures of §J
           -- (equations 1-3) and exact set equality by the score stage (pipeline/score/metrics.py paper_*)
           max(value) FILTER (metric = 'paper_jaccard') AS paper_jaccard,
           max(value) FILTER (metric = 'paper_dice') AS paper_dice,
           max(value) FILTER (metric = 'paper_overlap') AS paper_overlap,
           max(value) FILTER (metric = 'paper_exact') AS paper_exact
    FROM core.scores GROUP BY generation_id
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
       m.paper_jaccard, m.paper_dice, m.paper_overlap, m.paper_exact
FROM core.generations g
JOIN core.items i USING (item_id)
JOIN core.tasks t USING (task_id)
JOIN core.extractions e USING (generation_id)
JOIN metric m USING (generation_id)
-- The answer's language is the languages step's (its one home); NULL until that step has read the answer.
LEFT JOIN core.answer_languages al USING (generation_id)
LEFT JOIN gold ON gold.item_id = g.item_id
LEFT JOIN nations ON nations.item_id = g.item_id
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
