-- BORSch §4.3's co-occurrence ratio is by mentions (issue 35): per dish, the (document, country) pairs of the
-- documents naming it, those whose country is a true origin and all of them. Shards scanned before this have
-- no mention counts; the matcher version changed with it, so the next scan counts them again.
ALTER TABLE core.corpus_shard_dish_counts ADD COLUMN true_country_mentions BIGINT;
ALTER TABLE core.corpus_shard_dish_counts ADD COLUMN any_country_mentions BIGINT;
ALTER TABLE core.corpus_dish_counts ADD COLUMN true_country_mentions BIGINT;
ALTER TABLE core.corpus_dish_counts ADD COLUMN any_country_mentions BIGINT;
