"""The leaderboard's bootstrap interval: exact multinomial resampling over distinct score values."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from warehouse.marts import leaderboard


def test_interval_brackets_the_mean_of_a_fair_coin() -> None:
    values = np.array([0.0, 1.0] * 500)
    low, high = leaderboard.bootstrap_interval(values, np.random.default_rng(0))
    assert low < 0.5 < high
    assert 0.05 < high - low < 0.08  # about 2 * 1.96 * sqrt(0.25 / 1000) = 0.062


def test_constant_scores_have_a_zero_width_interval() -> None:
    low, high = leaderboard.bootstrap_interval(np.ones(50), np.random.default_rng(0))
    assert low == high == 1.0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1 / 3, 0.5, 1.0]), min_size=1, max_size=200))
def test_interval_lies_within_the_observed_range(scores: list[float]) -> None:
    values = np.array(scores)
    low, high = leaderboard.bootstrap_interval(values, np.random.default_rng(1))
    assert values.min() - 1e-12 <= low <= high <= values.max() + 1e-12
