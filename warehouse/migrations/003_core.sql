-- core: normalised entities every later stage reads. Country codes are ISO 3166-1 alpha-2.

CREATE TABLE core.datasets (
    dataset      TEXT PRIMARY KEY,       -- borsch, worldcuisines, sample, uacuisine, culturemix
    title        TEXT NOT NULL,
    home         TEXT,                   -- public home (repository + commit) or 'embedded'
    license      TEXT,
    is_sample    BOOLEAN NOT NULL DEFAULT false
);

CREATE TABLE core.countries (
    country      TEXT PRIMARY KEY CHECK (length(country) = 2),
    alpha3       TEXT NOT NULL,
    numeric_code TEXT NOT NULL,
    name_en      TEXT NOT NULL,
    name_ru      TEXT,
    name_uk      TEXT,
    post_soviet  BOOLEAN NOT NULL
);

-- A dish as one dataset records it. BORSch RU and UK entries are separate dishes (own ids).
CREATE TABLE core.dishes (
    dish_key     TEXT PRIMARY KEY,       -- '<dataset>:<lang>:<dish_id>'
    dataset      TEXT NOT NULL,
    lang         TEXT NOT NULL,          -- language the dataset names the dish in
    dish_id      TEXT NOT NULL,          -- the dataset's own id, as given (BORSch ID, WorldCuisines food_id)
    name         TEXT NOT NULL,          -- as given
    display_name TEXT NOT NULL,          -- cased for people ("ПЕРЕЦ ФАРШИРОВАННЫЙ" -> "Перец фаршированный")
    source       TEXT,                   -- BORSch collection round: wikidata, bootstrap-0/1/2
    description  TEXT,
    category     TEXT,
    UNIQUE (dataset, lang, dish_id)
);

