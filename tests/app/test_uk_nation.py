"""The nation-level score where the metrics are listed: the Overview leaderboard (AppTest, real demo
warehouse: WorldCuisines names England, Scotland or Wales as the gold of 10 origin questions)."""

from __future__ import annotations

from pathlib import Path

from tests.app.conftest import open_page
from tests.helpers import query, shown


def test_the_leaderboard_lists_the_uk_nation_match_beside_jaccard_and_accuracy(warehouse_path: Path):
    at = open_page("views/overview.py")
    board = next(frame.value for frame in at.dataframe if "UK nation match" in frame.value.columns)
    assert len(board) == 12 and set(board["n, UK nation gold"]) == {300}  # 10 questions x 30 prompt languages
    expected = dict(
        query(
            warehouse_path,
            "SELECT model, avg(uk_nation_match) FROM marts.origin_scores WHERE dataset = 'worldcuisines' "
            "AND uk_nation_match IS NOT NULL GROUP BY model",
        )
    )
    for model, value in zip(board["model"], board["UK nation match"], strict=True):
        assert value == round(expected[model], 3)
    assert any("UK nation match" in shown(str(caption.value)) for caption in at.caption)
