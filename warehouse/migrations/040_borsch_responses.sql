-- BORSch answers produced elsewhere (`import-responses --format borsch`, issue 35): each accepted line
-- exactly as read; the answers themselves go to core.generations like every other import.
CREATE TABLE raw.borsch_responses (
    file_sha256  TEXT NOT NULL,
    line_number  INTEGER NOT NULL,          -- file line (CSV: header = 1)
    model        TEXT NOT NULL,
    lang         TEXT NOT NULL,             -- ru | uk: the prompt language, and which file dish_id is from
    task_id      TEXT NOT NULL,             -- borsch.<task>
    variant      TEXT NOT NULL,             -- the prompt variant (1-5)
    dish_id      TEXT NOT NULL,             -- the ID in that language's file (RU_DATA.xlsx / UK_DATA.xlsx)
    response     TEXT,                      -- as written (NULL: no answer)
    images       TEXT[],                    -- the photos the model was shown, as the file names them
    PRIMARY KEY (file_sha256, line_number)
);
