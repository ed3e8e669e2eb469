-- BORSch Table 4 (Appendix J.2) as the paper prints it, beside ours (marts.imagined_table4, built by
-- borsch_table4.py from this warehouse's answers): the correlation between a dish's imagined-image cosine (§5) and
-- the describer's QA / VQA origin score, for Llama-3.2 and Qwen2 prompted in Russian and Ukrainian. The numbers
-- are the published ones (two decimals), for reading ours against; nothing here is computed.
CREATE OR REPLACE TABLE marts.imagined_table4_published AS
WITH published(setup, metric, correlation, llama_ru, llama_uk, qwen_ru, qwen_uk) AS (
    VALUES ('QA', 'jaccard', 'pearson', 0.08, 0.12, 0.09, 0.12),
           ('QA', 'jaccard', 'spearman', 0.12, 0.14, 0.14, 0.19),
           ('QA', 'jaccard', 'kendall', 0.08, 0.09, 0.09, 0.13),
           ('QA', 'dice', 'pearson', 0.11, 0.15, 0.13, 0.15),
           ('QA', 'dice', 'spearman', 0.12, 0.16, 0.14, 0.19),
           ('QA', 'dice', 'kendall', 0.08, 0.10, 0.09, 0.13),
           ('QA', 'overlap', 'pearson', 0.12, 0.19, 0.17, 0.20),
           ('QA', 'overlap', 'spearman', 0.09, 0.20, 0.14, 0.23),
           ('QA', 'overlap', 'kendall', 0.06, 0.14, 0.10, 0.16),
           ('VQA', 'jaccard', 'pearson', 0.09, 0.06, 0.16, 0.15),
           ('VQA', 'jaccard', 'spearman', 0.14, 0.12, 0.21, 0.20),
           ('VQA', 'jaccard', 'kendall', 0.10, 0.08, 0.15, 0.14),
           ('VQA', 'dice', 'pearson', 0.10, 0.08, 0.18, 0.16),
           ('VQA', 'dice', 'spearman', 0.14, 0.13, 0.21, 0.20),
           ('VQA', 'dice', 'kendall', 0.09, 0.09, 0.15, 0.14),
           ('VQA', 'overlap', 'pearson', 0.08, 0.14, 0.16, 0.16),
           ('VQA', 'overlap', 'spearman', 0.11, 0.17, 0.18, 0.19),
           ('VQA', 'overlap', 'kendall', 0.08, 0.12, 0.13, 0.13)
)
SELECT setup, metric, correlation, paper_model, lang, value::DOUBLE AS value
FROM (
    SELECT setup, metric, correlation, 'Llama-3.2' AS paper_model, 'ru' AS lang, llama_ru AS value FROM published
    UNION ALL SELECT setup, metric, correlation, 'Llama-3.2', 'uk', llama_uk FROM published
    UNION ALL SELECT setup, metric, correlation, 'Qwen2', 'ru', qwen_ru FROM published
    UNION ALL SELECT setup, metric, correlation, 'Qwen2', 'uk', qwen_uk FROM published
)
ORDER BY paper_model, lang, setup = 'VQA', list_position(['jaccard', 'dice', 'overlap'], metric),
         list_position(['pearson', 'spearman', 'kendall'], correlation);
