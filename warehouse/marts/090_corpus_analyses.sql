-- Corpus analyses (BORSch Figs. 5-7): are model errors about dish origins explained by what the
-- pretraining corpora say? Built from the corpus scanner's core.corpus_* tables; every mart is
-- empty (not missing) when no corpus has been scanned.
--
-- Bins are fixed per corpus (not per model), so lines of different models share their x axis:
--   co-occurrence count: x = log10(1 + docs_with_true_country); 10 equal-width bins on x between 0
--     and the corpus's largest x: bin = least(floor(10 * x / max_x), 9) + 1 (1..10; the maximum falls
--     in bin 10; all dishes in bin 1 when every count is 0). Bin b spans counts
--     [10^((b-1)·max_x/10) − 1, 10^(b·max_x/10) − 1]. E.g. counts 0, 9, 99, 999 -> bins 1, 4, 7, 10.
--   co-occurrence ratio: r = docs_with_true_country / docs_with_any_country, 10 equal-width bins on
--     0..1: bin = least(floor(10 * r), 9) + 1 (r = 1 in bin 10). Dishes never seen next to any
--     country (docs_with_any_country = 0) have no ratio and are left out of the ratio bins.
--   mention ratio (BORSch §4.3 as published, issue 35): m = true_country_mentions / any_country_mentions, the
--     dish's (document, country) pairs whose country is a true origin over all of them; 10 log-spaced bins
--     between the corpus's smallest positive ratio (lo = its log10) and 1: bin = least(floor(10 · (log10 m − lo)
--     / −lo), 9) + 1; m = 0 in bin 1, every m in bin 10 when lo = 0. Bin b spans [10^(lo + (b−1)·(−lo)/10),
--     10^(lo + b·(−lo)/10)] (bin 1 from 0). Kept beside `ratio` (ours: documents, linear bins).
--   code mixing: d = docs_uk_name − docs_ru_name, y = sign(d)·log10(1 + |d|); 9 equal-width bins
--     symmetric around 0 over [−M, M], M = the corpus's largest |y|:
--     bin = least(floor(9 · (y + M) / (2M)), 8) + 1 (1..9; bin 5 holds d = 0; all in bin 5 when M = 0).
--     Bin b spans y in [−M + (b−1)·2M/9, −M + b·2M/9]; the d bounds are sign(y)·(10^|y| − 1).
--     Pairs whose Russian and Ukrainian names are the same word (case-insensitive) are excluded
--     and counted in marts.codemix_excluded.
-- Means are over answers (every prompt variant is one answer); 95% intervals are the normal
-- approximation mean ± 1.96·sd/√n over those answers, clipped to the scores' range [0, 1] (NULL for a
-- single answer). n, sum and sum of
-- squares are kept so queries can pool rows (e.g. over prompt languages) and recompute both.

-- Shared by the bin marts below: the 95% interval of a mean from its n, sum and sum of squares (NULL for one
-- answer), clipped to [0, 1], and the first 30 names of a bin for hover text.
CREATE OR REPLACE TEMP MACRO mean_half_width(total, total_sq, n) AS
    CASE WHEN n > 1 THEN 1.96 * sqrt(greatest(total_sq - total * total / n, 0) / (n - 1) / n) END;
CREATE OR REPLACE TEMP MACRO mean_low(total, total_sq, n) AS
    CASE WHEN n > 1 THEN greatest(total / n - mean_half_width(total, total_sq, n), 0) END;
CREATE OR REPLACE TEMP MACRO mean_high(total, total_sq, n) AS
    CASE WHEN n > 1 THEN least(total / n + mean_half_width(total, total_sq, n), 1) END;
CREATE OR REPLACE TEMP MACRO names_preview(names) AS
    array_to_string(names[1:30], ', ') || CASE WHEN len(names) > 30 THEN ' … (+' || (len(names) - 30) || ' more)'
                                               ELSE '' END;

