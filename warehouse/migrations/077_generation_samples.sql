-- Repeated samples: the same question asked of the same model again (at temperature > 0), each its own
-- answer. CultureMix's entropy is taken over them (§4, Fig. 7: "prediction confidence and
-- consistency"). 0 for a model's first (or only) answer; an import numbers its samples, a sampling
-- generate run takes its seed's.
ALTER TABLE core.generations ADD COLUMN sample INTEGER NOT NULL DEFAULT 0;
