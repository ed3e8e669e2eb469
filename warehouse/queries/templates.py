"""The items a study's template answer file lists (marts.answer_sheets; pipeline/answers/templates.py)."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame


def answer_sheet(source: Source, dataset: str) -> pd.DataFrame:
    """source_ref and lang (NULL: the template's own languages) of every item of `dataset` to answer."""
    return _frame(
        source,
        "SELECT source_ref, lang FROM marts.answer_sheets WHERE dataset = $dataset",
        {"dataset": dataset},
    )