-- One row per counted dish of each corpus, with its bins.
CREATE OR REPLACE TABLE marts.cooccurrence_dishes AS
WITH counts AS (
    SELECT c.corpus_id, k.lang AS corpus_lang, c.dish_key, d.dataset, d.display_name AS name,
           c.docs_with_dish, c.docs_with_true_country, c.docs_with_any_country,
           log10(1 + c.docs_with_true_country) AS log_count,
           c.docs_with_true_country / nullif(c.docs_with_any_country, 0) AS ratio,
           c.true_country_mentions, c.any_country_mentions,
           c.true_country_mentions / nullif(c.any_country_mentions, 0) AS mention_ratio,
           (SELECT string_agg(o.country, ',' ORDER BY o.position, o.country) FROM core.dish_origins o
             WHERE o.dish_key = c.dish_key) AS origins
    FROM core.corpus_dish_counts c
    JOIN core.corpora k USING (corpus_id)
    JOIN core.dishes d USING (dish_key)
), scaled AS (
    SELECT *, max(log_count) OVER (PARTITION BY corpus_id) AS max_log_count,
           min(log10(mention_ratio)) FILTER (mention_ratio > 0) OVER (PARTITION BY corpus_id) AS min_log_mention_ratio
    FROM counts
)
SELECT corpus_id, corpus_lang, dish_key, dataset, name, origins, docs_with_dish, docs_with_true_country,
       docs_with_any_country, ratio, log_count, max_log_count,
       CASE WHEN max_log_count > 0 THEN least(floor(10 * log_count / max_log_count), 9)::INTEGER + 1 ELSE 1 END
           AS count_bin,
       CASE WHEN ratio IS NOT NULL THEN least(floor(10 * ratio), 9)::INTEGER + 1 END AS ratio_bin,
       true_country_mentions, any_country_mentions, mention_ratio, min_log_mention_ratio,
       CASE WHEN mention_ratio IS NULL THEN NULL
            WHEN mention_ratio = 0 THEN 1
            WHEN min_log_mention_ratio = 0 THEN 10
            ELSE least(floor(10 * (log10(mention_ratio) - min_log_mention_ratio) / -min_log_mention_ratio), 9)::INTEGER + 1
       END AS mention_ratio_bin
FROM scaled
ORDER BY corpus_id, docs_with_true_country DESC, dish_key;

