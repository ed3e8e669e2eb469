-- CultureMix's UK nations, kept beside the country. Its labels name England (a target's country in
-- the gallery's "Primary: Steak pie (England)", a distractor food's country in the lineage rows);
-- the country columns keep GB (ISO 3166-1) and these keep the nation (ISO 3166-2), so the label-shift
-- analyses can say "toward England". The target's nation is also the item's nation gold
-- (core.item_gold_nations, migration 031), which `uk_nation_match` scores. Written by the dataset
-- module's ingest; warehouse/checks/001_integrity.sql keeps a nation only beside GB.
ALTER TABLE core.culturemix_images ADD COLUMN target_nation TEXT;      -- GB-ENG, GB-SCT, GB-WLS, GB-NIR
ALTER TABLE core.culturemix_images ADD COLUMN distractor_nation TEXT;  -- the distractor food's nation
