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
    connection.execute("CREATE SCHEMA core")
    connection.execute("CREATE TABLE core.vqa_counterparts (describer TEXT PRIMARY KEY, vision_model TEXT NOT NULL)")
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
    assert notes == {"no VQA answers by the paired model on the drawn dishes"}


def _vqa_rows(con: duckdb.DuckDBPyConnection, describer: str, vision: str) -> None:
    """`vision` answers the VQA questions of every drawn dish, its Jaccard ranking the dishes as their cosines do."""
    con.execute("UPDATE marts.imagined SET model = ?", [describer])
    con.execute("UPDATE marts.origin_scores SET model = ? WHERE task = 'origin_qa'", [describer])
    con.execute("DELETE FROM marts.origin_scores WHERE task = 'origin_vqa'")
    for dish, cosine in COSINES.items():
        con.execute(
            "INSERT INTO marts.origin_scores VALUES (?, 'uk', ?, 'origin_vqa', ?, ?, ?)", [vision, dish, *[cosine] * 3]
        )


def _vqa_cells(con: duckdb.DuckDBPyConnection) -> set[tuple]:
    return set(
        con.execute(
            "SELECT vqa_model, pairing, n_dishes, round(value, 6) FROM marts.imagined_table4 "
            "WHERE setup = 'VQA' AND correlation = 'spearman'"
        ).fetchall()
    )


def test_a_text_describer_is_paired_with_its_vision_counterpart_as_the_paper_pairs_them(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """§4.1: Qwen2-72B-Instruct's descriptions against Qwen2-VL-72B-Instruct's VQA answers, whatever the hub prefix."""
    _vqa_rows(con, "Qwen/Qwen2-72B-Instruct", "Qwen/Qwen2-VL-72B-Instruct")
    borsch_table4.build(con)
    assert _vqa_cells(con) == {("Qwen/Qwen2-VL-72B-Instruct", "the paper's, §4.1", 4, 1.0)}
    qa = con.execute("SELECT DISTINCT n_dishes FROM marts.imagined_table4 WHERE setup = 'QA'").fetchall()
    assert qa == [(4,)]  # the QA half stays the describer's own answers


def test_a_declared_pairing_replaces_the_papers_and_an_unpaired_describer_answers_itself(
    con: duckdb.DuckDBPyConnection,
) -> None:
    _vqa_rows(con, "meta-llama/Llama-3.1-70B-Instruct", "my-vision")
    borsch_table4.build(con)  # the paper's counterpart has no answers here: its cells say so, nothing is borrowed
    assert _vqa_cells(con) == {("Llama-3.2-90B-Vision-Instruct", "the paper's, §4.1", 0, None)}
    con.execute("INSERT INTO core.vqa_counterparts VALUES ('meta-llama/Llama-3.1-70B-Instruct', 'my-vision')")
    borsch_table4.build(con)
    assert _vqa_cells(con) == {("my-vision", "declared with --vqa-model", 4, 1.0)}
    _vqa_rows(con, "some-vlm", "some-vlm")
    borsch_table4.build(con)
    assert _vqa_cells(con) == {("some-vlm", "none declared or published: the describer's own answers", 4, 1.0)}
