-- raw: input rows exactly as read (strings), with file and row for traceability.

CREATE TABLE raw.borsch_dishes (
    lang         TEXT NOT NULL CHECK (lang IN ('ru', 'uk')),
    file         TEXT NOT NULL,
    row_number   INTEGER NOT NULL,       -- spreadsheet row, header = 1
    id           TEXT,
    dish         TEXT,
    countries    TEXT,
    source       TEXT,
    PRIMARY KEY (lang, row_number)
);

CREATE TABLE raw.borsch_parallel (
    file         TEXT NOT NULL,
    row_number   INTEGER PRIMARY KEY,
    ru_name      TEXT,
    uk_name      TEXT,
    ids          TEXT,                   -- "ru_id,uk_id"; one side may be empty
    countries    TEXT
);

CREATE TABLE raw.worldcuisines_kb (
    row_number   INTEGER PRIMARY KEY,    -- 0-based data row = WorldCuisines food_id
    name         TEXT,
    alias        TEXT,
    coarse_categories TEXT,
    fine_categories   TEXT,
    cuisines     TEXT,
    associated_cuisines TEXT,
    area         TEXT,
    countries    TEXT,
    regions      TEXT[],
    description  TEXT,
    image_urls   TEXT[],
    image_licenses TEXT[]
);

CREATE TABLE raw.worldcuisines_names (
    row_number   INTEGER PRIMARY KEY,
    name         TEXT,
    wikipedia_link TEXT,
    json_aliases TEXT
);

CREATE TABLE raw.worldcuisines_task2 (
    qa_id        TEXT PRIMARY KEY,
    food_id      TEXT,
    prompt_id    TEXT,
    prompt_type  TEXT,
    answer       TEXT,
    image_url    TEXT,
    countries    TEXT,
    prompts      JSON,                   -- {language code: question}
    answers      JSON                    -- {language code: gold answer cell as written}
);

-- Answers produced elsewhere, line by line, before any cleaning.
CREATE TABLE raw.imported_responses (
    file_sha256  TEXT NOT NULL,
    line_number  INTEGER NOT NULL,
    model        TEXT NOT NULL,
    qa_id        TEXT,
    lang         TEXT,
    prediction   TEXT,
    answer       TEXT,
    PRIMARY KEY (file_sha256, model, line_number)
);
