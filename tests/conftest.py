"""Shared fixtures: the real data in ../shared/data, temporary warehouses, and the CLI run as a
user runs it (a subprocess), so tests exercise the real entry point."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import REPO, run_cli


def shared_data_dir() -> Path:
    """DATA (as .ci/run sets it) or ../shared/data next to the checkout."""
    path = Path(os.environ.get("DATA") or REPO.parent / "shared" / "data").resolve()
    if not (path / "borsch" / "RU_DATA.xlsx").is_file():
        raise RuntimeError(f"real data not found at {path}: set DATA=/path/to/shared/data")
    return path


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return shared_data_dir()


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    return tmp_path / "wh" / "warehouse.duckdb"


@pytest.fixture(scope="session")
def real_warehouse(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """BORSch + WorldCuisines + all 12 real prediction files, published once for the session."""
    path = tmp_path_factory.mktemp("real") / "warehouse.duckdb"
    run_cli(path, "demo", "--data", str(data_dir))
    return path


@pytest.fixture(scope="session")
def tiny_text_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny Qwen2 chat model with a ChatML template (random weights: any text comes out)."""
    from pipeline.backends.tiny import build_tiny_model

    return build_tiny_model("text", tmp_path_factory.mktemp("tiny-text"))


@pytest.fixture(scope="session")
def tiny_vision_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny LLaVA model (small CLIP tower + tiny Qwen2) with its processor."""
    from pipeline.backends.tiny import build_tiny_model

    return build_tiny_model("vision", tmp_path_factory.mktemp("tiny-vision"))
