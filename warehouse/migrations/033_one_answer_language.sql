-- One home for an answer's language (issue 10): the `languages` step's core.answer_languages. The score
-- stage's own guess (ru | uk | en | other, by another detector) disagreed with it on one answer in eight
-- and doubled lingua's work; marts.origin_scores now reads the languages step's.
ALTER TABLE core.extractions DROP COLUMN answer_lang;
