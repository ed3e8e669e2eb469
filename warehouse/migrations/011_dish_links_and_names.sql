-- One dish across datasets (links), WorldCuisines task 1 as published, and how each dish-name
-- answer was matched.

-- A link between two datasets' records of one dish, one row per direction. Written by one step
-- (`link`, pipeline/datasets/linking.py) from core.dishes, core.dish_names and core.parallel_dishes.
CREATE TABLE core.dish_links (
    dish_key        TEXT NOT NULL,
    linked_dish_key TEXT NOT NULL,
    method          TEXT NOT NULL CHECK (method IN ('parallel', 'exact', 'alias', 'translit', 'fuzzy')),
    score           DOUBLE NOT NULL CHECK (score > 0 AND score <= 1),
    name            TEXT,                -- the name of dish_key that matched
    linked_name     TEXT,                -- the name of linked_dish_key it matched
    name_lang       TEXT,
    linked_name_lang TEXT,
    evidence        JSON NOT NULL,       -- every method that linked the pair, with its best score
    linker          TEXT NOT NULL,       -- name@version
    PRIMARY KEY (dish_key, linked_dish_key),
    CHECK (dish_key <> linked_dish_key)
);

-- WorldCuisines task 1 ("what is this dish called?"), the small set, line by line per language.
CREATE TABLE raw.worldcuisines_task1 (
    qa_id        TEXT NOT NULL,
    lang         TEXT NOT NULL,
    food_id      TEXT,
    prompt_id    TEXT,
    prompt_type  TEXT,
    open_ended_prompt   TEXT,
    multi_choice_prompt TEXT,
    options      TEXT[],                 -- the five numbered options of the multiple-choice prompt
    multi_choice_answer INTEGER,
    answer       TEXT,
    image_url    TEXT,
    lang_status  TEXT,
    PRIMARY KEY (qa_id, lang)
);

-- How a dish-name answer was matched (written by the score stage beside core.scores, which holds
-- the 0/1 and 0-1 values of each rule).
CREATE TABLE core.name_matches (
    generation_id TEXT PRIMARY KEY,
    matched_name TEXT,                   -- the accepted name of the gold dish the answer matched
    matched_lang TEXT,
    matched_rule TEXT,                   -- the strictest rule that matched: exact | lev1 | stem | similarity | paper
    named_dish_key TEXT,                 -- the knowledge-base dish the answer names (gold or another)
    named_name   TEXT,                   -- the name of named_dish_key found in the answer
    candidates   TEXT[] NOT NULL         -- the names read from the answer, in order
);
