-- Imagined dishes (BORSch §5): description -> English -> text-to-image -> image encoder -> cosine.
-- Replaces the three placeholder tables of 003_core (they were never written): each row now
-- carries what makes it reproducible (seed, steps, guidance, size, model weights hash) and its
-- cache key, so a rerun skips what is done and a killed run resumes without duplicates.
DROP TABLE core.generated_images;
DROP TABLE core.image_embeddings;
DROP TABLE core.image_similarities;

-- One rendered image. render_id is the cache key: generator identity + prompt + seed + steps +
-- guidance + size. The PNG lives on disk under its content hash (core.images, kind 'generated').
CREATE TABLE core.generated_images (
    render_id    TEXT PRIMARY KEY,
    image_id     TEXT NOT NULL,          -- first 32 hex digits of the PNG's sha256 (core.images.image_id)
    dish_key     TEXT NOT NULL,
    generator    TEXT NOT NULL,          -- pipeline id as named (hub id or local folder)
    generator_hash TEXT,                 -- weights hash of a local folder, else NULL
    pipeline_class TEXT NOT NULL,        -- e.g. FluxPipeline
    prompt       TEXT NOT NULL,          -- the English text the image was drawn from
    seed         BIGINT NOT NULL,
    steps        INTEGER NOT NULL,
    guidance     DOUBLE,
    width        INTEGER NOT NULL,
    height       INTEGER NOT NULL,
    description_generation_id TEXT NOT NULL,   -- the dish_description answer
    translation_generation_id TEXT,            -- its translation (NULL when the description was English)
    run_id       TEXT NOT NULL,
    seconds      DOUBLE,
    created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- One image (real or generated) through one encoder: the [CLS] vector.
CREATE TABLE core.image_embeddings (
    image_id     TEXT NOT NULL,
    encoder      TEXT NOT NULL,          -- model id as named, e.g. facebook/dinov2-giant
    encoder_hash TEXT NOT NULL,          -- weights hash of a local folder, '' for a hub id
    embedding    FLOAT[] NOT NULL,
    created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (image_id, encoder, encoder_hash)
);

-- Per generated image and encoder: mean cosine to its dish's real images (intra) and to the real
-- images of the other dishes in scope (inter). Recomputed whole for a scope by the similarity step.
CREATE TABLE core.image_similarities (
    image_id     TEXT NOT NULL,          -- the generated image
    dish_key     TEXT NOT NULL,
    encoder      TEXT NOT NULL,
    encoder_hash TEXT NOT NULL,
    intra_cosine DOUBLE,                 -- NULL when the dish has no real image
    inter_cosine DOUBLE,                 -- NULL when no other dish in scope has one
    n_intra      INTEGER NOT NULL,
    n_inter      INTEGER NOT NULL,
    PRIMARY KEY (image_id, dish_key, encoder, encoder_hash)
);

-- Models the imagine steps used, and whether they are tiny random test models (pages say so).
CREATE TABLE core.model_provenance (
    model_id     TEXT NOT NULL,
    role         TEXT NOT NULL,          -- describer | translator | generator | encoder
    tiny_random  BOOLEAN NOT NULL,
    PRIMARY KEY (model_id, role)
);
