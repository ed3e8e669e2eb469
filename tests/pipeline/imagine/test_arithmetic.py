"""The similarity and Spearman arithmetic, pinned on hand-made vectors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pipeline.imagine.similarity import intra_inter, real_reference
from warehouse.stats import bootstrap_spearman, ranks, spearman

ROOT_HALF = math.sqrt(0.5)


def test_intra_is_the_mean_cosine_to_the_dishs_own_photos_and_inter_to_the_others() -> None:
    generated = np.array([[1.0, 0.0], [0.0, 3.0], [1.0, 1.0]])
    real = np.array([[1.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    a, b, c = intra_inter(generated, ["A", "B", "C"], real, ["A", "A", "B"])
    assert a.intra == pytest.approx((1 + ROOT_HALF) / 2) and a.inter == pytest.approx(0.0)
    assert (a.n_intra, a.n_inter) == (2, 1)
    assert b.intra == pytest.approx(1.0) and b.inter == pytest.approx(ROOT_HALF / 2)  # lengths do not matter
    assert c.intra is None and c.n_intra == 0  # dish C has no photo
    assert c.inter == pytest.approx((ROOT_HALF + 1 + ROOT_HALF) / 3) and c.n_inter == 3


def test_without_any_real_photo_nothing_is_compared() -> None:
    (only,) = intra_inter(np.array([[1.0, 2.0]]), ["A"], np.zeros((0, 2)), [])
    assert (only.intra, only.inter, only.n_intra, only.n_inter) == (None, None, 0, 0)


def test_the_real_photo_reference_leaves_each_photo_out_of_its_own_dish() -> None:
    # dish A: two photos 45 degrees apart; dish B: one photo at 90 degrees from A's first; chunks of 2 rows
    real = np.array([[1.0, 0.0], [3.0, 3.0], [0.0, 5.0]])
    a1, a2, b = real_reference(real, ["A", "A", "B"], chunk=2)
    assert a1.intra == pytest.approx(ROOT_HALF) and (a1.n_intra, a1.n_inter) == (1, 1)  # not 1.0 with itself
    assert a1.inter == pytest.approx(0.0)
    assert a2.intra == pytest.approx(ROOT_HALF) and a2.inter == pytest.approx(ROOT_HALF)
    assert b.intra is None and b.n_intra == 0  # B's only photo has no partner
    assert b.inter == pytest.approx(ROOT_HALF / 2) and b.n_inter == 2
    # weighted by partners, the per-photo means give the mean over pairs: intra {A1,A2}; inter {A1,B}, {A2,B}
    inter_pairs = sum(r.inter * r.n_inter for r in (a1, a2, b)) / sum(r.n_inter for r in (a1, a2, b))
    assert inter_pairs == pytest.approx((0.0 + ROOT_HALF) / 2)
    assert real_reference(np.zeros((0, 2)), []) == []


def test_ties_share_their_average_rank() -> None:
    assert ranks(np.array([10.0, 30.0, 20.0, 20.0])).tolist() == [1.0, 4.0, 2.5, 2.5]


def test_spearman_matches_the_textbook_formula() -> None:
    # No ties: rho = 1 - 6 * sum(d^2) / (n (n^2 - 1)) = 1 - 6 * 4 / 120 = 0.8
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    # Ties: Pearson on the average ranks [1, 2.5, 2.5, 4] vs [1, 2, 3, 4] = 4.5 / sqrt(4.5 * 5)
    assert spearman([0.1, 0.5, 0.5, 0.9], [0.0, 0.2, 0.3, 1.0]) == pytest.approx(3 / math.sqrt(10))
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_spearman_is_undefined_for_too_few_or_constant_values() -> None:
    assert math.isnan(spearman([1, 2], [1, 2]))
    assert math.isnan(spearman([1, 2, 3], [5, 5, 5]))
    with pytest.raises(ValueError):
        spearman([1, 2, 3], [1, 2])


def test_bootstrap_interval_is_reproducible_and_brackets_rho() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=40)
    y = x + rng.normal(scale=1.0, size=40)
    low, high = bootstrap_spearman(x, y)
    assert (low, high) == bootstrap_spearman(x, y)  # fixed seed
    assert -1 <= low < spearman(x, y) < high <= 1
    assert bootstrap_spearman(x, y, seed=1) != (low, high)


def test_a_perfectly_monotonic_relation_has_a_degenerate_interval() -> None:
    assert bootstrap_spearman(np.arange(10.0), np.arange(10.0) ** 3) == (1.0, 1.0)
    assert all(math.isnan(v) for v in bootstrap_spearman([1.0, 2.0], [1.0, 2.0]))
