-- ZNO-Vision Tables 7-8 count the visual-only questions (the text is only in the image, so the model must read
-- it). Where the release's rows carry the flag (an assumed boolean column `visual_only`, pipeline/datasets/zno.py)
-- ingest keeps it; NULL where the release does not say.
ALTER TABLE core.exam_items ADD COLUMN visual_only BOOLEAN;