-- Mean origin-QA Jaccard per corpus x measure x bin x dataset x task x model x prompt language, and
-- where the answers come from (LINKED_COLUMNS in warehouse/marts/__init__.py): a dataset's own answers
-- ('own', scored against its gold), or answers borrowed from a linked record of another dataset
-- (marts.linked_origin_answers: 'linked', with `answer_dataset` the dataset that asked and `task` its
-- task), each twice: scored against the dish's own dataset's gold and against the asking dataset's.
CREATE OR REPLACE TABLE marts.cooccurrence_bins AS
WITH binned AS (
    SELECT corpus_id, corpus_lang, dish_key, name, docs_with_true_country AS value, 'count' AS measure,
           count_bin AS bin,
           pow(10, (count_bin - 1) * max_log_count / 10) - 1 AS bin_low,
           pow(10, count_bin * max_log_count / 10) - 1 AS bin_high
    FROM marts.cooccurrence_dishes
    UNION ALL
    SELECT corpus_id, corpus_lang, dish_key, name, ratio, 'ratio', ratio_bin, (ratio_bin - 1) / 10, ratio_bin / 10
    FROM marts.cooccurrence_dishes WHERE ratio_bin IS NOT NULL
    UNION ALL
    SELECT corpus_id, corpus_lang, dish_key, name, mention_ratio, 'mention_ratio', mention_ratio_bin,
           CASE WHEN mention_ratio_bin = 1 THEN 0
                ELSE pow(10, coalesce(min_log_mention_ratio, 0) * (1 - (mention_ratio_bin - 1) / 10)) END,
           pow(10, coalesce(min_log_mention_ratio, 0) * (1 - mention_ratio_bin / 10))
    FROM marts.cooccurrence_dishes WHERE mention_ratio_bin IS NOT NULL
), answers AS (
    SELECT b.*, s.dataset, s.task, s.model, s.lang, s.jaccard,
           'own' AS answers_from, s.dataset AS answer_dataset, s.dataset AS gold
    FROM binned b
    JOIN marts.origin_scores s USING (dish_key)
    WHERE s.task IN ('origin_qa', 'origin_vqa') AND s.jaccard IS NOT NULL
    UNION ALL
    SELECT b.*, l.dataset, l.task, l.model, l.lang, l.jaccard_dish_gold, 'linked', l.answer_dataset, l.dataset
    FROM binned b
    JOIN marts.linked_origin_answers l USING (dish_key)
    WHERE l.task IN ('origin_qa', 'origin_vqa') AND l.jaccard_dish_gold IS NOT NULL
    UNION ALL
    SELECT b.*, l.dataset, l.task, l.model, l.lang, l.jaccard_answer_gold, 'linked', l.answer_dataset,
           l.answer_dataset
    FROM binned b
    JOIN marts.linked_origin_answers l USING (dish_key)
    WHERE l.task IN ('origin_qa', 'origin_vqa') AND l.jaccard_answer_gold IS NOT NULL
), per_dish AS (
    SELECT corpus_id, corpus_lang, measure, bin, dataset, task, model, lang, answers_from, answer_dataset, gold,
           dish_key, any_value(name) AS name,
           any_value(value) AS value, any_value(bin_low) AS bin_low, any_value(bin_high) AS bin_high,
           count(*) AS n, sum(jaccard) AS s, sum(jaccard * jaccard) AS ss
    FROM answers GROUP BY ALL
), per_bin AS (
    SELECT corpus_id, corpus_lang, measure, bin, dataset, task, model, lang, answers_from, answer_dataset, gold,
           any_value(bin_low) AS bin_low, any_value(bin_high) AS bin_high,
           count(*) AS n_dishes, sum(n) AS n_answers, sum(s) AS jaccard_sum, sum(ss) AS jaccard_sumsq,
           list(name ORDER BY value DESC, name) AS names
    FROM per_dish GROUP BY ALL
)
SELECT corpus_id, corpus_lang, measure, bin, bin_low, bin_high, dataset, task, model, lang,
       n_dishes, n_answers::BIGINT AS n_answers, jaccard_sum / n_answers AS jaccard,
       mean_low(jaccard_sum, jaccard_sumsq, n_answers) AS jaccard_low,
       mean_high(jaccard_sum, jaccard_sumsq, n_answers) AS jaccard_high,
       jaccard_sum, jaccard_sumsq, names_preview(names) AS dishes, answers_from, answer_dataset, gold
FROM per_bin
ORDER BY corpus_id, measure, dataset, answers_from, gold, task, model, lang, bin;

-- Dish-name VQA answers (name_match: within one edit of a gold name) are in marts.name_scores,
-- built with the other dish-name marts in 085_dish_identity.sql.

