"""The fold kernel compiled ahead of time is the JIT kernel's code: same output, loaded without numba."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pipeline.corpus.compiled import build_path, fold_kernel
from pipeline.corpus.fold import Alphabet
from pipeline.corpus.kernel import fold_kernel as jit_kernel

DOCS = [
    "",
    "Борщ з України! бо́рщ, БОРЩ — ЇЖАК ґанок",  # combining accent, upper case, dashes
    "x\u00ady 漢字 😀 emoji\u200bzero-width",  # soft hyphen, CJK, an astral character
    "",
    "Ёлка ёж e\u0301 ÇIN çin",
    "",
]


def fold(kernel, docs: list[str], first: int) -> tuple:
    alphabet = Alphabet.of(["борщ", "україна", "їжак", "ґанок", "елка", "çin", "e"])
    raw = b"".join(d.encode() for d in docs)
    sizes = np.cumsum([0, *(len(d.encode()) for d in docs)], dtype=np.int64)
    data = np.frombuffer(b"pad"[:first] + raw, dtype=np.uint8)  # read-only, as Arrow's buffers are
    offsets = sizes + first  # documents need not start at the buffer's first byte
    out = np.zeros(len(raw) + 3 * len(docs) + 2, dtype=np.uint16)
    size, starts, ends = kernel(data, offsets, alphabet.by_pair, alphabet.by_code_point, out)
    return out[:size].tolist(), starts.tolist(), ends.tolist()


@pytest.mark.parametrize("first", [0, 3])
def test_the_compiled_kernel_folds_exactly_as_the_jit_kernel(first: int) -> None:
    assert fold(fold_kernel(), DOCS, first) == fold(jit_kernel, DOCS, first)


def test_the_compiled_kernel_loads_without_numba() -> None:
    fold_kernel()  # built here when this checkout has none yet
    code = (
        "import sys; from pipeline.corpus.compiled import fold_kernel; kernel = fold_kernel(); "
        "print('numba' in sys.modules, hasattr(kernel, 'py_func'))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_a_wrong_output_type_is_refused_not_written_past() -> None:
    table = np.zeros(1 << 16, np.uint16)
    with pytest.raises(TypeError):
        fold_kernel()(np.zeros(4, np.uint8), np.array([0, 4]), table, table, np.zeros(10, np.int32))


def test_the_compiled_kernel_releases_the_interpreter_lock() -> None:
    """Shards are folded by several threads at once: the module's wrapper must let go of the lock around the kernel
    (as the JIT kernel's `nogil=True` does), which it does by calling PyEval_SaveThread."""
    fold_kernel()
    assert b"PyEval_SaveThread" in build_path().read_bytes()
