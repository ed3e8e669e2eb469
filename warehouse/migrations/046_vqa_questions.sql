-- VQA 2.0 in two languages (pipeline/datasets/vqa.py): what a question carries beyond core.items (the
-- question per language is in core.item_prompts, its ten answers in core.item_gold_text).
CREATE TABLE core.vqa_questions (
    item_id      TEXT NOT NULL,          -- core.items
    lang         TEXT NOT NULL,          -- the question's language (uk, en)
    question_id  TEXT NOT NULL,          -- VQA's question_id
    image_id     BIGINT NOT NULL,        -- COCO image id
    answer_type  TEXT,                   -- yes/no | number | other (VQA's)
    question     TEXT NOT NULL,
    PRIMARY KEY (item_id, lang)
);
