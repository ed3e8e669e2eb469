"""CultureMix's tables and figures (papers/culturemix.txt) in long form, from its analysis marts
(140_culturemix_analyses.sql, culturemix.py, culturemix_mitigation.py). Rows are per model and prompt (base,
direct, cot) as the paper's; each cell's `n` is its answers.

The paper's text carries its tables' captions but not their numbers, so nothing is transcribed into published.csv
for CultureMix: `published` stays empty. Figs. 18 and 19 (Appendix B.1) draw the cells of Table 7 and Fig. 5 for
every subtask and both measures: written under their own ids from the same queries. Not written, and why: Figs. 1,
2, 14 (examples and the construction pipeline), Tables 3 and 5 (related benchmarks, the image models used), Table 4
(the food list: the dataset itself).
"""

from __future__ import annotations

from warehouse.paper_tables.declare import paper_table

PAPER = "culturemix"

# One analysis of marts.culturemix_cells in long form: a row per model and prompt (and subtask where the analysis
# is per subtask), a column per cell and measure.
_CELLS = """
    SELECT concat_ws(' / ', model, prompt{subtask_row}) AS row, concat_ws(' / ', {column}, measure) AS "column",
           value, n_answers::BIGINT AS n
    FROM (
        SELECT *, 'country accuracy' AS measure, country_accuracy::DOUBLE AS value FROM marts.culturemix_cells
        UNION ALL SELECT *, 'food accuracy', food_accuracy::DOUBLE FROM marts.culturemix_cells
        UNION ALL SELECT *, 'country entropy', country_entropy::DOUBLE FROM marts.culturemix_cells
        UNION ALL SELECT *, 'food entropy', food_entropy::DOUBLE FROM marts.culturemix_cells
    ) WHERE analysis = '{analysis}' AND measure LIKE '%{measures}'
    ORDER BY row, "column"
"""


def _cells(analysis: str, measures: str = "", per_subtask: bool = False, column: str = "subtask, cell") -> str:
    return _CELLS.format(
        analysis=analysis, measures=measures, subtask_row=", subtask" if per_subtask else "", column=column
    )


