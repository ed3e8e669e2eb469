"""The fold's compiled kernel (numba), apart from :mod:`pipeline.corpus.fold` so that importing the scanner, or a
scan that finds every shard already scanned, does not load numba; the first folded batch does."""

from __future__ import annotations

import numba
import numpy as np

from pipeline.corpus.fold import DROP, SEP, SLOW, SPACE, astral

_astral = numba.njit(cache=True, nogil=True)(astral)


@numba.njit(cache=True, nogil=True, boundscheck=False)
def fold_kernel(data, offsets, by_pair, by_code_point, out):  # pragma: no cover - compiled
    """One pass over the bytes (a flat loop: a loop per document ran at half the speed)."""
    n_docs = offsets.shape[0] - 1
    size = offsets[n_docs]
    starts = np.empty(n_docs, np.int64)
    ends = np.empty(n_docs, np.int64)
    out[0] = SPACE
    j = 1
    d = 0
    next_doc = offsets[0]
    second = np.int64(data[offsets[0]]) if offsets[0] < size else 0
    for i in range(offsets[0], size):
        if i == next_doc:
            while d < n_docs and offsets[d] == i:
                j = _frame(out, j, d, starts, ends)
                d += 1
            next_doc = offsets[d] if d < n_docs else size
        first = second
        second = np.int64(data[i + 1]) if i + 1 < size else 0
        value = np.int64(by_pair[(first << 8) | second])
        if value == SLOW:
            if first < 0xF0:
                third = np.int64(data[i + 2])
                value = np.int64(by_code_point[((first & 0x0F) << 12) | ((second & 0x3F) << 6) | (third & 0x3F)])
            else:  # four bytes; the plane and block decide
                value = _astral(((first & 0x07) << 18) | ((second & 0x3F) << 12))
        out[j] = value
        j += (value & 0xFF) != DROP
    while d < n_docs:  # empty documents at the end
        j = _frame(out, j, d, starts, ends)
        d += 1
    if n_docs:
        ends[n_docs - 1] = j
    out[j] = SPACE
    return j + 1, starts, ends


@numba.njit(cache=True, nogil=True, inline="always")
def _frame(out, j, d, starts, ends):  # pragma: no cover - compiled
    """Close document d-1 and open document d: " \n " between them."""
    if d:
        ends[d - 1] = j
        out[j] = SPACE
        out[j + 1] = SEP
        out[j + 2] = SPACE
        j += 3
    starts[d] = j
    return j
