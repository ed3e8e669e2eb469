-- Does the prompt language pull answers toward its own country? For each prompt language, the
-- share of wrong answers naming a country where that language is spoken, against the same share
-- for English prompts to the same model (the base rate).
CREATE OR REPLACE TABLE marts.language_pull AS
WITH prompt_langs AS (
    -- WorldCuisines codes (ru_formal, zh_cn, nan_spoken...) -> CLDR language
    SELECT DISTINCT lang,
           CASE WHEN lang IN ('zh_cn') THEN 'zh' WHEN lang LIKE 'nan%' THEN 'nan' WHEN lang = 'tl' THEN 'fil'
                ELSE split_part(lang, '_', 1) END AS language
    FROM marts.origin_scores
), wrong AS (
    SELECT s.dataset, s.task, s.model, s.lang, s.generation_id, e.countries
    FROM marts.origin_scores s JOIN core.extractions e USING (generation_id)
    WHERE s.status = 'ok' AND s.accuracy = 0
), pulled AS (
    SELECT w.dataset, w.task, w.model, w.lang, p.language, w.generation_id,
           bool_or(lc.country IS NOT NULL) AS names_language_country
    FROM wrong w
    JOIN prompt_langs p USING (lang)
    LEFT JOIN core.language_countries lc ON lc.lang = p.language AND list_contains(w.countries, lc.country)
    GROUP BY ALL
), per_lang AS (
    SELECT dataset, task, model, lang, language, count(*) AS n_wrong,
           count(*) FILTER (names_language_country) AS n_pulled
    FROM pulled GROUP BY ALL
), base AS (
    -- the same language's countries, in the wrong answers to English prompts
    SELECT w.dataset, w.task, w.model, p.language, count(DISTINCT w.generation_id) AS n_pulled_en
    FROM wrong w
    CROSS JOIN (SELECT DISTINCT language FROM prompt_langs) p
    JOIN core.language_countries lc ON lc.lang = p.language AND list_contains(w.countries, lc.country)
    WHERE w.lang = 'en'
    GROUP BY ALL
), english AS (
    SELECT dataset, task, model, count(*) AS n_wrong_en FROM wrong WHERE lang = 'en' GROUP BY ALL
)
SELECT l.dataset, l.task, l.model, l.lang, l.language, l.n_wrong, l.n_pulled,
       l.n_pulled / nullif(l.n_wrong, 0) AS pull_share,
       coalesce(b.n_pulled_en, 0) / nullif(en.n_wrong_en, 0) AS base_share,
       (SELECT string_agg(country, ',' ORDER BY country) FROM core.language_countries lc
         WHERE lc.lang = l.language) AS language_countries
FROM per_lang l
LEFT JOIN base b USING (dataset, task, model, language)
LEFT JOIN english en USING (dataset, task, model)
ORDER BY l.dataset, l.task, l.model, l.lang;

-- Dishes whose origins include both Russia and Ukraine: of the answers naming either, how many
-- name Russia, per prompt language (BORSch Fig. 4, over every prompt language we have).
CREATE OR REPLACE TABLE marts.ru_ua_pull AS
WITH shared AS (
    SELECT dish_key FROM core.dish_origins WHERE country = 'RU'
    INTERSECT SELECT dish_key FROM core.dish_origins WHERE country = 'UA'
)
SELECT s.dataset, s.task, s.model, s.lang, count(*) AS n_answers,
       count(*) FILTER (list_contains(e.countries, 'RU')) AS n_ru,
       count(*) FILTER (list_contains(e.countries, 'UA')) AS n_ua,
       count(*) FILTER (list_contains(e.countries, 'RU'))
           / nullif(count(*) FILTER (list_contains(e.countries, 'RU') OR list_contains(e.countries, 'UA')), 0)
           AS ru_share
FROM marts.origin_scores s
JOIN core.extractions e USING (generation_id)
WHERE s.dish_key IN (SELECT dish_key FROM shared)
GROUP BY s.dataset, s.task, s.model, s.lang
ORDER BY s.dataset, s.task, s.model, s.lang;