paper_table(
    PAPER,
    "fig3a",
    "Country and food-name accuracy per subtask (SF, MF, SFB, MFB)",
    "§3.2, Fig. 3a",
    _cells("subtask", "accuracy", column="subtask"),
)
paper_table(
    PAPER,
    "fig3b",
    "Country-prediction distributions per subtask: target country x predicted country",
    "§3.3, Fig. 3b",
    """
    SELECT concat_ws(' / ', model, upper(task), lang, true_country) AS row, predicted_country AS "column",
           n::DOUBLE AS value, n::BIGINT AS n, 'answers' AS note
    FROM marts.confusion WHERE dataset = 'culturemix' ORDER BY row, "column"
    """,
)
paper_table(
    PAPER,
    "fig4a",
    "Label shift: where a prediction goes when a distractor is added (kept, to the distractor's country or continent, "
    "elsewhere), share of answers with an SF answer to compare with",
    "§4.1, Fig. 4a",
    """
    SELECT concat_ws(' / ', model, prompt, subtask) AS row, shift AS "column",
           (count(*) / sum(count(*)) OVER (PARTITION BY model, prompt, subtask))::DOUBLE AS value,
           count(*)::BIGINT AS n
    FROM marts.culturemix_answers WHERE shift IS NOT NULL GROUP BY model, prompt, subtask, shift
    ORDER BY row, "column"
    """,
)
paper_table(
    PAPER,
    "fig4b",
    "Retention of the SF label against shift toward the distractor, per subtask",
    "§4.1, Fig. 4b",
    """
    SELECT concat_ws(' / ', model, prompt, subtask) AS row, measure AS "column", value, n
    FROM (
        SELECT model, prompt, subtask, count(*)::BIGINT AS n, avg((shift = 'kept')::INT)::DOUBLE AS retention,
               avg((shift IN ('to_distractor_country', 'to_distractor_continent'))::INT)::DOUBLE AS toward
        FROM marts.culturemix_answers WHERE shift IS NOT NULL GROUP BY ALL
    ) UNPIVOT (value FOR measure IN (retention AS 'retention', toward AS 'toward the distractor'))
    ORDER BY row, "column"
    """,
)
paper_table(
    PAPER,
    "fig5",
    "Accuracy and entropy by the cultural distance of the distractor, per subtask",
    "§4.2, Fig. 5",
    _cells("distance", per_subtask=True, column="cell"),
)
paper_table(
    PAPER,
    "fig6",
    "Cultural against culturally agnostic distractors: country accuracy and label shift",
    "§4.3, Fig. 6",
    """
    SELECT concat_ws(' / ', model, prompt, subtask) AS row, concat_ws(' / ', distractor_kind, measure) AS "column",
           value, n
    FROM (
        SELECT model, prompt, subtask, distractor_kind, count(*)::BIGINT AS n,
               avg(country_correct::INT)::DOUBLE AS accuracy,
               avg((shift <> 'kept')::INT)::DOUBLE AS shifted
        FROM marts.culturemix_answers WHERE distractor_kind IN ('cultural', 'agnostic') GROUP BY ALL
    ) UNPIVOT (value FOR measure IN (accuracy AS 'country accuracy', shifted AS 'label shift'))
    ORDER BY row, "column"
    """,
)
paper_table(
    PAPER,
    "fig7",
    "Per target food: SF entropy of the predicted country against the share of answers that shift with a distractor",
    "§4, Fig. 7",
    """
    SELECT concat_ws(' / ', model, prompt, target_food_name) AS row, measure AS "column", value,
           n_answers::BIGINT AS n
    FROM (
        SELECT *, 'SF country entropy' AS measure, entropy::DOUBLE AS value FROM marts.culturemix_entropy
        UNION ALL SELECT *, 'SF food entropy', food_entropy::DOUBLE FROM marts.culturemix_entropy
        UNION ALL SELECT *, 'shifted share', shifted_share::DOUBLE FROM marts.culturemix_entropy
    ) WHERE grouping = 'SF' ORDER BY row, "column"
    """,
)
paper_table(
    PAPER,
    "fig8",
    "CultureMix-Real: accuracy on real photos, same-culture vs cross-culture (radar chart)",
    "§5.2, Fig. 8",
    _cells("real", "accuracy", column="cell"),
)
paper_table(
    PAPER,
    "fig9",
    "MF combinations: images per target country x distractor country",
    "§4, Fig. 9",
    """
    SELECT target_country AS row, distractor_country AS "column", n_images::DOUBLE AS value, n_images::BIGINT AS n,
           n_foods || ' target foods' AS note
    FROM marts.culturemix_combinations ORDER BY row, "column"
    """,
)
paper_table(
    PAPER,
    "fig17",
    "From SF to the mixed subtasks: share of answers right/wrong in SF and right/wrong with the distractor",
    "§4.4 and Appendix B, Fig. 17",
    """
    SELECT concat_ws(' / ', model, prompt, subtask, measure) AS row,
           (CASE WHEN sf_correct THEN 'right' ELSE 'wrong' END) || ' in SF -> '
           || (CASE WHEN mixed_correct THEN 'right' ELSE 'wrong' END) AS "column",
           share::DOUBLE AS value, n_answers::BIGINT AS n
    FROM marts.culturemix_transitions ORDER BY row, "column"
    """,
)
paper_table(
    PAPER,
    "fig18",
    "Street and landmark backgrounds: country and food accuracy (SFB, MFB)",
    "§3.2 and Appendix B.1, Fig. 18",
    _cells("background", "accuracy"),
)
paper_table(
    PAPER,
    "fig19",
    "Cultural distance in every subtask, country and food name (accuracy and entropy)",
    "§4.2 and Appendix B.1, Fig. 19",
    _cells("distance", per_subtask=True, column="cell"),
)
paper_table(
    PAPER,
    "table1",
    "Dataset composition: images per subtask (of the CultureMix images ingested here)",
    "§2.3, Table 1",
    """
    SELECT subset AS row, subtask AS "column", count(*)::DOUBLE AS value, count(*)::BIGINT AS n, 'images' AS note
    FROM marts.culturemix_images GROUP BY ALL ORDER BY row, "column"
    """,
)
paper_table(
    PAPER,
    "table2",
    "Mitigation methods (direct and CoT prompting, fine-tuning) against the base prompt, paired t-test",
    "§6.2, Table 2",
    """
    SELECT concat_ws(' / ', model, subtask, method)
               || CASE WHEN split = 'all' THEN ' (ours: every image both prompts answered)' ELSE '' END AS row,
           measure AS "column", method_value::DOUBLE AS value,
           n_pairs::BIGINT AS n,
           printf('base %.4f, difference %.4f, paired t %.3f, p %.4f', base_value, difference, t_statistic, p_value)
               AS note
    FROM marts.culturemix_mitigation ORDER BY split = 'all', row, "column"
    """,
)
paper_table(
    PAPER,
    "table6",
    "Identification accuracy (country, food name) per model and subtask",
    "Appendix B.1, Table 6",
    _cells("subtask", "accuracy", column="subtask"),
)
paper_table(
    PAPER,
    "table7",
    "Accuracy by background (street, landmark) in SFB and MFB",
    "Appendix B.1, Table 7",
    _cells("background", "accuracy"),
)
paper_table(
    PAPER,
    "table8",
    "Predicted-label entropy (country, food name) per model and subtask",
    "Appendix B.1, Table 8",
    _cells("subtask", "entropy", column="subtask"),
)
paper_table(
    PAPER,
    "table9",
    "CultureMix-Real: accuracy on real photos, same-culture vs cross-culture",
    "Appendix B.1, Table 9",
    _cells("real", "accuracy", column="cell"),
)

_PAIRS = """
    SELECT concat_ws(' / ', model, prompt, subtask, variant) AS row, measure AS "column", value, n_pairs::BIGINT AS n
    FROM (
        SELECT *, 'country consistency' AS measure, country_consistency::DOUBLE AS value FROM marts.culturemix_pairs
        UNION ALL SELECT *, 'food consistency', food_consistency::DOUBLE FROM marts.culturemix_pairs
        UNION ALL SELECT *, 'original country accuracy', original_country_accuracy::DOUBLE FROM marts.culturemix_pairs
        UNION ALL SELECT *, 'variant country accuracy', variant_country_accuracy::DOUBLE FROM marts.culturemix_pairs
        UNION ALL SELECT *, 'original food accuracy', original_food_accuracy::DOUBLE FROM marts.culturemix_pairs
        UNION ALL SELECT *, 'variant food accuracy', variant_food_accuracy::DOUBLE FROM marts.culturemix_pairs
    ) WHERE analysis = '{analysis}' ORDER BY row, "column"
"""
paper_table(
    PAPER,
    "table10",
    "Position bias: each MF image against its horizontally flipped twin",
    "Appendix B.2, Table 10",
    _PAIRS.format(analysis="position"),
)
paper_table(
    PAPER,
    "table11",
    "Size bias: each image against its resized variants",
    "Appendix B.2, Table 11",
    _PAIRS.format(analysis="size"),
)
