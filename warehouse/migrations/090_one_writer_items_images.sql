-- One writer per table (issue 47): core.items and core.images were appended to by three steps. Each writer now
-- owns a base table of its own, and the old names are views of their union, so every reader stays as it was:
--   core.ingested_items   the ingest step's items (every dataset module, pipeline/datasets)
--   core.translation_items  the answers step's: one per imagined description to translate
--                         (pipeline/imagine/translate.py; item_id '<dataset>.translate_description:<generation id>')
--   core.ingested_images  the ingest step's photos (datasets, `--images DIR` of an image task)
--   core.imagine_images   the imagine step's: its drawn images and the real photos `imagine --images` registers
-- Ids stay unique across each union: writers skip an id the union already holds (a photo is named by its content
-- hash, whoever registered it first keeps it) and warehouse/checks/001_integrity.sql refuses a duplicate.
-- A later migration that adds a column to one of the base tables adds it to its twin and recreates the view.
ALTER TABLE core.items RENAME TO ingested_items;
ALTER TABLE core.images RENAME TO ingested_images;

CREATE TABLE core.translation_items (
    item_id      TEXT PRIMARY KEY,       -- '<task_id>:<description generation id>'
    task_id      TEXT NOT NULL,
    dish_key     TEXT,
    source_ref   TEXT NOT NULL,          -- the description's generation id
    subset       TEXT NOT NULL DEFAULT 'full',
    variant      TEXT,
    UNIQUE (task_id, source_ref)
);

CREATE TABLE core.imagine_images (
    image_id     TEXT PRIMARY KEY,       -- first 32 hex digits of the file's sha256
    kind         TEXT NOT NULL CHECK (kind IN ('real', 'generated', 'composite')),
    dish_key     TEXT,
    position     INTEGER,
    url          TEXT,
    local_path   TEXT,
    sha256       TEXT,
    license      TEXT,
    width        INTEGER,
    height       INTEGER
);

-- What the answers and imagine steps wrote before: moved to their own tables (real photos an `imagine --images`
-- registered cannot be told from ingest's and stay with ingest, which now owns them).
INSERT INTO core.translation_items
SELECT * FROM core.ingested_items WHERE task_id LIKE '%.translate_description';
DELETE FROM core.ingested_items WHERE task_id LIKE '%.translate_description';
INSERT INTO core.imagine_images SELECT * FROM core.ingested_images WHERE kind = 'generated';
DELETE FROM core.ingested_images WHERE kind = 'generated';

CREATE VIEW core.items AS
SELECT * FROM core.ingested_items UNION ALL BY NAME SELECT * FROM core.translation_items;
CREATE VIEW core.images AS
SELECT * FROM core.ingested_images UNION ALL BY NAME SELECT * FROM core.imagine_images;
