"""BORSch's tables and figures (papers/borsch.txt) in long form, from the marts that compute them
(111_borsch_figures.sql, 050_countries.sql, 060_language_pull.sql, 090_corpus_analyses.sql, the imagined marts).

Not written, and why: Fig. 1 (a map of one dish's answers: the Map and Dish pages), Fig. 7 (error types of sampled
co-occurrences: hand labels kept in the annotation store, not the warehouse), Fig. 10 and 19 (pipeline diagrams),
Table 1 (the bootstrapping rounds that built the dataset),
Tables 5 and 6 (the prompts: pipeline/tasks/borsch.toml, word for word), Figs. 17 and 18 (annotation interface,
SPARQL query).
"""

from __future__ import annotations

from warehouse.paper_tables.declare import paper_table

PAPER = "borsch"

# Where an analysis row is drawn with answers about a linked record (WorldCuisines answers about the same dish,
# marts.linked_origin_answers), the row says so: they are not BORSch answers.
# Borrowed answers (answers_from 'linked') are scored twice, against the dish's own gold and against the asking
# dataset's (`gold` names whose): the row says which, or one row would hold two cells (the contract's data tests).
LINKED = (
    "CASE WHEN answers_from = 'linked' THEN ' (answers about the linked ' || answer_dataset || ' record, scored '"
    " || 'against the ' || gold || ' gold)' ELSE '' END"
)

paper_table(
    PAPER,
    "fig2b",
    "Countries of origin of the dishes, by how the dataset found them (Wikidata or bootstrapped)",
    "§3, Fig. 2b",
    """
    SELECT concat_ws(' / ', lang, found_by) AS row, country AS "column", sum(n_dishes)::DOUBLE AS value,
           sum(n_dishes)::BIGINT AS n, 'dishes' AS note
    FROM marts.borsch_origins GROUP BY lang, found_by, country ORDER BY row, value DESC, "column"
    """,
)

paper_table(
    PAPER,
    "fig3",
    "Confusion matrices of origin QA/VQA: true country x predicted country",
    "§4.1, Fig. 3",
    """
    SELECT concat_ws(' / ', model, task, lang, true_country) AS row, predicted_country AS "column",
           n::DOUBLE AS value, n::BIGINT AS n, 'answers' AS note
    FROM marts.confusion WHERE dataset = 'borsch' ORDER BY row, "column"
    """,
)

paper_table(
    PAPER,
    "fig4",
    "Russia vs Ukraine named for dishes of both, per prompt language",
    "§4.1, Fig. 4",
    f"""
    SELECT concat_ws(' / ', model, task, lang) || {LINKED} AS row, measure AS "column", value,
           n_answers::BIGINT AS n
    FROM (
        SELECT *, 'Russia' AS measure, n_ru::DOUBLE AS value FROM marts.ru_ua_pull
        UNION ALL SELECT *, 'Ukraine', n_ua::DOUBLE FROM marts.ru_ua_pull
        UNION ALL SELECT *, 'Russia share', ru_share::DOUBLE FROM marts.ru_ua_pull
    ) WHERE dataset = 'borsch' ORDER BY row, "column"
    """,
)

paper_table(
    PAPER,
    "fig5",
    "QA and dish-name VQA over the Ukrainian-minus-Russian name use in the corpus",
    "§4.2, Fig. 5",
    f"""
    SELECT concat_ws(' / ', model, task, lang, metric, corpus_id) || {LINKED} AS row,
           printf('%.2f..%.2f', d_low, d_high) AS "column", mean::DOUBLE AS value, n_answers::BIGINT AS n,
           mean_low::DOUBLE AS low, mean_high::DOUBLE AS high
    FROM marts.codemix_bins WHERE dataset = 'borsch' ORDER BY row, d_low
    """,
)

paper_table(
    PAPER,
    "fig6",
    "QA Jaccard over correct dish-country co-occurrences and their ratio",
    "§4.3, Fig. 6",
    f"""
    SELECT concat_ws(' / ', model, task, lang, measure, corpus_id) || {LINKED} AS row,
           printf('%g..%g', bin_low, bin_high) AS "column", jaccard::DOUBLE AS value, n_answers::BIGINT AS n,
           jaccard_low::DOUBLE AS low, jaccard_high::DOUBLE AS high
    FROM marts.cooccurrence_bins WHERE dataset = 'borsch' ORDER BY row, bin_low
    """,
)

