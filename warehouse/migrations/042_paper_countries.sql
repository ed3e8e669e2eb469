-- BORSch's own rule beside ours (issue 35, BORSch §4.1: NER, then a country/alias list): every country an
-- answer names by a country name or alias, negated, corrected or spread alike, in order of first mention.
-- Written by the score stage with each countries extraction; NULL for other extractors.
ALTER TABLE core.extractions ADD COLUMN paper_countries TEXT[];
