-- Which reading of its question produced an answer's country set (issue 35): `origin` (where the dish
-- comes from) or `served` (where it is served, eaten, cooked, popular or traditional), as the task declares
-- it per prompt variant (pipeline/tasks/*.toml `asks`). NULL for extractors that read no question.
ALTER TABLE core.extractions ADD COLUMN reading TEXT;
