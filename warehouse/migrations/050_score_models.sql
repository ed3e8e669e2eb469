-- Which model computed a model-based score (BERTScore: bert-base-multilingual-cased by default, the
-- ZNO-Vision paper's), per answer and metric: written by the score stage beside core.scores, so a page
-- can say which model produced the number it shows, and a change of model is visible answer by answer.
CREATE TABLE core.score_models (
    generation_id TEXT NOT NULL,
    metric        TEXT NOT NULL,
    model         TEXT NOT NULL,
    PRIMARY KEY (generation_id, metric)
);
