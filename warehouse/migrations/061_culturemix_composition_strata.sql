-- CultureMix composition as published (pipeline/compose/): how each composed pair was chosen and which
-- ablation variant it is. NULL for the dataset's own images.
ALTER TABLE core.culturemix_images ADD COLUMN pairing TEXT;                -- stratified | random (compose)
ALTER TABLE core.culturemix_images ADD COLUMN target_difficulty TEXT;      -- easy | hard | mixed | unknown (§2.3)
ALTER TABLE core.culturemix_images ADD COLUMN distractor_difficulty TEXT;
ALTER TABLE core.culturemix_images ADD COLUMN target_position TEXT;        -- left | right (MF flipped, Table 10)
ALTER TABLE core.culturemix_images ADD COLUMN target_scale DOUBLE;         -- the target's size in its panel (Table 11)
