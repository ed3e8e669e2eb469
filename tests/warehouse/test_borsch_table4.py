"""BORSch Table 4 (Appendix J.2): every correlation x metric x QA/VQA cell between a dish's imagined-image cosine
and the describer's origin scores, computed as scipy computes it, and the cells without data saying why."""

from __future__ import annotations

import duckdb
import pytest
from scipy import stats

from warehouse.marts import borsch_table4

COSINES = {"d1": 0.61, "d2": 0.20, "d3": 0.45, "d4": 0.33}
QA = {"d1": (1.0, 1.0, 1.0), "d2": (0.0, 0.0, 0.0), "d3": (0.5, 0.667, 1.0), "d4": (0.5, 0.5, 0.5)}


@pytest.fixture
def con():
    connection = duckdb.connect()
    connection.execute("CREATE SCHEMA marts")
    connection.execute(
        "CREATE TABLE marts.imagined (model TEXT, dataset TEXT, lang TEXT, encoder TEXT, dish_key TEXT, "
        "intra_cosine DOUBLE)"
    )
    connection.execute(
        "CREATE TABLE marts.origin_scores (model TEXT, lang TEXT, dish_key TEXT, task TEXT, jaccard DOUBLE, "
        "dice DOUBLE, overlap DOUBLE)"
    )
    for dish, cosine in COSINES.items():
        connection.execute("INSERT INTO marts.imagined VALUES ('m', 'borsch', 'uk', 'dino', ?, ?)", [dish, cosine])
        connection.execute(
            "INSERT INTO marts.origin_scores VALUES ('m', 'uk', ?, 'origin_qa', ?, ?, ?)", [dish, *QA[dish]]
        )
    connection.execute("INSERT INTO marts.origin_scores VALUES ('m', 'uk', 'd1', 'origin_vqa', 1, 1, 1)")
    yield connection
    connection.close()


def test_every_cell_is_computed_as_scipy_does_or_says_why_not(con: duckdb.DuckDBPyConnection) -> None:
    borsch_table4.build(con)
    rows = con.execute(
        "SELECT setup, metric, correlation, n_dishes, value, note, p_value FROM marts.imagined_table4"
    ).fetchall()
    assert len(rows) == 2 * 3 * 3  # QA/VQA x Jaccard/Dice/Overlap x Pearson/Spearman/Kendall
    dishes = sorted(COSINES)
    for setup, metric, correlation, n, value, note, p_value in rows:
        if setup == "VQA":  # one dish only
            assert (n, value, note, p_value) == (1, None, "fewer than 3 dishes", None)
            continue
        column = [QA[d][("jaccard", "dice", "overlap").index(metric)] for d in dishes]
        expected = borsch_table4.CORRELATIONS[correlation]([COSINES[d] for d in dishes], column)
        assert n == 4 and note is None and value == pytest.approx(expected.statistic)
        assert 0 <= p_value <= 1 and p_value == pytest.approx(expected.pvalue)
    pearson = stats.pearsonr([0.61, 0.2, 0.45, 0.33], [1.0, 0.0, 0.5, 0.5])
    cells = {(s, m, c): (v, p) for s, m, c, _, v, _, p in rows}
    assert cells["QA", "jaccard", "pearson"] == pytest.approx((pearson.statistic, pearson.pvalue))


def test_a_model_without_answers_is_stated(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("DELETE FROM marts.origin_scores WHERE task = 'origin_vqa'")
    borsch_table4.build(con)
    notes = {note for (note,) in con.execute("SELECT note FROM marts.imagined_table4 WHERE setup = 'VQA'").fetchall()}
    assert notes == {"no VQA answers by this model on the drawn dishes"}
