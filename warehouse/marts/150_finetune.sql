-- Fine-tuning runs (pipeline/finetune, `python -m pipeline finetune`) and the before/after view: the
-- base model's and each tuned model's scored answers on the run's TEST items only (never the items it
-- was trained on), paired by item, prompt language and variant. Both models are evaluated like any
-- other (`generate`); a cell says how many answers it rests on and is empty, never zero, without any.

CREATE OR REPLACE TABLE marts.finetune_runs AS
SELECT r.finetune_id, r.recipe, r.source, r.base_model, r.method,
       CAST(r.hyperparameters ->> '$.learning_rate' AS DOUBLE) AS learning_rate,
       CAST(r.hyperparameters ->> '$.batch_size' AS INTEGER) AS batch_size,
       CAST(r.hyperparameters ->> '$.gradient_accumulation' AS INTEGER) AS gradient_accumulation,
       r.hyperparameters ->> '$.optimizer' AS optimizer,
       CAST(r.hyperparameters -> '$.epochs' AS INTEGER[]) AS epochs,
       CAST(r.data ->> '$.train' AS INTEGER) AS n_train,
       CAST(r.data ->> '$.test' AS INTEGER) AS n_test,
       r.data ->> '$.split' AS split_rule,
       CAST(r.data -> '$.tasks' AS TEXT[]) AS tasks,
       r.data ->> '$.lang' AS lang,
       r.train_steps, r.first_loss, r.last_loss, r.status, r.output_dir, r.resumed_from,
       r.hyperparameters, r.data, r.data_sha256, r.seconds, r.started_at, r.finished_at, r.base_tiny_random
FROM core.finetune_runs r
ORDER BY r.started_at, r.finetune_id;

CREATE OR REPLACE TABLE marts.finetune_losses AS
SELECT finetune_id, step, epoch, loss FROM core.finetune_losses ORDER BY finetune_id, step;

CREATE OR REPLACE TABLE marts.finetune_models AS
SELECT finetune_id, epoch, model_path, weights_hash FROM core.finetune_models ORDER BY finetune_id, epoch;

CREATE OR REPLACE TABLE marts.finetune_comparison AS
WITH tuned AS (
    SELECT r.finetune_id, r.recipe, r.source, r.base_model, m.epoch, m.model_path
    FROM core.finetune_runs r JOIN core.finetune_models m USING (finetune_id)
    WHERE r.status = 'done'
),
test AS (
    SELECT DISTINCT finetune_id, item_id, lang FROM core.finetune_examples WHERE split = 'test'
),
scored AS (  -- one value per model, item, language, variant and metric (reruns averaged), of the test items only
    -- (what `before` and `after` read: averaging every score of the warehouse cost 1.7 s of each publish)
    SELECT g.model_id, g.item_id, g.lang, g.variant, i.task_id, s.metric, avg(s.value) AS value
    FROM core.generations g
    JOIN core.items i USING (item_id)
    JOIN core.scores s USING (generation_id)
    WHERE s.value IS NOT NULL AND g.item_id IN (SELECT item_id FROM test)
    GROUP BY ALL
),
before AS (
    SELECT t.finetune_id, s.* FROM test t
    JOIN (SELECT DISTINCT finetune_id, base_model FROM tuned) b USING (finetune_id)
    JOIN scored s ON s.model_id = b.base_model AND s.item_id = t.item_id AND s.lang = t.lang
),
after AS (
    SELECT t.finetune_id, tuned.epoch, s.* FROM test t
    JOIN tuned USING (finetune_id)
    JOIN scored s ON s.model_id = tuned.model_path AND s.item_id = t.item_id AND s.lang = t.lang
),
cells AS (
    SELECT tuned.finetune_id, tuned.epoch, k.task_id, k.lang, k.metric
    FROM tuned JOIN (SELECT DISTINCT finetune_id, task_id, lang, metric FROM before
                     UNION SELECT DISTINCT finetune_id, task_id, lang, metric FROM after) k USING (finetune_id)
)
SELECT c.finetune_id, tuned.recipe, tuned.source, tuned.base_model, c.epoch, tuned.model_path AS tuned_model,
       c.task_id AS task, c.lang, c.metric,
       (SELECT count(*) FROM test t WHERE t.finetune_id = c.finetune_id AND t.lang = c.lang) AS n_test_items,
       (SELECT count(*) FROM before b WHERE b.finetune_id = c.finetune_id AND b.task_id = c.task_id
            AND b.lang = c.lang AND b.metric = c.metric) AS n_before,
       (SELECT avg(b.value) FROM before b WHERE b.finetune_id = c.finetune_id AND b.task_id = c.task_id
            AND b.lang = c.lang AND b.metric = c.metric) AS before,
       (SELECT count(*) FROM after a WHERE a.finetune_id = c.finetune_id AND a.epoch = c.epoch
            AND a.task_id = c.task_id AND a.lang = c.lang AND a.metric = c.metric) AS n_after,
       (SELECT avg(a.value) FROM after a WHERE a.finetune_id = c.finetune_id AND a.epoch = c.epoch
            AND a.task_id = c.task_id AND a.lang = c.lang AND a.metric = c.metric) AS after,
       p.n_pairs, p.before_paired, p.after_paired, p.after_paired - p.before_paired AS change
FROM cells c
JOIN tuned ON tuned.finetune_id = c.finetune_id AND tuned.epoch = c.epoch
LEFT JOIN (  -- the same item, language and variant answered by both
    SELECT a.finetune_id, a.epoch, a.task_id, a.lang, a.metric, count(*) AS n_pairs,
           avg(b.value) AS before_paired, avg(a.value) AS after_paired
    FROM after a JOIN before b ON b.finetune_id = a.finetune_id AND b.item_id = a.item_id AND b.lang = a.lang
                               AND b.variant = a.variant AND b.metric = a.metric
    GROUP BY ALL
) p ON p.finetune_id = c.finetune_id AND p.epoch = c.epoch AND p.task_id = c.task_id AND p.lang = c.lang
   AND p.metric = c.metric
ORDER BY c.finetune_id, c.task_id, c.lang, c.metric, c.epoch;
