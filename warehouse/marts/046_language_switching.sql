-- marts.language_switching: every answer with the language it is written in and whether it left the
-- prompt's language. First eight columns: the `export language-switching` contract.
CREATE OR REPLACE TABLE marts.language_switching AS
WITH accuracy AS (
    SELECT generation_id,
           max(value) FILTER (metric IN ('accuracy', 'choice_accuracy', 'name_match')) AS accuracy,
           max(value) FILTER (metric IN ('paper_substring', 'paper_choice_accuracy')) AS paper_accuracy
    FROM core.scores GROUP BY generation_id
)
SELECT t.dataset, g.model_id AS model, split_part(t.task_id, '.', 2) AS task, g.lang, i.source_ref AS item_id,
       a.answer_lang, a.switched, a.segments::VARCHAR AS segments,
       a.prompt_lang, a.kind, g.response, s.accuracy, s.paper_accuracy, t.task_id, g.generation_id, a.detector
FROM core.answer_languages a
JOIN core.generations g USING (generation_id)
JOIN core.items i USING (item_id)
JOIN core.tasks t USING (task_id)
LEFT JOIN accuracy s USING (generation_id)
ORDER BY t.dataset, model, task, g.lang, try_cast(i.source_ref AS BIGINT) NULLS LAST, i.source_ref;

-- Per model x prompt language: how often answers stay in the prompt's language, where they go, and
-- accuracy with and without a switch (answers with no letters, such as "2", are left out).
CREATE OR REPLACE TABLE marts.language_switching_summary AS
WITH judged AS (SELECT * FROM marts.language_switching WHERE kind <> 'empty'),
targets AS (
    SELECT dataset, task, model, lang, answer_lang, count(*) AS n
    FROM judged WHERE switched GROUP BY ALL
),
top_targets AS (
    SELECT dataset, task, model, lang,
           string_agg(answer_lang || ' ' || n, ', ' ORDER BY n DESC, answer_lang) AS switched_to
    FROM targets GROUP BY ALL
)
SELECT j.dataset, j.task, j.model, j.lang, any_value(j.prompt_lang) AS prompt_lang, count(*) AS n,
       avg((j.kind = 'prompt')::INTEGER) AS share_in_prompt_lang,
       avg((j.kind = 'mixed')::INTEGER) AS share_mixed,
       avg((j.kind = 'other')::INTEGER) AS share_other,
       any_value(tt.switched_to) AS switched_to,
       avg(j.accuracy) FILTER (j.switched) AS accuracy_switched,
       avg(j.accuracy) FILTER (NOT j.switched) AS accuracy_not_switched,
       count(*) FILTER (j.switched) AS n_switched
FROM judged j
LEFT JOIN top_targets tt USING (dataset, task, model, lang)
GROUP BY j.dataset, j.task, j.model, j.lang
ORDER BY j.dataset, j.task, j.model, j.lang;
