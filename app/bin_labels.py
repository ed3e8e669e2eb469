"""Tick labels and hover text for the corpus analyses' bins. The edges are those of
warehouse/marts/090_corpus_analyses.sql; counts are whole documents, so a label names the integers a
bin holds, and a narrow bin of a corpus with small counts may hold none ("–")."""

from __future__ import annotations

import math


def integer_range(low: float, high: float, last: bool, signed: bool = False) -> str:
    """The integers in [low, high) ([low, high] for the last bin)."""
    first = math.ceil(round(low, 6))
    top = math.floor(round(high, 6)) if last else math.ceil(round(high, 6)) - 1
    if top < first:
        return "–"

    def fmt(value: int) -> str:
        return f"{value:+,}" if signed and value else f"{value:,}"

    return fmt(first) if top == first else f"{fmt(first)}{' … ' if signed else '–'}{fmt(top)}"


def count_labels(max_count: float, n_bins: int = 10) -> dict[int, str]:
    """Bins of log10(1 + count) in tenths of the largest (all in bin 1 when every count is 0)."""
    if max_count <= 0:
        return {b: "0" if b == 1 else "–" for b in range(1, n_bins + 1)}
    top = math.log10(1 + max_count)
    edges = [10 ** (b * top / n_bins) - 1 for b in range(n_bins + 1)]
    return {b: integer_range(edges[b - 1], edges[b], b == n_bins) for b in range(1, n_bins + 1)}


def ratio_labels(n_bins: int = 10) -> dict[int, str]:
    return {b: f"{(b - 1) / n_bins:.1f}–{b / n_bins:.1f}" for b in range(1, n_bins + 1)}


def log_ratio_labels(min_log_ratio: float | None, n_bins: int = 10) -> dict[int, str]:
    """Log-spaced bins of a ratio between the smallest positive one (10^min_log_ratio) and 1, bin 1 from 0."""
    low = min_log_ratio or 0.0
    edges = [0.0] + [10 ** (low * (1 - b / n_bins)) for b in range(1, n_bins + 1)]
    return {b: f"{edges[b - 1]:.2g}–{edges[b]:.2g}" for b in range(1, n_bins + 1)}


def difference_labels(max_abs_difference: float, n_bins: int = 9) -> dict[int, str]:
    """Bins of sign(d)·log10(1 + |d|), symmetric around 0 up to the largest |d|."""
    top = math.log10(1 + max_abs_difference)
    ys = [-top + k * 2 * top / n_bins for k in range(n_bins + 1)]
    ds = [math.copysign(10 ** abs(y) - 1, y) for y in ys]
    return {b: integer_range(ds[b - 1], ds[b], b == n_bins, signed=True) for b in range(1, n_bins + 1)}


def names_text(names: str | list | None, limit: int = 30) -> str:
    """A bin's names for a chart's tooltip: the first `limit` of a list, then how many more (plain
    text: Vega-Lite tooltips show text, never markup)."""
    if isinstance(names, str) or names is None:
        return str(names or "")
    names = [str(n) for n in names]
    return ", ".join(names[:limit]) + (f", … (+{len(names) - limit} more)" if len(names) > limit else "")
