"""The release of the code (`python -m pipeline --version`, the dashboard's footer).

One home: `version` in pyproject.toml. A source checkout reads it there (an editable install's metadata keeps the
version it was installed with); an installed wheel, which has no pyproject.toml beside it, reads its metadata.
What changed per release, and whether a warehouse must be republished, is in CHANGELOG.md.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "dish-atlas"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@cache
def release() -> str:
    """The version of this code, e.g. "0.1.0" ("unknown" when neither pyproject.toml nor metadata says)."""
    try:
        with open(PYPROJECT, "rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        pass
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"
