-- BORSch §5's frame of reference for the imagined-vs-real cosines (issue 35): how alike the REAL photos of one
-- dish are through the same image encoder (intra) against the photos of different dishes (inter), from what the
-- imagine stage's similarity step stored per photo (core.real_image_similarities).

-- One row per real photo and encoder: its mean cosine to its own dish's other photos and to the other dishes'
-- photos (the distributions the Imagined dishes page draws).
CREATE OR REPLACE TABLE marts.imagined_reference_photos AS
SELECT d.dataset, d.lang, r.encoder, r.dish_key, d.dish_id, d.display_name, r.image_id, r.intra_cosine,
       r.inter_cosine, r.n_intra, r.n_inter, r.scope_dishes, r.encoder_hash
FROM core.real_image_similarities r
JOIN core.dishes d USING (dish_key)
ORDER BY d.dataset, d.lang, r.encoder, try_cast(d.dish_id AS BIGINT) NULLS LAST, d.dish_id, r.image_id;

-- Per dataset, prompt language and encoder: the mean cosine over photo PAIRS, of the same dish (intra) and of
-- different dishes (inter), as §5 reports it ("intra-dish ... 0.52, inter-dish ... 0.07", DINOv2-giant): each
-- photo's mean weighted by its number of partners counts every pair exactly twice, so the weighted mean is the
-- pair mean. The paper's two published values stand beside ours, named paper_*.
CREATE OR REPLACE TABLE marts.imagined_reference AS
SELECT dataset, lang, encoder, count(DISTINCT dish_key)::BIGINT AS n_dishes, count(*)::BIGINT AS n_photos,
       sum(intra_cosine * n_intra) / nullif(sum(n_intra), 0) AS intra_mean,
       sum(inter_cosine * n_inter) / nullif(sum(n_inter), 0) AS inter_mean,
       (sum(n_intra) // 2)::BIGINT AS n_intra_pairs, (sum(n_inter) // 2)::BIGINT AS n_inter_pairs,
       count(DISTINCT dish_key) FILTER (n_intra > 0)::BIGINT AS n_dishes_with_pairs,
       0.52::DOUBLE AS paper_intra_mean, 0.07::DOUBLE AS paper_inter_mean  -- BORSch §5, DINOv2-giant, its photos
FROM marts.imagined_reference_photos
GROUP BY dataset, lang, encoder
ORDER BY dataset, lang, encoder;
