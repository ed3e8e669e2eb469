-- BORSch §5's frame of reference (issue 35): how alike the REAL photos of one dish are (intra) and how alike those
-- of different dishes are (inter), through the same image encoder as the imagined-vs-real cosines. One row per real
-- photo and encoder: its mean cosine to the other photos of its dish and to the photos of every other dish of the
-- imagine run that embedded it (the scope of that run: `scope_dishes` dishes). Averaging a column weighted by its
-- n_ gives the mean over all photo pairs (each pair counted once from either side), as the paper reports it.
CREATE TABLE core.real_image_similarities (
    image_id     TEXT NOT NULL,          -- a real photo (core.images, kind 'real')
    dish_key     TEXT NOT NULL,
    encoder      TEXT NOT NULL,
    encoder_hash TEXT NOT NULL,
    intra_cosine DOUBLE,                 -- NULL when the photo is its dish's only one in scope
    inter_cosine DOUBLE,                 -- NULL when no other dish in scope has a photo
    n_intra      INTEGER NOT NULL,       -- the other photos of the same dish
    n_inter      INTEGER NOT NULL,       -- the photos of the other dishes
    scope_dishes INTEGER NOT NULL,       -- dishes with photos in the run's scope
    PRIMARY KEY (image_id, encoder, encoder_hash)
);