-- Every name of a dish, per language (the dataset's own plus aliases from name tables).
CREATE TABLE core.dish_names (
    dish_key     TEXT NOT NULL,
    lang         TEXT NOT NULL,
    name         TEXT NOT NULL,
    display_name TEXT NOT NULL,
    norm_name    TEXT NOT NULL,          -- lower case, ё->е, one apostrophe form: for matching
    is_primary   BOOLEAN NOT NULL,
    PRIMARY KEY (dish_key, lang, norm_name)
);

CREATE TABLE core.dish_origins (
    dish_key     TEXT NOT NULL,
    country      TEXT NOT NULL,
    position     INTEGER NOT NULL,       -- order as listed by the dataset
    PRIMARY KEY (dish_key, country)
);

-- Broad regions a dataset gives next to countries (WorldCuisines UN sub-regions).
CREATE TABLE core.dish_regions (
    dish_key     TEXT NOT NULL,
    region       TEXT NOT NULL,
    PRIMARY KEY (dish_key, region)
);

-- BORSch parallel RU<->UK mapping; one side may be missing.
CREATE TABLE core.parallel_dishes (
    pair_id      INTEGER PRIMARY KEY,    -- spreadsheet row of PARALLEL_RU_UK.xlsx
    dataset      TEXT NOT NULL,
    ru_dish_key  TEXT,
    uk_dish_key  TEXT,
    ru_name      TEXT NOT NULL,
    uk_name      TEXT NOT NULL,
    origins      TEXT[] NOT NULL,
    CHECK (ru_dish_key IS NOT NULL OR uk_dish_key IS NOT NULL)
);

-- Real photos, generated images (text-to-image) and composites (CultureMix) alike.
CREATE TABLE core.images (
    image_id     TEXT PRIMARY KEY,       -- sha256 of the bytes when known, else of the URL
    kind         TEXT NOT NULL CHECK (kind IN ('real', 'generated', 'composite')),
    dish_key     TEXT,
    position     INTEGER,                -- order among the dish's images
    url          TEXT,
    local_path   TEXT,
    sha256       TEXT,                   -- content hash, part of generation cache keys
    license      TEXT,
    width        INTEGER,
    height       INTEGER
);

CREATE TABLE core.generated_images (
    image_id     TEXT PRIMARY KEY,
    dish_key     TEXT NOT NULL,
    generator    TEXT NOT NULL,          -- e.g. FLUX.1-schnell
    prompt       TEXT NOT NULL,          -- English description the image was drawn from
    seed         BIGINT,
    description_generation_id TEXT       -- the dish_description answer it came from
);

CREATE TABLE core.composite_images (
    image_id     TEXT PRIMARY KEY,
    subtask      TEXT NOT NULL CHECK (subtask IN ('SF', 'MF', 'SFB', 'MFB', 'REAL')),
    target_dish_key     TEXT NOT NULL,
    distractor_dish_key TEXT,
    background_country  TEXT,
    cultural_distance   TEXT CHECK (cultural_distance IN ('same_country', 'same_continent', 'other'))
);

CREATE TABLE core.image_embeddings (
    image_id     TEXT NOT NULL,
    encoder      TEXT NOT NULL,          -- e.g. dinov2-base [CLS]
    embedding    FLOAT[] NOT NULL,
    PRIMARY KEY (image_id, encoder)
);

CREATE TABLE core.image_similarities (
    generated_image_id TEXT NOT NULL,
    real_image_id      TEXT NOT NULL,
    encoder      TEXT NOT NULL,
    cosine       DOUBLE NOT NULL,
    PRIMARY KEY (generated_image_id, real_image_id, encoder)
);

-- A task is declared once in pipeline/tasks; this table mirrors the declarations that were used.
CREATE TABLE core.tasks (
    task_id      TEXT PRIMARY KEY,       -- '<dataset>.<task>', e.g. borsch.origin_qa
    dataset      TEXT NOT NULL,
    modality     TEXT NOT NULL CHECK (modality IN ('text', 'image')),
    answer_kind  TEXT NOT NULL CHECK (answer_kind IN ('countries', 'dish_name', 'text', 'choice')),
    extractor    TEXT NOT NULL,
    metrics      TEXT[] NOT NULL,
    description  TEXT
);

-- One question about one dish (prompt variants and languages are expanded at generation).
CREATE TABLE core.items (
    item_id      TEXT PRIMARY KEY,       -- '<task_id>:<source_ref>'
    task_id      TEXT NOT NULL,
    dish_key     TEXT,
    source_ref   TEXT NOT NULL,          -- the dataset's own question id (WorldCuisines qa_id) or dish id
    subset       TEXT NOT NULL DEFAULT 'full',   -- full | parallel
    variant      TEXT,                   -- fixed prompt variant where the dataset gives one
    UNIQUE (task_id, source_ref)
);

-- Up to 10 images per prompt.
CREATE TABLE core.item_images (
    item_id      TEXT NOT NULL,
    position     INTEGER NOT NULL CHECK (position BETWEEN 0 AND 9),
    image_id     TEXT NOT NULL,
    PRIMARY KEY (item_id, position)
);

CREATE TABLE core.item_gold_countries (
    item_id      TEXT NOT NULL,
    country      TEXT NOT NULL,
    PRIMARY KEY (item_id, country)
);

-- Gold answers as written in each prompt language (WorldCuisines answer_<lang>).
CREATE TABLE core.item_gold_text (
    item_id      TEXT NOT NULL,
    lang         TEXT NOT NULL,
    text         TEXT NOT NULL,
    PRIMARY KEY (item_id, lang)
);

-- Prompt wording: project templates per task/lang/variant, or per-item questions a dataset ships.
CREATE TABLE core.prompt_templates (
    task_id      TEXT NOT NULL,
    lang         TEXT NOT NULL,
    variant      TEXT NOT NULL,
    template     TEXT NOT NULL,
    origin       TEXT NOT NULL,          -- project | paper | dataset
    PRIMARY KEY (task_id, lang, variant, origin)
);

CREATE TABLE core.item_prompts (
    item_id      TEXT NOT NULL,
    lang         TEXT NOT NULL,
    variant      TEXT NOT NULL,
    text         TEXT NOT NULL,
    PRIMARY KEY (item_id, lang, variant)
);

CREATE TABLE core.models (
    model_id     TEXT PRIMARY KEY,       -- name as reported (file name, hub id or path)
    display_name TEXT NOT NULL,
    backend      TEXT,                   -- vllm | transformers | openai | replay
    path         TEXT,
    revision     TEXT,
    weights_hash TEXT,
    is_vision    BOOLEAN
);

-- One generation (or import) job; the summary row a run leaves behind.
CREATE TABLE core.generation_runs (
    run_id       TEXT PRIMARY KEY,
    model_id     TEXT NOT NULL,
    task_id      TEXT NOT NULL,
    backend      TEXT NOT NULL,
    settings     JSON,
    n_requested  INTEGER,
    n_generated  INTEGER,
    n_skipped    INTEGER,
    n_failed     INTEGER,
    tokens_in    BIGINT,
    tokens_out   BIGINT,
    wall_seconds DOUBLE,
    started_at   TIMESTAMP NOT NULL,
    finished_at  TIMESTAMP
);

-- One model answer. generation_id is the cache key: model + settings + messages + image hashes.
CREATE TABLE core.generations (
    generation_id TEXT PRIMARY KEY,
    run_id       TEXT NOT NULL,
    model_id     TEXT NOT NULL,
    item_id      TEXT NOT NULL,
    lang         TEXT NOT NULL,          -- prompt language (WorldCuisines variants: ru_formal, ja_casual, ...)
    variant      TEXT NOT NULL,
    messages     JSON,                   -- rendered chat messages (NULL for imports that did not ship them)
    response     TEXT,                   -- NULL when the model gave nothing
    finish_reason TEXT,
    tokens_in    INTEGER,
    tokens_out   INTEGER,
    latency_ms   DOUBLE,
    origin       TEXT NOT NULL CHECK (origin IN ('import', 'vllm', 'transformers', 'openai', 'replay')),
    created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- Extraction (answer -> countries / dish names) is its own stage: rerunning it needs no model.
CREATE TABLE core.extractions (
    generation_id TEXT PRIMARY KEY,
    extractor    TEXT NOT NULL,          -- name@version
    status       TEXT NOT NULL CHECK (status IN ('ok', 'no_country', 'refusal', 'empty')),
    answer_lang  TEXT,                   -- ru | uk | en | other
    countries    TEXT[] NOT NULL,        -- in order of first mention
    regions      TEXT[] NOT NULL,
    dish_names   TEXT[] NOT NULL,
    extracted_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE core.extraction_spans (
    generation_id TEXT NOT NULL,
    span_start   INTEGER NOT NULL,
    span_end     INTEGER NOT NULL,
    text         TEXT NOT NULL,
    country      TEXT,
    region       TEXT,
    negated      BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (generation_id, span_start)
);

CREATE TABLE core.scores (
    generation_id TEXT NOT NULL,
    metric       TEXT NOT NULL,          -- jaccard, dice, overlap, name_match, bertscore_f1, ...
    value        DOUBLE,
    PRIMARY KEY (generation_id, metric)
);

-- Corpus analytics (co-occurrence and RU/UK code mixing).
CREATE TABLE core.corpora (
    corpus_id    TEXT PRIMARY KEY,
    lang         TEXT NOT NULL,
    source       TEXT NOT NULL,
    text_field   TEXT,
    n_docs       BIGINT,
    n_bytes      BIGINT
);

CREATE TABLE core.corpus_shards (
    corpus_id    TEXT NOT NULL,
    path         TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('ok', 'corrupt')),
    reason       TEXT,
    n_docs       BIGINT,
    n_bytes      BIGINT,
    scanned_at   TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (corpus_id, sha256)
);

CREATE TABLE core.corpus_dish_counts (
    corpus_id    TEXT NOT NULL,
    dish_key     TEXT NOT NULL,
    docs_with_dish BIGINT NOT NULL,
    docs_with_true_country BIGINT NOT NULL,
    docs_with_any_country BIGINT NOT NULL,
    PRIMARY KEY (corpus_id, dish_key)
);

CREATE TABLE core.corpus_name_counts (
    corpus_id    TEXT NOT NULL,
    pair_id      INTEGER NOT NULL,
    docs_uk_name BIGINT NOT NULL,
    docs_ru_name BIGINT NOT NULL,
    PRIMARY KEY (corpus_id, pair_id)
);

CREATE TABLE core.corpus_samples (
    corpus_id    TEXT NOT NULL,
    dish_key     TEXT NOT NULL,
    country      TEXT NOT NULL,
    sentence     TEXT NOT NULL,
    shard_path   TEXT,
    doc_index    BIGINT
);
