-- Surzhyk statistics of BORSch §4.2 (issue 35), beside the code-mixing bins of 090_corpus_analyses.sql.
--
-- marts.surzhyk_names: how close the Russian and Ukrainian names of the parallel pairs are (the paper: "only
-- differ by an average edit distance of 2.3 characters"; 66.5% of the pairs have distinct names). The edit
-- distance is Levenshtein's on the lower-cased, trimmed names, over every pair and over the distinct ones.
CREATE OR REPLACE TABLE marts.surzhyk_names AS
WITH pairs AS (
    SELECT dataset, levenshtein(lower(trim(ru_name)), lower(trim(uk_name))) AS distance
    FROM core.parallel_dishes
)
SELECT dataset, count(*)::BIGINT AS n_pairs, count(*) FILTER (distance > 0)::BIGINT AS n_distinct_names,
       count(*) FILTER (distance > 0) / count(*) AS share_distinct_names,
       avg(distance) AS mean_edit_distance,
       avg(distance) FILTER (distance > 0) AS mean_edit_distance_distinct
FROM pairs
GROUP BY dataset
ORDER BY dataset;

-- marts.surzhyk_corpora: per scanned corpus, the share of the parallel dishes' occurrences (pairs with distinct
-- names) written with the other language's name: Russian names in a Ukrainian corpus, Ukrainian names in a
-- Russian one (the paper, mC4: 41% and 17%). Documents count once per name, as the code-mixing bins count them.
CREATE OR REPLACE TABLE marts.surzhyk_corpora AS
SELECT n.corpus_id, k.lang AS corpus_lang, count(*)::BIGINT AS n_pairs,
       sum(CASE WHEN k.lang = 'ru' THEN n.docs_ru_name ELSE n.docs_uk_name END)::BIGINT AS docs_own_name,
       sum(CASE WHEN k.lang = 'ru' THEN n.docs_uk_name ELSE n.docs_ru_name END)::BIGINT AS docs_other_name,
       sum(CASE WHEN k.lang = 'ru' THEN n.docs_uk_name ELSE n.docs_ru_name END)
           / nullif(sum(n.docs_uk_name + n.docs_ru_name), 0) AS code_mixed_share
FROM core.corpus_name_counts n
JOIN core.corpora k USING (corpus_id)
JOIN core.parallel_dishes p USING (pair_id)
WHERE lower(trim(p.ru_name)) <> lower(trim(p.uk_name)) AND k.lang IN ('ru', 'uk')
GROUP BY n.corpus_id, k.lang
ORDER BY n.corpus_id;
