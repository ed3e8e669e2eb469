"""Datasets: one module each (its public files, its ingest, how its items become prompts), one
registration line each. Adding a benchmark = a module here + a line in `MODULES`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from warehouse.registry import Registry

if TYPE_CHECKING:
    from pipeline.datasets.base import Dataset

# name -> the module whose import registers it (imported on first use).
MODULES = {
    "borsch": "pipeline.datasets.borsch",
    "worldcuisines": "pipeline.datasets.worldcuisines",
    "sample": "pipeline.datasets.sample",
    "uacuisine": "pipeline.datasets.uacuisine",
    "culturemix": "pipeline.datasets.culturemix",
    "zno": "pipeline.datasets.zno",
    "multi30k": "pipeline.datasets.multi30k",
    "vqa": "pipeline.datasets.vqa",
}
DATASETS: Registry[Dataset] = Registry("dataset", modules=MODULES)


def get_dataset(name: str) -> Dataset:
    """The registered dataset `name` (an unknown name lists the known ones)."""
    return DATASETS.get(name)


def all_datasets() -> list[Dataset]:
    return [DATASETS.get(name) for name in DATASETS.names()]
