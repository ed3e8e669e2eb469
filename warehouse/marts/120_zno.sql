-- ZNO-Vision's exam benchmark (pipeline/datasets/zno.py): every answer with both readings, accuracy
-- per model x split x subject by both methods with 95% Wilson intervals (the paper's Tables 1, 5, 6),
-- and the baselines computed from the items (§4: always the first option; and random guessing).
CREATE OR REPLACE TEMP MACRO zno_wilson(k, n, sign) AS
    CASE WHEN n > 0 THEN
        (k / n + 1.959963984540054 ^ 2 / (2 * n)
         + sign * 1.959963984540054 * sqrt(k / n * (1 - k / n) / n + 1.959963984540054 ^ 2 / (4 * n * n)))
        / (1 + 1.959963984540054 ^ 2 / n)
    END;

-- One row per answer. First columns: what the page's drill-down shows.
CREATE OR REPLACE TABLE marts.zno_answers AS
SELECT g.model_id AS model, e.split, e.subject, i.source_ref AS item_id, e.year, e.question,
       substr(e.letters, gc.choice, 1) AS gold_letter,
       c.status, CASE WHEN c.choice BETWEEN 1 AND e.n_options THEN substr(e.letters, c.choice, 1) END AS atlas_letter,
       c.paper_status,
       CASE WHEN c.paper_choice BETWEEN 1 AND e.n_options THEN substr(e.letters, c.paper_choice, 1) END AS paper_letter,
       coalesce(c.choice = gc.choice, false) AS atlas_correct,
       coalesce(c.paper_choice = gc.choice, false) AS paper_correct,
       g.response, img.local_path AS image, e.n_images, e.letters, g.generation_id, i.item_id AS warehouse_item_id
FROM core.choice_extractions c
JOIN core.generations g USING (generation_id)
JOIN core.items i ON i.item_id = g.item_id
JOIN core.exam_items e ON e.item_id = g.item_id
JOIN core.item_gold_choices gc ON gc.item_id = g.item_id AND gc.lang = g.lang
LEFT JOIN core.item_images ii ON ii.item_id = g.item_id AND ii.position = 0
LEFT JOIN core.images img ON img.image_id = ii.image_id
ORDER BY model, e.split, e.subject, i.source_ref;

-- Accuracy (0-1, as the paper's tables) per method x model x split x subject, and over all subjects
-- ('(all subjects)': Table 1). `paper`: the last bracketed letter (§3); `atlas`: our choice extractor.
CREATE OR REPLACE TABLE marts.zno_accuracy AS
WITH long AS (
    SELECT 'paper' AS method, model, split, subject, paper_correct AS correct FROM marts.zno_answers
    UNION ALL
    SELECT 'atlas' AS method, model, split, subject, atlas_correct AS correct FROM marts.zno_answers
), counted AS (
    SELECT method, model, split, coalesce(subject, '(all subjects)') AS subject,
           count(*)::BIGINT AS n, sum(correct::INTEGER)::BIGINT AS correct
    FROM long GROUP BY GROUPING SETS ((method, model, split, subject), (method, model, split))
)
SELECT method, model, split, subject, n, correct, correct / n AS accuracy,
       zno_wilson(correct, n, -1) AS low, zno_wilson(correct, n, 1) AS high
FROM counted
ORDER BY method, model, split, subject = '(all subjects)' DESC, subject;

-- Baselines from the items alone: the first option (§4, "we select the first choice") with its Wilson
-- interval, and random guessing (the mean of 1 / number of options).
CREATE OR REPLACE TABLE marts.zno_baselines AS
WITH items AS (
    SELECT e.split, e.subject, (gc.choice = 1)::INTEGER AS first_right, 1.0 / e.n_options AS random_chance
    FROM core.exam_items e JOIN core.item_gold_choices gc ON gc.item_id = e.item_id AND gc.lang = 'uk'
), counted AS (
    SELECT split, coalesce(subject, '(all subjects)') AS subject, count(*)::BIGINT AS n,
           sum(first_right)::BIGINT AS first_choice_correct, avg(random_chance) AS random
    FROM items GROUP BY GROUPING SETS ((split, subject), (split))
)
SELECT split, subject, n, first_choice_correct / n AS first_choice, random,
       zno_wilson(first_choice_correct, n, -1) AS first_choice_low,
       zno_wilson(first_choice_correct, n, 1) AS first_choice_high, first_choice_correct
FROM counted
ORDER BY split, subject = '(all subjects)' DESC, subject;

-- The questions by split, subject and exam year (the paper's Figure 1 and Tables 7-8: what was asked).
CREATE OR REPLACE TABLE marts.zno_questions AS
SELECT split, subject, year, count(*)::BIGINT AS n, sum(n_images)::BIGINT AS images
FROM core.exam_items
GROUP BY ALL
ORDER BY split, subject, year NULLS LAST;

-- Tables 7-8: visual-only questions (the text only in the image) per subject (Table 7) and per split (Table 8),
-- from the flag where the release carries it: n_flagged questions say either way, n_visual_only say yes, and
-- share_visual_only = n_visual_only / n_flagged (NULL when no question of the group is flagged).
CREATE OR REPLACE TABLE marts.zno_visual_only AS
SELECT CASE WHEN grouping(subject) = 0 THEN 'subject' ELSE 'split' END AS grouped_by,
       coalesce(subject, split) AS name, count(*)::BIGINT AS n,
       count(visual_only)::BIGINT AS n_flagged, count(*) FILTER (visual_only)::BIGINT AS n_visual_only,
       count(*) FILTER (visual_only) / nullif(count(visual_only), 0) AS share_visual_only
FROM core.exam_items
GROUP BY GROUPING SETS ((subject), (split))
ORDER BY grouped_by, name;
