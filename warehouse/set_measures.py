"""The set measures of the countries an answer names against the gold ones (Jaccard, Dice, overlap, first in gold),
in one home below the two stages that compute them: the score stage on every answer (pipeline/score/metrics.py), and
the marts on linked answers against a gold that linking and ingesting change with no score run after
(warehouse/marts/035_linked_origin_answers.sql, 090_corpus_analyses.sql), as the SQL functions `register` adds.

Set inputs accept any iterable and are treated as sets; a bare ``str`` is refused with ``TypeError`` because iterating
it would silently compare characters ("UA" -> {"U", "A"}). In SQL a NULL list gives NULL (the function is not called);
what a missing gold means is the mart's rule, written in its SQL."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa


def as_set(items: Iterable[Hashable], what: str) -> frozenset:
    """Any iterable as a set; a bare string is a caller bug (it would become a set of characters)."""
    if isinstance(items, str | bytes):
        raise TypeError(f"{what} must be an iterable of items, not a bare string {items!r}; wrap it: [{items!r}]")
    return frozenset(items)


def as_sets(pred: Iterable[Hashable], gold: Iterable[Hashable]) -> tuple[frozenset, frozenset]:
    """`pred` and `gold` as sets (`as_set`)."""
    return as_set(pred, "pred"), as_set(gold, "gold")


def jaccard(pred: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
    """|P∩G| / |P∪G|: strict overlap, penalises both missing and extra countries.

    Empty sets: both empty -> 1.0 (nothing to name and nothing named is perfect agreement);
    exactly one empty -> 0.0 (a missing answer, or an answer where none was expected)."""
    p, g = as_sets(pred, gold)
    if not p and not g:
        return 1.0
    return len(p & g) / len(p | g)


def dice(pred: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
    """2|P∩G| / (|P|+|G|): like Jaccard but kinder to partial overlap (dice = 2J / (1+J)).

    Empty sets: both empty -> 1.0; exactly one empty -> 0.0 (same reasons as `jaccard`)."""
    p, g = as_sets(pred, gold)
    if not p and not g:
        return 1.0
    return 2 * len(p & g) / (len(p) + len(g))


def overlap(pred: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
    """|P∩G| / min(|P|,|G|): 1.0 whenever one set contains the other, so naming one of several
    gold countries (or the gold country among others) counts fully.

    Empty sets: both empty -> 1.0; exactly one empty -> 0.0 (min would be 0: an empty answer
    does not "contain" anything, it is simply no answer)."""
    p, g = as_sets(pred, gold)
    if not p and not g:
        return 1.0
    if not p or not g:
        return 0.0
    return len(p & g) / min(len(p), len(g))


def first_in_gold(pred: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
    """1.0 if the first predicted item is in gold, else 0.0: accuracy for single-answer VQA,
    where only the model's first (top) answer counts. Pass `pred` in the model's order (a list).

    No prediction -> 0.0 (even if gold is empty: a single-answer question always has an answer)."""
    if isinstance(pred, str | bytes):
        raise TypeError(f"pred must be an iterable of items, not a bare string {pred!r}; wrap it: [{pred!r}]")
    g = as_set(gold, "gold")
    for first in pred:
        return 1.0 if first in g else 0.0
    return 0.0


# The SQL name of each measure, `fn(pred VARCHAR[], gold VARCHAR[]) -> DOUBLE` (set_*: DuckDB's own `jaccard` compares
# strings).
SQL_FUNCTIONS: dict[str, Callable[[Iterable[Hashable], Iterable[Hashable]], float]] = {
    "set_jaccard": jaccard,
    "set_dice": dice,
    "set_overlap": overlap,
    "first_in_gold": first_in_gold,
}

_registered: weakref.WeakSet = weakref.WeakSet()


def register(con: duckdb.DuckDBPyConnection) -> None:
    """Add `SQL_FUNCTIONS` to `con`, once per connection (every mart runs with them: `Mart.run`). Arrow functions,
    called once per batch of rows rather than once per row; DuckDB answers NULL for a NULL list without calling."""
    if con in _registered:
        return
    for name, measure in SQL_FUNCTIONS.items():
        con.create_function(name, _on_columns(measure), ["VARCHAR[]", "VARCHAR[]"], "DOUBLE", type="arrow")
    _registered.add(con)


def _on_columns(measure: Callable[[list, list], float]) -> Callable[[pa.Array, pa.Array], pa.Array]:
    """`measure` on two columns of lists (no NULL among them), row by row."""
    import pyarrow as pa

    def on_columns(pred, gold):  # unannotated: DuckDB evaluates a function's annotations, and `pa` is local here
        rows = zip(pred.to_pylist(), gold.to_pylist(), strict=True)
        return pa.array([measure(p, g) for p, g in rows], pa.float64())

    return on_columns
