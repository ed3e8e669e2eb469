"""One definition of an answer's language: the `languages` step's detector (`pipeline/extract/switching.py`), stored
once (core.answer_languages). The Dish page's answers (marts.origin_scores) and the Language page
(marts.language_switching) show that one value; the score stage keeps no guess of its own."""

from __future__ import annotations

from pathlib import Path

from pipeline.extract.switching import analyse
from tests.helpers import query


def test_the_answers_of_the_dish_page_carry_the_detectors_language(real_warehouse: Path) -> None:
    """Recomputed one answer at a time by the detector, on real answers of every dataset and prompt language."""
    rows = query(
        real_warehouse,
        "SELECT response, lang, answer_lang FROM marts.origin_scores "
        "QUALIFY row_number() OVER (PARTITION BY dataset, lang ORDER BY hash(generation_id)) <= 8",
    )
    assert len({lang for _, lang, _ in rows}) >= 30
    assert [(text, lang, analyse(text, lang).answer_lang) for text, lang, _ in rows] == rows


def test_the_dish_page_and_the_language_page_agree_on_every_answer(real_warehouse: Path) -> None:
    disagree = query(
        real_warehouse,
        "SELECT count(*), count(*) FILTER (o.answer_lang IS DISTINCT FROM s.answer_lang) FROM marts.origin_scores o "
        "JOIN marts.language_switching s USING (generation_id)",
    )
    assert disagree[0][0] > 100_000 and disagree[0][1] == 0


def test_only_the_language_step_stores_an_answer_language(real_warehouse: Path) -> None:
    tables = query(
        real_warehouse,
        "SELECT DISTINCT schema_name || '.' || table_name FROM duckdb_columns() "
        "WHERE column_name = 'answer_lang' AND schema_name <> 'marts'",
    )
    assert tables == [("core.answer_languages",)]
