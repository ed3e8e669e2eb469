-- How a dataset was cut when it is not loaded whole: the embedded bundle (pipeline/datasets/bundle.py) keeps a
-- seeded part of WorldCuisines, and the dashboard says so ("bundled subset: N of M ..."). NULL: the whole dataset.
ALTER TABLE core.datasets ADD COLUMN subset TEXT;
