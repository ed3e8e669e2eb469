-- VQA 2.0 in two languages (pipeline/datasets/vqa.py): every answer with its VQA accuracy (the official
-- script's, and ours always normalised), and per model the paper's Table 3: accuracy in percent on the
-- Ukrainian and the English questions, and the gap, also on the questions the model answered in both.
CREATE OR REPLACE TABLE marts.vqa_answers AS
SELECT g.model_id AS model, g.lang, i.source_ref AS question_id, q.answer_type, q.question, g.response,
       max(s.value) FILTER (s.metric = 'vqa_accuracy') AS vqa_accuracy,
       max(s.value) FILTER (s.metric = 'vqa_accuracy_atlas') AS vqa_accuracy_atlas,
       t.text AS annotator_answers, q.image_id, g.generation_id
FROM core.generations g
JOIN core.items i USING (item_id)
JOIN core.vqa_questions q ON q.item_id = g.item_id AND q.lang = g.lang
JOIN core.item_gold_text t ON t.item_id = g.item_id AND t.lang = g.lang
JOIN core.scores s ON s.generation_id = g.generation_id
GROUP BY g.model_id, g.lang, i.source_ref, q.answer_type, q.question, g.response, t.text, q.image_id, g.generation_id
ORDER BY model, g.lang, try_cast(i.source_ref AS BIGINT) NULLS LAST, i.source_ref;

CREATE OR REPLACE TABLE marts.vqa_languages AS
WITH per_lang AS (
    SELECT model, lang, count(*)::BIGINT AS n, 100 * avg(vqa_accuracy) AS accuracy,
           100 * avg(vqa_accuracy_atlas) AS accuracy_atlas
    FROM marts.vqa_answers WHERE vqa_accuracy IS NOT NULL GROUP BY ALL
), paired AS (
    SELECT u.model, count(*)::BIGINT AS n_paired, 100 * avg(u.vqa_accuracy) AS paired_uk,
           100 * avg(e.vqa_accuracy) AS paired_en
    FROM marts.vqa_answers u JOIN marts.vqa_answers e
      ON e.model = u.model AND e.question_id = u.question_id AND e.lang = 'en'
    WHERE u.lang = 'uk' GROUP BY ALL
), models AS (SELECT DISTINCT model FROM per_lang)
SELECT m.model, uk.n AS n_uk, uk.accuracy AS vqa_uk, en.n AS n_en, en.accuracy AS vqa_en,
       uk.accuracy - en.accuracy AS gap, p.n_paired, p.paired_uk, p.paired_en, p.paired_uk - p.paired_en AS paired_gap,
       uk.accuracy_atlas AS vqa_uk_atlas, en.accuracy_atlas AS vqa_en_atlas
FROM models m
LEFT JOIN per_lang uk ON uk.model = m.model AND uk.lang = 'uk'
LEFT JOIN per_lang en ON en.model = m.model AND en.lang = 'en'
LEFT JOIN paired p ON p.model = m.model
ORDER BY vqa_uk DESC NULLS LAST, m.model;
