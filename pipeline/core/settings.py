"""Where things live: the warehouse, the data directory and the embedded sample."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = PROJECT_ROOT / "assets" / "sample"

WAREHOUSE_ENV = "DISH_ATLAS_WAREHOUSE"
DATA_ENV = "DISH_ATLAS_DATA"


def default_warehouse() -> Path:
    """Outside the source tree, so a clone stays clean: $XDG_DATA_HOME/dish-atlas/warehouse.duckdb."""
    if os.environ.get(WAREHOUSE_ENV):
        return Path(os.environ[WAREHOUSE_ENV]).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "dish-atlas" / "warehouse.duckdb"


def default_data_dir() -> Path:
    """Where `data fetch` puts the public files: $XDG_CACHE_HOME/dish-atlas/data."""
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "dish-atlas" / "data"


def default_cache_dir() -> Path:
    """Derived files that are safe to delete (compiled pattern databases): $XDG_CACHE_HOME/dish-atlas/cache."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "dish-atlas" / "cache"
