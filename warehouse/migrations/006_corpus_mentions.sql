-- Corpus scan bookkeeping: per-shard partial counts (totals in core.corpus_dish_counts / corpus_name_counts are
-- their sums, recomputed in the same transaction that adds a shard, so a killed scan never double counts), and the
-- pattern set a shard was scanned with (a shard scanned with other patterns is scanned again).
ALTER TABLE core.corpus_shards ADD COLUMN patterns TEXT;
ALTER TABLE core.corpus_shards ADD COLUMN run_id TEXT;
ALTER TABLE core.corpus_samples ADD COLUMN sha256 TEXT;

CREATE TABLE core.corpus_shard_dish_counts (
    corpus_id    TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    dish_key     TEXT NOT NULL,
    docs_with_dish BIGINT NOT NULL,
    docs_with_true_country BIGINT NOT NULL,
    docs_with_any_country BIGINT NOT NULL,
    PRIMARY KEY (corpus_id, sha256, dish_key)
);

CREATE TABLE core.corpus_shard_name_counts (
    corpus_id    TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    pair_id      INTEGER NOT NULL,
    docs_uk_name BIGINT NOT NULL,
    docs_ru_name BIGINT NOT NULL,
    PRIMARY KEY (corpus_id, sha256, pair_id)
);
