"""Queries for the pages that show a paper's own tables as published: UACUISINE's Table 4 (the ZNO-Vision paper)
per model, marts.uacuisine_table4."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame


def uacuisine_table4(source: Source, lang: str | None = None) -> pd.DataFrame:
    """One row per model and prompt language: bertscore, em, im (as published), the model that computed
    BERTScore, ours beside (em_atlas, im_atlas), EM per question and the counts behind them."""
    return _frame(
        source,
        "SELECT * FROM marts.uacuisine_table4 WHERE $lang IS NULL OR lang = $lang ORDER BY lang DESC, model",
        {"lang": lang},
    )
