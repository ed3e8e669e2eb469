-- Multiple-choice items, how each choice answer was read, and the language of every answer.

-- The numbered options a multiple-choice prompt offers, as written in each prompt language.
CREATE TABLE core.item_options (
    item_id      TEXT NOT NULL,
    lang         TEXT NOT NULL,
    option       INTEGER NOT NULL,       -- the number the prompt gives it (WorldCuisines: 1-5)
    text         TEXT NOT NULL,
    PRIMARY KEY (item_id, lang, option)
);

-- The right option per prompt language (the dataset's multi_choice_answer).
CREATE TABLE core.item_gold_choices (
    item_id      TEXT NOT NULL,
    lang         TEXT NOT NULL,
    choice       INTEGER NOT NULL,
    PRIMARY KEY (item_id, lang)
);

-- A choice answer as our extractor reads it, and as the paper's own rule read it (written by the
-- score stage beside core.extractions, which holds country extractions).
CREATE TABLE core.choice_extractions (
    generation_id TEXT PRIMARY KEY,
    extractor    TEXT NOT NULL,          -- name@version
    status       TEXT NOT NULL CHECK (status IN ('ok', 'several', 'unparsed', 'refusal', 'empty')),
    choice       INTEGER,                -- the option picked (NULL unless status = ok)
    choices      INTEGER[] NOT NULL,     -- every option named, in order of mention
    paper_choice INTEGER,                -- what the paper's rule parsed as a number (NULL: it could not)
    paper_status TEXT NOT NULL CHECK (paper_status IN ('number', 'number_dot', 'option_text', 'unparsed')),
    extracted_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- The language every answer is written in, per segment (written by its own step, `languages`).
CREATE TABLE core.answer_languages (
    generation_id TEXT PRIMARY KEY,
    detector     TEXT NOT NULL,          -- name@version
    prompt_lang  TEXT NOT NULL,          -- the prompt's language as an ISO 639 code (ru_formal -> ru)
    answer_lang  TEXT,                   -- the language of most of the answer's letters; NULL when empty
    kind         TEXT NOT NULL CHECK (kind IN ('prompt', 'other', 'mixed', 'empty')),
    switched     BOOLEAN,                -- answer_lang differs from prompt_lang, or the answer is mixed
    segments     JSON NOT NULL,          -- [{"start", "end", "lang"}] over the answer text
    detected_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- Imported multiple-choice files carry the dataset's right option on each line.
ALTER TABLE raw.imported_responses ADD COLUMN task_id TEXT;
ALTER TABLE raw.imported_responses ADD COLUMN multi_choice_answer INTEGER;

-- What our country extractor reads in each gold answer string (WorldCuisines answer_<lang>): a gold
-- string that names another country, or none, explains why a substring rule misses right answers.
CREATE TABLE core.gold_text_checks (
    item_id      TEXT NOT NULL,
    lang         TEXT NOT NULL,
    extractor    TEXT NOT NULL,
    countries    TEXT[] NOT NULL,        -- countries the gold string names, in order
    status       TEXT NOT NULL CHECK (status IN ('names_gold', 'names_other', 'names_none')),
    PRIMARY KEY (item_id, lang)
);
