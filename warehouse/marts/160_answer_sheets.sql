-- What an answer file for each study lists (pipeline/answers/templates.py): the items a user's model must answer,
-- by the id that study's import format names them with (core.items.source_ref; BORSch: the dish ID in its
-- language's list, since its items are made by the import itself). Empty study pages offer it as a template.
CREATE OR REPLACE TABLE marts.answer_sheets AS
SELECT DISTINCT t.dataset, i.source_ref, NULL::TEXT AS lang
FROM core.items i JOIN core.tasks t USING (task_id)
WHERE t.dataset IN ('zno', 'multi30k', 'vqa', 'culturemix') AND i.source_ref IS NOT NULL
UNION ALL
SELECT 'borsch', d.dish_id, d.lang FROM core.dishes d WHERE d.dataset = 'borsch'
ORDER BY dataset, lang NULLS FIRST, try_cast(source_ref AS BIGINT) NULLS LAST, source_ref;
