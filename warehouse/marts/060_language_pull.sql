-- Does the prompt language pull answers toward its own country? For each prompt language, the
-- share of wrong answers naming a country where that language is spoken, against the same share
-- for English prompts to the same model (the base rate).
-- Rows say where their answers come from (LINKED_COLUMNS in warehouse/marts/__init__.py): a dataset's
-- own answers ('own'), or answers to a linked record of `answer_dataset` (marts.linked_origin_answers,
-- 'linked'; `task` is the asking dataset's), counted once per dataset and answer, wrong against
-- `gold`: the dish's own dataset's gold (right when it is right for any linked record of that
-- dataset) or the asking dataset's.
CREATE OR REPLACE TABLE marts.language_pull AS
WITH scored AS (
    SELECT s.dataset, s.task, s.model, s.lang, s.generation_id, e.countries, s.status, s.accuracy,
           'own' AS answers_from, s.dataset AS answer_dataset, s.dataset AS gold
    FROM marts.origin_scores s JOIN core.extractions e USING (generation_id)
    UNION ALL
    SELECT dataset, task, model, lang, generation_id, any_value(countries), any_value(status),
           max(accuracy_dish_gold), 'linked', any_value(answer_dataset), dataset
    FROM marts.linked_origin_answers WHERE accuracy_dish_gold IS NOT NULL
    GROUP BY dataset, task, model, lang, generation_id
    UNION ALL
    SELECT dataset, task, model, lang, generation_id, any_value(countries), any_value(status),
           any_value(accuracy_answer_gold), 'linked', any_value(answer_dataset), any_value(answer_dataset)
    FROM marts.linked_origin_answers WHERE accuracy_answer_gold IS NOT NULL
    GROUP BY dataset, task, model, lang, generation_id
), prompt_langs AS (
    -- WorldCuisines codes (ru_formal, zh_cn, nan_spoken...) -> CLDR language
    SELECT DISTINCT lang,
           CASE WHEN lang IN ('zh_cn') THEN 'zh' WHEN lang LIKE 'nan%' THEN 'nan' WHEN lang = 'tl' THEN 'fil'
                ELSE split_part(lang, '_', 1) END AS language
    FROM scored
), wrong AS (
    SELECT * FROM scored WHERE status = 'ok' AND accuracy = 0
), pulled AS (
    SELECT w.dataset, w.task, w.model, w.lang, w.answers_from, w.answer_dataset, w.gold, p.language,
           w.generation_id, bool_or(lc.country IS NOT NULL) AS names_language_country
    FROM wrong w
    JOIN prompt_langs p USING (lang)
    LEFT JOIN core.language_countries lc ON lc.lang = p.language AND list_contains(w.countries, lc.country)
    GROUP BY ALL
), per_lang AS (
    SELECT dataset, task, model, lang, answers_from, answer_dataset, gold, language, count(*) AS n_wrong,
           count(*) FILTER (names_language_country) AS n_pulled
    FROM pulled GROUP BY ALL
), base AS (
    -- the same language's countries, in the wrong answers to English prompts
    SELECT w.dataset, w.task, w.model, w.answers_from, w.answer_dataset, w.gold, p.language,
           count(DISTINCT w.generation_id) AS n_pulled_en
    FROM wrong w
    CROSS JOIN (SELECT DISTINCT language FROM prompt_langs) p
    JOIN core.language_countries lc ON lc.lang = p.language AND list_contains(w.countries, lc.country)
    WHERE w.lang = 'en'
    GROUP BY ALL
), english AS (
    SELECT dataset, task, model, answers_from, answer_dataset, gold, count(*) AS n_wrong_en
    FROM wrong WHERE lang = 'en' GROUP BY ALL
)
SELECT l.dataset, l.task, l.model, l.lang, l.language, l.n_wrong, l.n_pulled,
       l.n_pulled / nullif(l.n_wrong, 0) AS pull_share,
       coalesce(b.n_pulled_en, 0) / nullif(en.n_wrong_en, 0) AS base_share,
       (SELECT string_agg(country, ',' ORDER BY country) FROM core.language_countries lc
         WHERE lc.lang = l.language) AS language_countries,
       l.answers_from, l.answer_dataset, l.gold
FROM per_lang l
LEFT JOIN base b USING (dataset, task, model, answers_from, answer_dataset, gold, language)
LEFT JOIN english en USING (dataset, task, model, answers_from, answer_dataset, gold)
ORDER BY l.dataset, l.answers_from, l.gold, l.task, l.model, l.lang;

-- Dishes whose origins include both Russia and Ukraine: of the answers naming either, how many
-- name Russia, per prompt language (BORSch Fig. 4, over every prompt language we have). Linked
-- answers count once per dataset when they were asked about a record linked to such a dish of the
-- dataset (its gold decides which dishes are "of both").
CREATE OR REPLACE TABLE marts.ru_ua_pull AS
WITH shared AS (
    SELECT dish_key FROM core.dish_origins WHERE country = 'RU'
    INTERSECT SELECT dish_key FROM core.dish_origins WHERE country = 'UA'
), answers AS (
    SELECT s.dataset, s.task, s.model, s.lang, e.countries, 'own' AS answers_from, s.dataset AS answer_dataset,
           s.dataset AS gold
    FROM marts.origin_scores s
    JOIN core.extractions e USING (generation_id)
    WHERE s.dish_key IN (SELECT dish_key FROM shared)
    UNION ALL
    SELECT dataset, task, model, lang, any_value(countries), 'linked', any_value(answer_dataset), dataset
    FROM marts.linked_origin_answers
    WHERE dish_key IN (SELECT dish_key FROM shared)
    GROUP BY dataset, task, model, lang, generation_id
)
SELECT dataset, task, model, lang, count(*) AS n_answers,
       count(*) FILTER (list_contains(countries, 'RU')) AS n_ru,
       count(*) FILTER (list_contains(countries, 'UA')) AS n_ua,
       count(*) FILTER (list_contains(countries, 'RU'))
           / nullif(count(*) FILTER (list_contains(countries, 'RU') OR list_contains(countries, 'UA')), 0)
           AS ru_share,
       answers_from, answer_dataset, gold
FROM answers
GROUP BY dataset, task, model, lang, answers_from, answer_dataset, gold
ORDER BY dataset, answers_from, gold, task, model, lang;
