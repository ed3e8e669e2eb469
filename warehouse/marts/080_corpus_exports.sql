-- Corpus analytics exports (contracts: see pipeline/export/tables.py). Corpora of one language are summed.

-- One row per (corpus language, dish): documents naming the dish, with one of its true origins, with any country.
CREATE OR REPLACE TABLE marts.cooccurrence AS
SELECT
    c.lang,
    d.dataset,
    d.dish_id,
    d.name,
    sum(k.docs_with_dish)::BIGINT AS docs_with_dish,
    sum(k.docs_with_true_country)::BIGINT AS docs_with_true_country,
    sum(k.docs_with_any_country)::BIGINT AS docs_with_any_country,
    k.dish_key,
    string_agg(DISTINCT k.corpus_id, ',' ORDER BY k.corpus_id) AS corpus_id,
    CASE WHEN sum(k.docs_with_any_country) > 0
         THEN sum(k.docs_with_true_country) / sum(k.docs_with_any_country) END AS ratio,
    d.display_name,
    (SELECT list(o.country ORDER BY o.position) FROM core.dish_origins o WHERE o.dish_key = k.dish_key) AS origins,
    sum(p.n_docs)::BIGINT AS corpus_docs,
    -- BORSch §4.3's ratio as published (issue 35): true-origin mentions over all country mentions of the dish
    sum(k.true_country_mentions)::BIGINT AS true_country_mentions,
    sum(k.any_country_mentions)::BIGINT AS any_country_mentions,
    CASE WHEN sum(k.any_country_mentions) > 0
         THEN sum(k.true_country_mentions) / sum(k.any_country_mentions) END AS mention_ratio
FROM core.corpus_dish_counts k
JOIN core.corpora c USING (corpus_id)
JOIN core.dishes d USING (dish_key)
LEFT JOIN (SELECT corpus_id, n_docs FROM core.corpora) p USING (corpus_id)
GROUP BY c.lang, d.dataset, d.dish_id, d.name, k.dish_key, d.display_name
ORDER BY c.lang, d.dataset, k.dish_key;

-- One row per (corpus language, parallel RU/UK dish): documents using the Ukrainian name vs the Russian name.
CREATE OR REPLACE TABLE marts.codemix AS
SELECT
    coalesce(uk.dish_id, ru.dish_id) AS dish_id,
    p.uk_name,
    p.ru_name,
    sum(n.docs_uk_name)::BIGINT AS docs_uk_name,
    sum(n.docs_ru_name)::BIGINT AS docs_ru_name,
    p.pair_id,
    c.lang,
    string_agg(DISTINCT n.corpus_id, ',' ORDER BY n.corpus_id) AS corpus_id,
    (sum(n.docs_uk_name) - sum(n.docs_ru_name))::BIGINT AS difference,
    lower(replace(p.uk_name, 'ё', 'е')) = lower(replace(p.ru_name, 'ё', 'е')) AS identical_names,
    p.uk_dish_key,
    p.ru_dish_key,
    p.origins
FROM core.corpus_name_counts n
JOIN core.corpora c USING (corpus_id)
JOIN core.parallel_dishes p USING (pair_id)
LEFT JOIN core.dishes uk ON uk.dish_key = p.uk_dish_key
LEFT JOIN core.dishes ru ON ru.dish_key = p.ru_dish_key
GROUP BY ALL
ORDER BY c.lang, p.pair_id;