paper_table(
    PAPER,
    "fig8",
    "Description quality (imagined-image cosine to the real photos) per prompt language and origin region",
    "§5, Fig. 8",
    """
    SELECT concat_ws(' / ', model, lang, encoder) AS row, region AS "column", intra_mean::DOUBLE AS value,
           n_dishes::BIGINT AS n, 'mean cosine to the dish''s own photos' AS note
    FROM marts.imagined_regions WHERE dataset = 'borsch' ORDER BY row, region_order
    """,
)

_SPEARMAN = """
    SELECT concat_ws(' / ', model, lang, generator, encoder) AS row, 'spearman' AS "column", spearman::DOUBLE AS value,
           n_dishes_with_qa::BIGINT AS n, spearman_low::DOUBLE AS low, spearman_high::DOUBLE AS high,
           'bootstrap 95% interval over dishes' AS note
    FROM marts.imagined_correlations WHERE dataset = 'borsch' AND {which} ORDER BY row
"""
paper_table(
    PAPER,
    "fig9",
    "Spearman's rho between description quality and QA (the paper's Qwen models; here every non-Llama describer)",
    "§5, Fig. 9",
    _SPEARMAN.format(which="NOT contains(lower(model), 'llama')"),
)

paper_table(
    PAPER,
    "fig11",
    "Countries of origin of the dishes of the parallel, Post-Soviet subset",
    "Appendix D, Fig. 11",
    """
    SELECT lang AS row, country AS "column", sum(n_dishes)::DOUBLE AS value, sum(n_dishes)::BIGINT AS n,
           'dishes' AS note
    FROM marts.borsch_origins WHERE parallel GROUP BY lang, country ORDER BY row, value DESC, "column"
    """,
)

paper_table(
    PAPER,
    "fig12",
    "The most common wrong, non-Post-Soviet countries predicted",
    "Appendix G, Fig. 12",
    """
    SELECT concat_ws(' / ', model, task, lang) AS row, country AS "column", n_answers::DOUBLE AS value,
           n_answers::BIGINT AS n, method, 'rank ' || rank AS note
    FROM marts.borsch_wrong_predictions ORDER BY row, method, rank
    """,
)

paper_table(
    PAPER,
    "fig13",
    "Origin VQA with the dish's name, per model and prompt language (no region breakdown of its own)",
    "Appendix H, Fig. 13",
    """
    SELECT concat_ws(' / ', model, lang) AS row, measure AS "column", value, n::BIGINT AS n, low, high
    FROM (
        SELECT *, 'jaccard' AS measure, jaccard AS value, jaccard_low AS low, jaccard_high AS high
        FROM marts.leaderboard
        UNION ALL SELECT *, 'accuracy', accuracy, accuracy_low, accuracy_high FROM marts.leaderboard
    ) WHERE dataset = 'borsch' AND task = 'origin_vqa_with_name' ORDER BY row, "column"
    """,
)

paper_table(
    PAPER,
    "fig14",
    "What the dish's name adds to its photo: VQA Jaccard with the name minus without, per dish",
    "Appendix H, Fig. 14",
    """
    SELECT concat_ws(' / ', model, lang) AS row, dish_name AS "column", gain::DOUBLE AS value,
           least(n_vqa, n_vqa_with_name)::BIGINT AS n,
           printf('VQA %.3f, with the name %.3f', vqa_jaccard, vqa_with_name_jaccard) AS note
    FROM marts.borsch_vqa_name_gain ORDER BY row, value DESC
    """,
)

paper_table(
    PAPER,
    "fig16",
    "Spearman's rho between description quality and QA, Llama describers",
    "Appendix J.3, Fig. 16",
    _SPEARMAN.format(which="contains(lower(model), 'llama')"),
)