-- One row per parallel RU/UK pair with different names and name counts in a corpus, with its bin.
CREATE OR REPLACE TABLE marts.codemix_pairs AS
WITH pairs AS (
    SELECT n.corpus_id, k.lang AS corpus_lang, p.pair_id, p.dataset, p.ru_dish_key, p.uk_dish_key,
           p.ru_name, p.uk_name, array_to_string(p.origins, ',') AS origins, n.docs_uk_name, n.docs_ru_name,
           n.docs_uk_name - n.docs_ru_name AS d,
           sign(n.docs_uk_name - n.docs_ru_name) * log10(1 + abs(n.docs_uk_name - n.docs_ru_name)) AS y
    FROM core.corpus_name_counts n
    JOIN core.corpora k USING (corpus_id)
    JOIN core.parallel_dishes p USING (pair_id)
    WHERE lower(trim(p.ru_name)) <> lower(trim(p.uk_name))
), scaled AS (
    SELECT *, max(abs(y)) OVER (PARTITION BY corpus_id) AS max_abs_y FROM pairs
), binned AS (
    SELECT *,
           CASE WHEN max_abs_y > 0 THEN least(floor(9 * (y + max_abs_y) / (2 * max_abs_y)), 8)::INTEGER + 1
                ELSE 5 END AS bin
    FROM scaled
), edges AS (
    SELECT *, -max_abs_y + (bin - 1) * 2 * max_abs_y / 9 AS y_low, -max_abs_y + bin * 2 * max_abs_y / 9 AS y_high
    FROM binned
)
SELECT corpus_id, corpus_lang, pair_id, dataset, ru_dish_key, uk_dish_key, ru_name, uk_name, origins,
       docs_uk_name, docs_ru_name, d, y, max_abs_y, bin, y_low, y_high,
       sign(y_low) * (pow(10, abs(y_low)) - 1) AS d_low, sign(y_high) * (pow(10, abs(y_high)) - 1) AS d_high
FROM edges
ORDER BY corpus_id, d DESC, pair_id;

-- Parallel pairs left out of the code-mixing bins, per corpus with name counts.
CREATE OR REPLACE TABLE marts.codemix_excluded AS
WITH corpora AS (
    SELECT DISTINCT n.corpus_id, k.lang AS corpus_lang
    FROM core.corpus_name_counts n JOIN core.corpora k USING (corpus_id)
)
SELECT c.corpus_id, c.corpus_lang, count(p.pair_id) AS n_parallel,
       count(p.pair_id) FILTER (lower(trim(p.ru_name)) = lower(trim(p.uk_name))) AS n_identical,
       count(p.pair_id) FILTER (lower(trim(p.ru_name)) <> lower(trim(p.uk_name)) AND n.pair_id IS NOT NULL)
           AS n_binned,
       count(p.pair_id) FILTER (lower(trim(p.ru_name)) <> lower(trim(p.uk_name)) AND n.pair_id IS NULL)
           AS n_not_counted
FROM corpora c
CROSS JOIN core.parallel_dishes p
LEFT JOIN core.corpus_name_counts n ON n.corpus_id = c.corpus_id AND n.pair_id = p.pair_id
GROUP BY c.corpus_id, c.corpus_lang
ORDER BY c.corpus_id;

