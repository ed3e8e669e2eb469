-- BORSch's human evaluation, imported (`import-responses --format borsch-ratings FILE.csv`,
-- pipeline/answers/ratings.py): one row per annotator's rating of one item.
-- kind 'description' (§5, Table 3, Fig. 15): a model's dish description (`model`, the describer; `item`, the BORSch
--   dish id in `lang`'s file) rated 0..1 for how well it describes the dish's real photos;
-- kind 'dish_filter' (§3.2, Cohen's kappa 0.73 RU / 0.77 UK): a bootstrapped candidate (`item`, the extraction as
--   written) labelled a dish (1) or not (0) by each of two annotators; `model` is empty.
CREATE TABLE core.human_ratings (
    kind        TEXT NOT NULL CHECK (kind IN ('description', 'dish_filter')),
    lang        TEXT NOT NULL,
    model       TEXT NOT NULL DEFAULT '',
    item        TEXT NOT NULL,
    annotator   TEXT NOT NULL,
    rating      DOUBLE NOT NULL CHECK (rating >= 0 AND rating <= 1),
    source_file TEXT NOT NULL,
    line        INTEGER NOT NULL,
    PRIMARY KEY (kind, lang, model, item, annotator)
);
