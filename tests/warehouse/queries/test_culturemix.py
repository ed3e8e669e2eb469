"""The label-shift shares of the Culture mix page (warehouse/queries/culturemix.py), their one home: each answer's
shift is classified once by the score stage; the page's shares are counted here, on a hand-built answers mart."""

from __future__ import annotations

import duckdb
import pytest

from warehouse.queries import culturemix as q

# model, subtask, distractor_kind, shift (None: no SF answer to compare with)
ANSWERS = [
    ("m", "SF", None, "kept"),
    ("m", "MF", "cultural", "kept"),
    ("m", "MF", "cultural", "to_distractor_country"),
    ("m", "MF", "agnostic", "elsewhere"),
    ("m", "SFB", "cultural", None),
]


@pytest.fixture(scope="module")
def mart() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        "CREATE SCHEMA marts; CREATE TABLE marts.culturemix_answers "
        "(model TEXT, prompt TEXT, subtask TEXT, distractor_kind TEXT, shift TEXT)"
    )
    con.executemany("INSERT INTO marts.culturemix_answers VALUES (?, 'base', ?, ?, ?)", ANSWERS)
    return con


def test_a_shift_share_is_the_share_of_the_compared_answers_that_moved_that_way(mart) -> None:
    shares = q.shift_shares(mart, "base").set_index(["subtask", "shift"])
    assert shares.loc[("MF", "kept"), "share"] == pytest.approx(1 / 3)
    assert shares.loc[("MF", "to_distractor_country"), "share"] == pytest.approx(1 / 3)
    assert shares.loc[("SF", "kept"), "share"] == 1.0
    assert "SFB" not in set(shares.index.get_level_values("subtask"))  # nothing to compare with: no share at all


def test_retention_and_the_pull_toward_a_distractor_come_from_the_same_shares(mart) -> None:
    rows = q.retention(mart, "base").set_index("subtask")
    assert rows.loc["MF", "n"] == 3
    assert rows.loc["MF", "retention"] == pytest.approx(1 / 3)
    assert rows.loc["MF", "toward_distractor"] == pytest.approx(1 / 3)
    assert rows.loc["SF", "retention"] == 1.0 and rows.loc["SF", "toward_distractor"] == 0.0


def test_shares_by_distractor_kind_count_cultural_and_agnostic_distractors_apart(mart) -> None:
    kinds = q.by_kind(mart, "base").set_index(["distractor_kind", "shift"])
    assert kinds.loc[("cultural", "kept"), "share"] == pytest.approx(1 / 2)
    assert kinds.loc[("agnostic", "elsewhere"), "share"] == 1.0


def test_another_prompt_has_no_answers_to_share(mart) -> None:
    assert q.shift_shares(mart, "cot").empty and q.retention(mart, "cot").empty
