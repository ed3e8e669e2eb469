-- BORSch's own rule's scores (§4.1: every country the answer names, core.extractions.paper_countries) are now the
-- score stage's, stored in core.scores as paper_jaccard, paper_dice, paper_overlap and paper_exact
-- (pipeline/score/metrics.py, declared by every task the countries extractor reads, as the mart computed them for
-- every such answer), no longer computed in marts/030_origin_scores.sql.
-- Answers scored before keep their extraction (the extractor did not change), so the stage would not score them
-- again: their four scores are written here once, with the equations the mart used until now (§J, equations 1-3 on
-- the distinct named countries P and the gold countries T; both empty -> 1, one empty -> 0; exact: P = T).
INSERT INTO core.scores (generation_id, metric, value)
WITH gold AS (
    SELECT item_id, list(DISTINCT country) AS t FROM core.item_gold_countries GROUP BY item_id
), sets AS (
    SELECT e.generation_id, list_distinct(e.paper_countries) AS p, coalesce(gold.t, []) AS t
    FROM core.extractions e
    JOIN core.generations g USING (generation_id)
    LEFT JOIN gold USING (item_id)
    WHERE e.paper_countries IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM core.scores s WHERE s.generation_id = e.generation_id
                                                     AND s.metric IN ('paper_jaccard', 'paper_dice', 'paper_overlap',
                                                                      'paper_exact'))
), sizes AS (
    SELECT generation_id, len(p) AS np, len(t) AS nt, len(list_intersect(p, t)) AS inter,
           list_sort(p) = list_sort(t) AS same
    FROM sets
)
SELECT generation_id, metric, value
FROM sizes,
LATERAL (VALUES
    ('paper_jaccard', CASE WHEN np + nt = 0 THEN 1.0 ELSE inter / (np + nt - inter) END),
    ('paper_dice', CASE WHEN np + nt = 0 THEN 1.0 ELSE 2 * inter / (np + nt) END),
    ('paper_overlap', CASE WHEN np + nt = 0 THEN 1.0 WHEN np = 0 OR nt = 0 THEN 0.0 ELSE inter / least(np, nt) END),
    ('paper_exact', same::INTEGER::DOUBLE)
) AS v(metric, value);
