-- Requests a generation run could not make or the model could not answer, with the reason.
-- They are not in core.generations, so a rerun tries them again.
CREATE TABLE core.generation_failures (
    run_id       TEXT NOT NULL,
    task_id      TEXT NOT NULL,
    item_id      TEXT,
    lang         TEXT NOT NULL,
    variant      TEXT,
    stage        TEXT NOT NULL CHECK (stage IN ('input', 'model')),  -- input: missing/unreadable image
    reason       TEXT NOT NULL,
    failed_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
);
