"""The fold kernel compiled ahead of time, so a scan does not pay numba's start on every invocation.

Why: numba's JIT, even when its cache holds the compiled kernel, costs about 0.6 CPU-s per process (importing numba
and setting up its compiler target before it can load the cached code) — a third of what a small `corpus scan`
costs in all. The same function compiled ahead of time by numba's ``pycc`` is a plain extension module that loads in
a millisecond without numba. It is built once, on the first fold that finds none, beside numba's own cache
(``pipeline/corpus/__pycache__``: every process of a checkout shares it), named by a digest of the kernel's source,
the numba/numpy/Python versions and the CPU (it is built for the host's instruction set). Where it cannot be built
or loaded (no C compiler, a read-only folder, `DISH_ATLAS_PATTERN_CACHE=off`), the JIT kernel runs: the same code.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import sys
import sysconfig
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from pipeline.core import derived
from pipeline.corpus.fold import Alphabet, Folded

MODULE = "dish_atlas_fold"
# The C-contiguous types the scan passes (a layout-generic signature ran at 60% of the JIT's speed).
SIGNATURE = "Tuple((i8, i8[::1], i8[::1]))(u1[::1], i8[::1], u2[::1], u2[::1], u2[::1])"
_HERE = Path(__file__).resolve().parent
_LOCK = threading.Lock()

Kernel = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], tuple[int, np.ndarray, np.ndarray]]


def _cpu() -> str:
    """What the host-specific build depends on: the CPU's model and instruction-set flags."""
    with contextlib.suppress(OSError):
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(sorted({line for line in lines if line.startswith(("model name", "flags"))}))
    return f"{platform.machine()} {platform.processor()}"


def build_path(folder: Path = _HERE / "__pycache__") -> Path:
    digest = hashlib.sha256()
    for name in ("kernel.py", "fold.py", "compiled.py"):
        digest.update((_HERE / name).read_bytes())
    for part in (importlib.metadata.version("numba"), np.__version__, sys.version, _cpu()):
        digest.update(part.encode() + b"\0")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return folder / f"{MODULE}.{digest.hexdigest()[:24]}{suffix}"


@functools.cache
def fold_kernel() -> Kernel:
    """The ahead-of-time kernel (built now when missing), else numba's JIT kernel."""
    if derived.enabled():
        with _LOCK:
            path = build_path()
            failed = path.with_name(path.name + ".failed")  # tried once: no C compiler, say; not again
            if not path.exists() and not failed.exists():
                try:
                    build(path)
                except Exception:  # any failure to build only costs the JIT's start
                    with contextlib.suppress(OSError):
                        failed.touch()
            with contextlib.suppress(ImportError, OSError):
                return _checked(_load(path).fold_kernel)
    from pipeline.corpus.kernel import fold_kernel as jit

    return jit


def build(path: Path) -> None:
    """Compile the kernel with numba.pycc into a temporary folder and rename the module into place (so a killed
    build or two processes building at once never leave half a file)."""
    from numba.pycc import CC
    from numba.pycc import compiler as pycc_compiler

    from pipeline.corpus import kernel

    path.parent.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(dir=path.parent, prefix=".build-") as tmp,
        warnings.catch_warnings(),
        _releasing_gil(pycc_compiler),
    ):
        warnings.simplefilter("ignore")
        compiler = CC(MODULE)
        compiler.output_dir = tmp
        compiler.target_cpu = "host"
        compiler.verbose = False
        compiler.export("fold_kernel", SIGNATURE)(kernel.fold_kernel.py_func)
        compiler.compile()
        built = next(Path(tmp).glob(f"{MODULE}*{sysconfig.get_config_var('EXT_SUFFIX') or ''}"))
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        shutil.move(built, partial)
        partial.replace(path)


@contextlib.contextmanager
def _releasing_gil(pycc_compiler) -> Iterator[None]:
    """Compile with the interpreter lock released around the kernel, as `njit(nogil=True)` does: pycc has no option
    for it and builds its wrappers with the default flags, so a kernel built without this held the lock for the whole
    fold and the threads that scan shards at once took turns instead of folding on two cores."""
    base = pycc_compiler.Flags

    class Flags(base):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = True

    pycc_compiler.Flags = Flags
    try:
        yield
    finally:
        pycc_compiler.Flags = base


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(MODULE, path)
    if spec is None or spec.loader is None:
        raise ImportError(path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _checked(kernel: Kernel) -> Kernel:
    """The compiled module trusts its arguments' types (a wrong dtype reads past a buffer): make them exact."""

    def fold(data, offsets, by_pair, by_code_point, out):
        if out.dtype != np.uint16 or out.ndim != 1 or not out.flags.c_contiguous or not out.flags.writeable:
            raise TypeError("the fold's output must be a writable, contiguous uint16 array")
        return kernel(
            np.ascontiguousarray(data, dtype=np.uint8),
            np.ascontiguousarray(offsets, dtype=np.int64),
            np.ascontiguousarray(by_pair, dtype=np.uint16),
            np.ascontiguousarray(by_code_point, dtype=np.uint16),
            out,
        )

    return fold


class Folder:
    """Folds batches with one alphabet, reusing its buffers (fresh gigabytes of pages cost as much as the fold)."""

    def __init__(self, alphabet: Alphabet) -> None:
        self.alphabet = alphabet
        self._case = np.empty(0, dtype=np.uint16)
        self._text = np.empty(0, dtype=np.uint8)

    def __call__(self, data: np.ndarray, offsets: np.ndarray) -> Folded:
        """Fold documents given as UTF-8 `data` and int64 `offsets` (document i is data[offsets[i]:offsets[i+1]])."""
        need = int(offsets[-1] - offsets[0]) + 3 * len(offsets) + 2
        if len(self._case) < need:
            self._case = np.empty(need + need // 4, dtype=np.uint16)
            self._text = np.empty(len(self._case), dtype=np.uint8)
        tables = self.alphabet.by_pair, self.alphabet.by_code_point
        size, starts, ends = fold_kernel()(data, offsets, *tables, self._case)
        case, text = self._case[:size], self._text[:size]
        np.copyto(text, case, casting="unsafe")
        return Folded(text, case, starts, ends)
