-- CultureMix-Real (§5.1; pipeline/datasets/culturemix_real.py): which real photo an image comes from, whether
-- its foods are of the same culture or not, and the crop box of its target food. NULL for other images.
ALTER TABLE core.culturemix_images ADD COLUMN real_culture TEXT;   -- same | cross
ALTER TABLE core.culturemix_images ADD COLUMN photo TEXT;          -- the photo under real/, as real.csv names it
ALTER TABLE core.culturemix_images ADD COLUMN crop_box INTEGER[];  -- left, top, right, bottom (pixels)
