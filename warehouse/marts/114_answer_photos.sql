-- The photos an image question showed (core.item_images: what `generate` attached, or what an imported answer's
-- `images` named, issue 35), per item, with how many answers saw them and how many of those were imported: the
-- Dish page shows them beside the answers, whichever way the answers arrived. `task` and `item_id` as
-- marts.origin_scores writes them (the task's short name, the dataset's own question id); item_key is core's id.
CREATE OR REPLACE TABLE marts.answer_photos AS
WITH answered AS (
    SELECT item_id, count(*)::BIGINT AS n_answers, count(*) FILTER (origin = 'import')::BIGINT AS n_imported
    FROM core.generations GROUP BY item_id
)
SELECT i.dish_key, i.source_ref AS item_id, split_part(i.task_id, '.', 2) AS task, ii.position, ii.image_id,
       img.local_path AS image, img.url, coalesce(a.n_answers, 0) AS n_answers,
       coalesce(a.n_imported, 0) AS n_imported, ii.item_id AS item_key
FROM core.item_images ii
JOIN core.items i USING (item_id)
JOIN core.images img USING (image_id)
LEFT JOIN answered a USING (item_id)
WHERE i.dish_key IS NOT NULL
ORDER BY i.dish_key, ii.item_id, ii.position;
