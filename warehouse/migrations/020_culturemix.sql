-- CultureMix: images of a target food with a distractor (another food, a background, or both).
-- Written by the culturemix dataset module (ingest), `compose culturemix` and the culturemix
-- parse step; read by marts/100_culturemix.py.

-- Rows of the dataset's metadata tables exactly as read.
CREATE TABLE raw.culturemix_images (
    file         TEXT NOT NULL,          -- images.csv (sample) or sf.csv / mf.csv / ... (full dataset)
    row_number   INTEGER NOT NULL,       -- file line, header = 1
    record       JSON NOT NULL,          -- every column as written
    PRIMARY KEY (file, row_number)
);

-- Continent and a label point per country (Natural Earth), for cultural distance.
CREATE TABLE core.country_continents (
    country      TEXT PRIMARY KEY,
    continent    TEXT NOT NULL,
    lon          DOUBLE NOT NULL,
    lat          DOUBLE NOT NULL
);

-- One image of the dataset (or of `compose`), normalised: what it shows and what distracts.
CREATE TABLE core.culturemix_images (
    image        TEXT PRIMARY KEY,       -- path as written in the dataset's table (images/seed-01-mf-02-png.jpg)
    image_id     TEXT,                   -- core.images (content hash) when the file was readable
    origin       TEXT NOT NULL CHECK (origin IN ('dataset', 'composed')),
    subset       TEXT NOT NULL,          -- lineage | gallery | full | composed
    subtask      TEXT NOT NULL CHECK (subtask IN ('SF', 'MF', 'SFB', 'MFB', 'REAL')),
    scene        TEXT,                   -- street | landmark for backgrounds, when the dataset says
    distractor_kind TEXT NOT NULL CHECK (distractor_kind IN ('none', 'cultural', 'agnostic')),
    target_food_id   TEXT NOT NULL,      -- the dataset's id (the full dataset's food1_id)
    target_food_name TEXT NOT NULL,
    target_dish_key  TEXT,               -- worldcuisines:en:<food_id> when linked
    target_country   TEXT,               -- alpha-2
    distractor_food_name TEXT,
    distractor_dish_key  TEXT,
    distractor_country   TEXT,
    background_label     TEXT,           -- as written: Mexico1, Unitedstates2
    background_country   TEXT,           -- alpha-2 of the label
    background_variant   INTEGER,        -- the label's number
    distance_food        TEXT CHECK (distance_food IN ('same_country', 'same_continent', 'other_continent')),
    distance_background  TEXT CHECK (distance_background IN ('same_country', 'same_continent', 'other_continent')),
    distance     TEXT CHECK (distance IN ('same_country', 'same_continent', 'other_continent')),  -- nearest distractor
    km_food      DOUBLE,                 -- great-circle km between label points
    km_background DOUBLE,
    source_line  INTEGER,
    source_file  TEXT
);

-- Composites built by `compose culturemix`: the recipe (inputs with content hashes, operations,
-- model, seed) and the content hash of the result. The recipe hash is the cache key.
CREATE TABLE core.culturemix_compositions (
    recipe_sha256  TEXT PRIMARY KEY,
    image        TEXT NOT NULL,          -- path relative to the output folder
    path         TEXT NOT NULL,          -- absolute path of the file
    content_sha256 TEXT NOT NULL,
    subtask      TEXT NOT NULL,
    distractor_kind TEXT NOT NULL,
    target_dish_key TEXT NOT NULL,
    recipe       JSON NOT NULL,
    labels       JSON NOT NULL,          -- what it shows (a core.culturemix_images row without image/origin)
    model        TEXT,                   -- the image-edit model, when harmonised
    seed         BIGINT NOT NULL,
    width        INTEGER NOT NULL,
    height       INTEGER NOT NULL,
    created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- An answer split into the food it names (matched against WorldCuisines names by similarity).
-- The country comes from the shared countries extraction (core.extractions).
CREATE TABLE core.culturemix_food_parses (
    generation_id TEXT PRIMARY KEY,
    parser       TEXT NOT NULL,          -- name@version
    food_text    TEXT,                   -- the phrase read as the food name
    food_name    TEXT,                   -- the closest known name, when similar enough
    food_dish_key TEXT,
    similarity   DOUBLE,                 -- 0..1 between food_text and food_name
    target_similarity DOUBLE,            -- 0..1 between the answer's food and the target's name
    parsed_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
);
