"""Rank statistics the marts aggregate with (and the pipeline's stages reuse): the warehouse imports nothing from
the pipeline, so what an aggregate needs lives here."""

from __future__ import annotations

import numpy as np

RESAMPLES = 1000
SEED = 20241


def ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their average rank."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    ranked = np.empty(len(values))
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranked[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return ranked


def spearman(x, y) -> float:
    """Spearman's rho (Pearson correlation of average ranks); NaN for fewer than 3 pairs or a constant side."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) != len(y):
        raise ValueError("spearman needs two sequences of one length")
    if len(x) < 3:
        return float("nan")
    rx, ry = ranks(x), ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denominator = np.sqrt((rx**2).sum() * (ry**2).sum())
    return float((rx * ry).sum() / denominator) if denominator else float("nan")


def bootstrap_spearman(x, y, resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """Percentile 95% interval of rho over `resamples` resamples of the pairs (constant resamples dropped)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 3:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(x), size=(resamples, len(x)))
    rhos = np.array([spearman(x[d], y[d]) for d in draws])
    rhos = rhos[~np.isnan(rhos)]
    if len(rhos) == 0:
        return (float("nan"), float("nan"))
    low, high = np.percentile(rhos, [2.5, 97.5])
    return float(low), float(high)
