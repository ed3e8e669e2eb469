-- Layers: raw (as ingested) -> core (normalised) -> marts (what the app reads, rebuilt at publish).
-- meta holds bookkeeping: applied migrations, runs, imported files and what ingestion reported.
CREATE SCHEMA IF NOT EXISTS raw;
CREATE SCHEMA IF NOT EXISTS core;
CREATE SCHEMA IF NOT EXISTS marts;
CREATE SCHEMA IF NOT EXISTS meta;

CREATE TABLE meta.schema_migrations (
    version     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    applied_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- One row per pipeline command that wrote something (ingest, import, generate, score, scan...).
CREATE TABLE meta.runs (
    run_id       TEXT PRIMARY KEY,
    command      TEXT NOT NULL,
    arguments    TEXT,
    started_at   TIMESTAMP NOT NULL,
    finished_at  TIMESTAMP,
    status       TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed'))
);

-- Every input file that was loaded, by content hash: re-loading the same bytes is a no-op.
CREATE TABLE meta.source_files (
    sha256       TEXT NOT NULL,
    kind         TEXT NOT NULL,          -- borsch_ru, worldcuisines_kb, worldcuisines_responses, ...
    scope        TEXT NOT NULL DEFAULT '',  -- e.g. the model a response file was imported for
    path         TEXT NOT NULL,
    rows_loaded  INTEGER NOT NULL,
    rows_rejected INTEGER NOT NULL DEFAULT 0,
    run_id       TEXT NOT NULL,
    loaded_at    TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (sha256, kind, scope)
);

-- Data quirks found while ingesting (reported, never hidden) and rejected input lines.
CREATE TABLE meta.ingest_reports (
    dataset      TEXT NOT NULL,
    file         TEXT NOT NULL,
    line         INTEGER,                -- spreadsheet row / file line, 1-based, header included
    kind         TEXT NOT NULL,          -- trailing_comma, duplicate_name, one_sided_parallel, ...
    message      TEXT NOT NULL,
    severity     TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'rejected')),
    raw_text     TEXT,                   -- the offending input, cut to 500 characters
    run_id       TEXT NOT NULL
);