paper_table(
    PAPER,
    "table2",
    "Dish-name VQA accuracy per origin country",
    "Appendix I, Table 2",
    """
    SELECT concat_ws(' / ', model, lang) AS row, country AS "column", value, n_answers::BIGINT AS n, method
    FROM (
        SELECT *, 'atlas' AS method, accuracy::DOUBLE AS value FROM marts.borsch_name_accuracy_by_origin
        UNION ALL SELECT *, 'paper', paper_accuracy::DOUBLE FROM marts.borsch_name_accuracy_by_origin
    ) ORDER BY row, "column", method
    """,
)

# Table 4's printed numbers sit in their own mart (115_borsch_table4_published.sql), written there once: they come
# in as `published` rows, keyed like ours by the paper's model name, language and setup.
paper_table(
    PAPER,
    "table4",
    "Correlation of imagined-image cosine with QA/VQA origin scores (Pearson, Spearman, Kendall x Jaccard, Dice, "
    "Overlap)",
    "Appendix J.4, Table 4",
    """
    SELECT concat_ws(' / ', model, lang, setup) AS row, concat_ws(' / ', metric, correlation) AS "column",
           value::DOUBLE AS value, NULL::DOUBLE AS published, n_dishes::BIGINT AS n, note
    FROM marts.imagined_table4 WHERE dataset = 'borsch'
    UNION ALL
    SELECT concat_ws(' / ', paper_model, lang, setup), concat_ws(' / ', metric, correlation), NULL, value, NULL,
           'as printed (the paper''s model)'
    FROM marts.imagined_table4_published
    ORDER BY row, "column"
    """,
)

# Table 3 and Fig. 15 come from human ratings a user imports (`import-responses --format borsch-ratings`; the
# paper's are not public): empty of ours until then, Table 3's printed numbers always there (borsch_human_eval.py).
paper_table(
    PAPER,
    "table3",
    "Correlation of the mean human rating of a description with the DINOv2 cosine of its images to real photos",
    "§5, Table 3",
    """
    SELECT concat_ws(' / ', model, lang, encoder) AS row, correlation AS "column", value, NULL::DOUBLE AS published,
           n_dishes::BIGINT AS n, note
    FROM marts.borsch_table3
    UNION ALL
    SELECT "column", correlation, NULL, value, NULL, 'as printed (columns inferred from §5)'
    FROM marts.borsch_table3_published
    ORDER BY row, "column"
    """,
)

paper_table(
    PAPER,
    "fig15",
    "Human rating against DINOv2 cosine, one point per rated description",
    "§5, Fig. 15",
    """
    SELECT concat_ws(' / ', model, lang, dish_id) AS row, measure AS "column", value, n_annotators::BIGINT AS n,
           dish_name AS note
    FROM (
        SELECT *, 'human rating' AS measure, rating AS value FROM marts.borsch_human_ratings
        UNION ALL SELECT *, 'cosine', cosine FROM marts.borsch_human_ratings
    ) ORDER BY row, "column"
    """,
)

paper_table(
    PAPER,
    "kappa",
    "Agreement of the annotators (Cohen's kappa) over the items both rated",
    "§3.2",
    """
    SELECT concat_ws(' / ', kind, lang, annotator_a, annotator_b) AS row, measure AS "column", value,
           n_items::BIGINT AS n, method
    FROM (
        SELECT *, 'kappa' AS measure, kappa AS value FROM marts.human_agreement
        UNION ALL SELECT *, 'agreement', agreement FROM marts.human_agreement
    ) ORDER BY row, "column"
    """,
)

_ORIGINS = """
    SELECT country AS row, 'dishes' AS "column", n_dishes::DOUBLE AS value, n_dishes::BIGINT AS n, country_name AS note
    FROM marts.dishes_per_origin WHERE dataset = 'borsch' AND lang = '{lang}' ORDER BY value DESC, row
"""
paper_table(
    PAPER, "table7", "Countries of origin in the Russian subset", "Appendix M, Table 7", _ORIGINS.format(lang="ru")
)
paper_table(
    PAPER, "table8", "Countries of origin in the Ukrainian subset", "Appendix M, Table 8", _ORIGINS.format(lang="uk")
)
