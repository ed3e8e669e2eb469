"""ZNO-Vision's tables and figure (papers/zno-vision.txt) in long form, from its marts (120_zno.sql, 121_vqa.sql,
captions.py, 130_uacuisine_table4.sql). Rows are our models (the id they were run under) beside the paper's
printed rows (its model names, published.csv); a model run under the paper's name lines up with its row.

Not written, and why: Table 9 (the UACUISINE questions with their translations: pipeline/tasks/uacuisine.toml).
Tables 7 and 8's visual-only columns need the release's visual-only flag, which the warehouse does not hold yet:
only their question counts are computed.
"""

from __future__ import annotations

from warehouse.paper_tables.declare import paper_table

PAPER = "zno-vision"
SPLIT_NAMES = "CASE split WHEN 'validation' THEN 'ZNO val' WHEN 'test' THEN 'ZNO test' ELSE 'ZNO ' || split END"

paper_table(
    PAPER,
    "table1",
    "Accuracy on the ZNO exam per model, validation and test",
    "§5, Table 1",
    f"""
    SELECT model AS row, {SPLIT_NAMES} AS "column", accuracy::DOUBLE AS value, n::BIGINT AS n, low::DOUBLE AS low,
           high::DOUBLE AS high, method, '95% Wilson interval' AS note
    FROM marts.zno_accuracy WHERE subject = '(all subjects)' AND split IN ('validation', 'test')
    UNION ALL
    SELECT 'Baseline', {SPLIT_NAMES}, first_choice::DOUBLE, n::BIGINT, first_choice_low::DOUBLE,
           first_choice_high::DOUBLE, 'paper', 'always the first choice'
    FROM marts.zno_baselines WHERE subject = '(all subjects)' AND split IN ('validation', 'test')
    ORDER BY row, "column", method
    """,
)

paper_table(
    PAPER,
    "table2",
    "Multi30K-UK captions: BLEU and BERTScore, mean and standard deviation",
    "§5, Table 2",
    """
    SELECT concat_ws(' / ', model, split, lang) AS row, measure AS "column", value, n::BIGINT AS n, note
    FROM (
        SELECT *, 'BLEU' AS measure, bleu_mean::DOUBLE AS value, printf('std %.2f', bleu_std) AS note
        FROM marts.caption_scores
        UNION ALL SELECT *, 'BERT', bertscore_mean::DOUBLE, printf('std %.3f', bertscore_std) FROM marts.caption_scores
    ) ORDER BY row, "column"
    """,
)

paper_table(
    PAPER,
    "table3",
    "VQA accuracy in Ukrainian and English (VQA-1000-UA, VQA-1000-EN)",
    "§5, Table 3",
    """
    SELECT model AS row, 'VQA-UA' AS "column", vqa_uk::DOUBLE AS value, n_uk::BIGINT AS n FROM marts.vqa_languages
    UNION ALL SELECT model, 'VQA-EN', vqa_en::DOUBLE, n_en::BIGINT FROM marts.vqa_languages
    ORDER BY row, "column"
    """,
)

paper_table(
    PAPER,
    "table4",
    "UACUISINE: BERTScore of recipes, exact match (EM) and intersection match (IM)",
    "§5, Table 4",
    """
    SELECT concat_ws(' / ', model, lang) AS row, measure AS "column", value, n::BIGINT AS n, method
    FROM (
        SELECT *, 'BERT' AS measure, bertscore::DOUBLE AS value, n_recipes AS n, 'paper' AS method
        FROM marts.uacuisine_table4
        UNION ALL SELECT *, 'EM', em::DOUBLE, n_em, 'paper' FROM marts.uacuisine_table4
        UNION ALL SELECT *, 'IM', im::DOUBLE, n_ingredients, 'paper' FROM marts.uacuisine_table4
        UNION ALL SELECT *, 'EM', em_atlas::DOUBLE, n_em, 'atlas' FROM marts.uacuisine_table4
        UNION ALL SELECT *, 'IM', im_atlas::DOUBLE, n_ingredients, 'atlas' FROM marts.uacuisine_table4
    ) ORDER BY row, "column", method
    """,
)

_BY_SUBJECT = """
    SELECT model AS row, subject AS "column", accuracy::DOUBLE AS value, n::BIGINT AS n, low::DOUBLE AS low,
           high::DOUBLE AS high, method
    FROM marts.zno_accuracy WHERE subject <> '(all subjects)' AND split = '{split}'
    UNION ALL
    SELECT 'Baseline', subject, first_choice::DOUBLE, n::BIGINT, first_choice_low::DOUBLE, first_choice_high::DOUBLE,
           'paper'
    FROM marts.zno_baselines WHERE subject <> '(all subjects)' AND split = '{split}'
    ORDER BY row, "column", method
"""
paper_table(PAPER, "table5", "ZNO test accuracy per subject", "Appendix A, Table 5", _BY_SUBJECT.format(split="test"))
paper_table(
    PAPER,
    "table6",
    "ZNO validation accuracy per subject",
    "Appendix A, Table 6",
    _BY_SUBJECT.format(split="validation"),
)

paper_table(
    PAPER,
    "fig1",
    "ZNO questions by year and subject",
    "Appendix B, Fig. 1",
    """
    SELECT subject AS row, coalesce(year::VARCHAR, 'unknown') AS "column", sum(n)::DOUBLE AS value,
           sum(n)::BIGINT AS n, 'questions' AS note
    FROM marts.zno_questions GROUP BY ALL ORDER BY row, "column"
    """,
)

paper_table(
    PAPER,
    "table7",
    "ZNO questions by category (subject)",
    "Appendix B, Table 7",
    """
    SELECT subject AS row, 'Total' AS "column", sum(n)::DOUBLE AS value, sum(n)::BIGINT AS n, 'questions' AS note
    FROM marts.zno_questions GROUP BY ALL ORDER BY value DESC, row
    """,
)

paper_table(
    PAPER,
    "table8",
    "ZNO questions by subset",
    "Appendix B, Table 8",
    """
    SELECT CASE split WHEN 'dev' THEN 'Dev' WHEN 'validation' THEN 'Validation' WHEN 'test' THEN 'Test'
           ELSE split END AS row, '# Questions' AS "column", sum(n)::DOUBLE AS value, sum(n)::BIGINT AS n
    FROM marts.zno_questions GROUP BY ALL
    UNION ALL
    SELECT 'Total', '# Questions', sum(n)::DOUBLE, sum(n)::BIGINT FROM marts.zno_questions HAVING count(*) > 0
    ORDER BY row
    """,
)
