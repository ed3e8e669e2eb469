-- ZNO-Vision's exam benchmark (pipeline/datasets/zno.py): what an exam question carries beyond
-- core.items (split in core.items.subset, options in core.item_options, the right letter in
-- core.item_gold_choices): its subject, exam year and wording.
CREATE TABLE core.exam_items (
    item_id      TEXT PRIMARY KEY,       -- core.items
    dataset      TEXT NOT NULL,          -- zno
    split        TEXT NOT NULL,          -- dev | validation | test (as the dataset names it)
    subject      TEXT NOT NULL,          -- as the dataset writes it (Mathematics, History, ...)
    year         INTEGER,                -- exam year when given
    question     TEXT NOT NULL,
    n_options    INTEGER NOT NULL,
    letters      TEXT NOT NULL,          -- the option letters in order ("АБВГД")
    n_images     INTEGER NOT NULL
);

-- The paper's own rule for ZNO (the LAST bracketed match counts, ZNO-Vision §3) reads answers into
-- statuses WorldCuisines' rule does not have: `bracket` (the last [..] holds one of the item's
-- letters), `bracket_other` (it holds something else) beside `unparsed` (no brackets). DuckDB cannot
-- alter a CHECK, so the table is rebuilt with the same columns and rows.
CREATE TABLE core.choice_extractions_045 AS SELECT * FROM core.choice_extractions;
DROP TABLE core.choice_extractions;
CREATE TABLE core.choice_extractions (
    generation_id TEXT PRIMARY KEY,
    extractor    TEXT NOT NULL,          -- name@version
    status       TEXT NOT NULL CHECK (status IN ('ok', 'several', 'unparsed', 'refusal', 'empty')),
    choice       INTEGER,                -- the option picked (NULL unless status = ok)
    choices      INTEGER[] NOT NULL,     -- every option named, in order of mention
    paper_choice INTEGER,                -- what the paper's rule parsed as an option (NULL: it could not)
    paper_status TEXT NOT NULL CHECK (paper_status IN ('number', 'number_dot', 'option_text', 'unparsed',
                                                       'bracket', 'bracket_other')),
    extracted_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
INSERT INTO core.choice_extractions SELECT * FROM core.choice_extractions_045;
DROP TABLE core.choice_extractions_045;