-- Per bin: mean origin-QA Jaccard (answers about the pair's Ukrainian dish; metric 'jaccard') and
-- mean dish-name VQA match, per dataset x task x model x prompt language: as published in Fig. 5
-- ('name_contains_lev1': §4.2 and Appendix I, "if the result contains the dish name within one edit
-- distance", an exact match averaged over the five prompts, so over answers as the means below are) and ours
-- ('name_match': a whole extracted candidate within one edit of a name); and
-- where the answers come from (LINKED_COLUMNS): 'own', or 'linked' answers asked about a record of
-- `answer_dataset` linked to either dish of the pair (each answer once per pair), their Jaccard against
-- the pair's gold (the dish's dataset) and against the asking dataset's, their name match against the
-- asking dataset's names of the dish (the only names a linked dish-name answer was scored with).
CREATE OR REPLACE TABLE marts.codemix_bins AS
WITH linked AS (
    SELECT DISTINCT ON (p.corpus_id, p.pair_id, l.generation_id)
           p.corpus_id, p.corpus_lang, p.bin, p.d_low, p.d_high, p.pair_id, p.d, p.uk_name, p.dataset,
           l.answer_dataset, l.task, l.model, l.lang, l.countries, l.jaccard_answer_gold,
           coalesce((SELECT list(o.country ORDER BY o.country) FROM core.dish_origins o
                     WHERE o.dish_key = p.uk_dish_key), list_sort(string_split(p.origins, ','))) AS pair_gold
    FROM marts.codemix_pairs p
    JOIN marts.linked_origin_answers l ON l.dish_key IN (p.uk_dish_key, p.ru_dish_key)
    WHERE l.task IN ('origin_qa', 'origin_vqa')
    ORDER BY p.corpus_id, p.pair_id, l.generation_id, l.dish_key = p.uk_dish_key DESC
), linked_names AS (
    SELECT DISTINCT ON (p.corpus_id, p.pair_id, a.generation_id)
           p.corpus_id, p.corpus_lang, p.bin, p.d_low, p.d_high, p.pair_id, p.d, p.uk_name, p.dataset,
           a.dataset AS answer_dataset, a.task, a.model, a.lang, a.score_own_gold AS value
    FROM marts.codemix_pairs p
    JOIN marts.linked_answers a ON a.dish_key IN (p.uk_dish_key, p.ru_dish_key)
    WHERE a.kind = 'name' AND a.task = 'dish_name_vqa' AND a.score_own_gold IS NOT NULL
    ORDER BY p.corpus_id, p.pair_id, a.generation_id
), answers AS (
    SELECT p.corpus_id, p.corpus_lang, p.bin, p.d_low, p.d_high, p.pair_id, p.d, p.uk_name, 'jaccard' AS metric,
           s.dataset, s.task, s.model, s.lang, s.jaccard AS value,
           'own' AS answers_from, s.dataset AS answer_dataset, s.dataset AS gold
    FROM marts.codemix_pairs p
    JOIN marts.origin_scores s ON s.dish_key = p.uk_dish_key
    WHERE s.task IN ('origin_qa', 'origin_vqa') AND s.jaccard IS NOT NULL
    UNION ALL
    SELECT p.corpus_id, p.corpus_lang, p.bin, p.d_low, p.d_high, p.pair_id, p.d, p.uk_name, 'name_match',
           s.dataset, s.task, s.model, s.lang, s.name_match, 'own', s.dataset, s.dataset
    FROM marts.codemix_pairs p
    JOIN marts.name_scores s ON s.dish_key = p.uk_dish_key
    WHERE s.task = 'dish_name_vqa' AND s.name_match IS NOT NULL
    UNION ALL  -- Fig. 5 as published (§4.2, Appendix I): the answer contains a gold name within one edit
    SELECT p.corpus_id, p.corpus_lang, p.bin, p.d_low, p.d_high, p.pair_id, p.d, p.uk_name, 'name_contains_lev1',
           s.dataset, s.task, s.model, s.lang, c.value, 'own', s.dataset, s.dataset
    FROM marts.codemix_pairs p
    JOIN marts.name_scores s ON s.dish_key = p.uk_dish_key
    JOIN core.scores c ON c.generation_id = s.generation_id AND c.metric = 'name_contains_lev1'
    WHERE s.task = 'dish_name_vqa'
    UNION ALL
    SELECT corpus_id, corpus_lang, bin, d_low, d_high, pair_id, d, uk_name, 'jaccard', dataset, task, model, lang,
           set_jaccard(countries, pair_gold),  -- the score stage's Jaccard (warehouse/set_measures.py)
           'linked', answer_dataset, dataset
    FROM linked WHERE len(coalesce(pair_gold, [])) > 0
    UNION ALL
    SELECT corpus_id, corpus_lang, bin, d_low, d_high, pair_id, d, uk_name, 'jaccard', dataset, task, model, lang,
           jaccard_answer_gold, 'linked', answer_dataset, answer_dataset
    FROM linked WHERE jaccard_answer_gold IS NOT NULL
    UNION ALL
    SELECT corpus_id, corpus_lang, bin, d_low, d_high, pair_id, d, uk_name, 'name_match', dataset, task, model,
           lang, value, 'linked', answer_dataset, answer_dataset
    FROM linked_names
), per_pair AS (
    SELECT corpus_id, corpus_lang, metric, bin, dataset, task, model, lang, answers_from, answer_dataset, gold,
           pair_id,
           any_value(d) AS d, any_value(uk_name) AS name, any_value(d_low) AS d_low, any_value(d_high) AS d_high,
           count(*) AS n, sum(value) AS s, sum(value * value) AS ss
    FROM answers GROUP BY ALL
), per_bin AS (
    SELECT corpus_id, corpus_lang, metric, bin, dataset, task, model, lang, answers_from, answer_dataset, gold,
           any_value(d_low) AS d_low, any_value(d_high) AS d_high,
           count(*) AS n_pairs, sum(n) AS n_answers, sum(s) AS value_sum, sum(ss) AS value_sumsq,
           list(name ORDER BY d DESC, name) AS names
    FROM per_pair GROUP BY ALL
)
SELECT corpus_id, corpus_lang, metric, bin, d_low, d_high, dataset, task, model, lang, n_pairs,
       n_answers::BIGINT AS n_answers, value_sum / n_answers AS mean,
       mean_low(value_sum, value_sumsq, n_answers) AS mean_low,
       mean_high(value_sum, value_sumsq, n_answers) AS mean_high,
       value_sum, value_sumsq, names_preview(names) AS dishes, answers_from, answer_dataset, gold
FROM per_bin
ORDER BY corpus_id, metric, dataset, answers_from, gold, task, model, lang, bin;

-- Sampled sentences where a dish appears next to a country that is NOT one of its origins, for
-- human review (BORSch Fig. 7). sample_id is a stable hash of what the sample says.
CREATE OR REPLACE TABLE marts.corpus_samples AS
SELECT left(sha256(concat_ws(chr(31), s.corpus_id, s.dish_key, s.country, s.sentence)), 16) AS sample_id,
       s.corpus_id, k.lang, s.dish_key, d.dataset, d.display_name AS name, s.country,
       coalesce(c.name_en, s.country) AS country_name,
       (SELECT string_agg(o.country, ',' ORDER BY o.position, o.country) FROM core.dish_origins o
         WHERE o.dish_key = s.dish_key) AS origins,
       s.sentence, s.shard_path, s.doc_index
FROM core.corpus_samples s
JOIN core.corpora k USING (corpus_id)
JOIN core.dishes d USING (dish_key)
LEFT JOIN core.countries c ON c.country = s.country
WHERE s.country NOT IN (SELECT o.country FROM core.dish_origins o WHERE o.dish_key = s.dish_key)
QUALIFY row_number() OVER (PARTITION BY sample_id ORDER BY s.shard_path, s.doc_index) = 1
ORDER BY k.lang, s.corpus_id, d.display_name, s.dish_key, s.country, sample_id;

-- The scanned corpora, with what each contributed to the analyses above.
CREATE OR REPLACE TABLE marts.corpora AS
SELECT k.corpus_id, k.lang, k.source, k.text_field, k.n_docs, k.n_bytes,
       (SELECT count(*) FROM core.corpus_shards s WHERE s.corpus_id = k.corpus_id) AS n_shards,
       (SELECT count(*) FROM core.corpus_shards s WHERE s.corpus_id = k.corpus_id AND s.status = 'corrupt')
           AS n_corrupt_shards,
       (SELECT count(*) FROM marts.cooccurrence_dishes c WHERE c.corpus_id = k.corpus_id) AS n_dishes_counted,
       (SELECT string_agg(DISTINCT c.dataset, ',' ORDER BY c.dataset) FROM marts.cooccurrence_dishes c
         WHERE c.corpus_id = k.corpus_id) AS datasets,
       (SELECT count(*) FROM marts.codemix_pairs p WHERE p.corpus_id = k.corpus_id) AS n_pairs_binned,
       (SELECT count(*) FROM marts.corpus_samples s WHERE s.corpus_id = k.corpus_id) AS n_samples
FROM core.corpora k
ORDER BY k.lang, k.corpus_id;
