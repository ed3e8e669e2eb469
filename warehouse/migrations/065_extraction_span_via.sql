-- Issue 38: how each country mention was found, so the Method audit can show a country named through one of
-- its places ("Beijing" -> CN), an older name ("Persia" -> IR) or a near miss ("Grece" -> GR) apart from a
-- country named outright. Values: the gazetteer entry's kind (name, alias, adjective, subnational, place, endonym,
-- historic, region) or near_miss; NULL on spans written before this column (extractor countries@4 and older).
ALTER TABLE core.extraction_spans ADD COLUMN via TEXT;
