"""The marker file every tiny random model folder carries, so pages can say plainly that a tiny random model
produced what they show."""

from __future__ import annotations

import json
from pathlib import Path

SEED = 1234
MARKER = "dish-atlas-tiny.json"


def is_tiny_random(model: str | Path) -> bool:
    """True for a folder made by `tiny-model` (it carries the marker file)."""
    return (Path(model) / MARKER).is_file()


def write_marker(out: Path, kind: str) -> None:
    (Path(out) / MARKER).write_text(json.dumps({"kind": kind, "random_weights": True, "seed": SEED}) + "\n")
