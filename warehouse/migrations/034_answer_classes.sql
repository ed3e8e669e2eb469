-- UACUISINE's taste and temperature answers read as classes once, by the score stage (issue 34): the mart
-- marts.uacuisine_classes aggregates these rows in SQL instead of reading raw answer text at publish time.
CREATE TABLE core.answer_classes (
    generation_id TEXT PRIMARY KEY,
    question      TEXT NOT NULL,   -- taste | temperature
    predicted     TEXT,            -- the one class the answer names, NULL when it names none or both
    gold          TEXT,            -- the gold answer's class
    reader        TEXT NOT NULL    -- classes@version: a new version reads every answer again
);
