-- What the datasets contain: dishes per origin country and per collection round.
CREATE OR REPLACE TABLE marts.dataset_summary AS
SELECT ds.dataset, ds.title, ds.is_sample, ds.home,
       (SELECT count(*) FROM core.dishes d WHERE d.dataset = ds.dataset) AS n_dishes,
       (SELECT count(DISTINCT o.country) FROM core.dish_origins o JOIN core.dishes d USING (dish_key)
         WHERE d.dataset = ds.dataset) AS n_origin_countries,
       (SELECT count(*) FROM core.items i JOIN core.tasks t USING (task_id) WHERE t.dataset = ds.dataset) AS n_items,
       (SELECT count(*) FROM core.generations g JOIN core.items i USING (item_id) JOIN core.tasks t USING (task_id)
         WHERE t.dataset = ds.dataset) AS n_generations,
       (SELECT count(DISTINCT g.model_id) FROM core.generations g JOIN core.items i USING (item_id)
         JOIN core.tasks t USING (task_id) WHERE t.dataset = ds.dataset) AS n_models,
       ds.subset
FROM core.datasets ds
ORDER BY ds.is_sample, ds.dataset;

CREATE OR REPLACE TABLE marts.dishes_per_origin AS
SELECT d.dataset, d.lang, o.country, c.name_en AS country_name, c.alpha3, c.post_soviet,
       count(*) AS n_dishes,
       count(*) FILTER (WHERE n.n_origins > 1) AS n_shared_dishes
FROM core.dish_origins o
JOIN core.dishes d USING (dish_key)
JOIN core.countries c USING (country)
JOIN (SELECT dish_key, count(*) AS n_origins FROM core.dish_origins GROUP BY dish_key) n USING (dish_key)
GROUP BY ALL
ORDER BY d.dataset, d.lang, n_dishes DESC, o.country;

CREATE OR REPLACE TABLE marts.dishes_per_source AS
SELECT dataset, lang, coalesce(source, '(none)') AS source, count(*) AS n_dishes
FROM core.dishes GROUP BY ALL ORDER BY dataset, lang, source;

CREATE OR REPLACE TABLE marts.ingest_report AS
SELECT dataset, file, kind, severity, count(*) AS n,
       min(line) AS first_line, arg_min(message, coalesce(line, 0)) AS example
FROM meta.ingest_reports
GROUP BY ALL
ORDER BY dataset, file, severity DESC, n DESC;

CREATE OR REPLACE TABLE marts.answers_per_model AS
SELECT t.dataset, i.task_id, g.model_id, g.lang, count(*) AS n_answers,
       count(*) FILTER (WHERE g.response IS NULL OR trim(g.response) = '') AS n_empty
FROM core.generations g JOIN core.items i USING (item_id) JOIN core.tasks t USING (task_id)
GROUP BY ALL ORDER BY t.dataset, i.task_id, g.model_id, g.lang;

CREATE OR REPLACE TABLE marts.published AS
SELECT current_timestamp AS published_at, max(version) AS schema_version FROM meta.schema_migrations;
