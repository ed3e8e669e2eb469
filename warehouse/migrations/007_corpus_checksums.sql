-- Corpus shards are identified by an XXH3-128 checksum of their bytes instead of SHA-256: it only has to tell a
-- changed shard from an unchanged one, and at ~10 GB/s it costs the scan nothing (SHA-256 took a tenth of it).
-- Old rows keep their SHA-256 hex digests: such a shard no longer matches and is scanned again once.
ALTER TABLE core.corpus_shards RENAME COLUMN sha256 TO checksum;
ALTER TABLE core.corpus_samples RENAME COLUMN sha256 TO checksum;
ALTER TABLE core.corpus_shard_dish_counts RENAME COLUMN sha256 TO checksum;
ALTER TABLE core.corpus_shard_name_counts RENAME COLUMN sha256 TO checksum;
