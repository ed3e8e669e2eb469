"""`compose culturemix`: every variant for the sample, with and without the tiny FLUX.1-Kontext edit
pipeline, recipes and content hashes recorded, cached, and resumed after SIGKILL."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from pipeline.compose.culturemix import PANEL, fit, plain_object, side_by_side, stack
from pipeline.datasets.culturemix_real import red_box
from pipeline.tiny.marker import is_tiny_random
from tests.helpers import copy_warehouse, query, run_cli, started_cli

BACKGROUNDS = {
    "Mexico1": (200, 60, 40),
    "Spain": (230, 200, 40),
    "Unitedstates2": (40, 60, 200),
    "Atlantis3": (0, 0, 0),
}


def make_backgrounds(folder: Path) -> Path:
    """Street scenes drawn in code, named as CultureMix labels them (Atlantis3 names no country)."""
    folder.mkdir(parents=True, exist_ok=True)
    for label, colour in BACKGROUNDS.items():
        image = Image.new("RGB", (400, 220), colour)
        ImageDraw.Draw(image).rectangle((40, 60, 160, 210), fill=(90, 90, 90))
        image.save(folder / f"{label}.png")
    return folder


def test_layouts_put_the_target_left_and_the_background_on_top():
    target, other = Image.new("RGB", (300, 200), "red"), Image.new("RGB", (100, 100), "blue")
    pair = side_by_side(fit(target), fit(other))
    assert pair.size == (2 * PANEL, PANEL)
    assert pair.getpixel((10, 10)) == (255, 0, 0) and pair.getpixel((PANEL + 10, 10)) == (0, 0, 255)
    scene = stack(Image.new("RGB", (50, 50), "green"), pair)
    assert scene.size == (2 * PANEL, 2 * PANEL)
    assert scene.getpixel((5, 5)) == (0, 128, 0) and scene.getpixel((5, PANEL + 5)) == (255, 0, 0)
    boxed = red_box(pair, (2, 2, PANEL - 3, PANEL - 3))
    assert boxed.getpixel((3, 100)) == (230, 0, 0) and boxed.getpixel((PANEL + 3, 100)) == (0, 0, 255)
    assert plain_object("grey ball").size == (PANEL, PANEL)
    with pytest.raises(ValueError):
        plain_object("flag")


@pytest.fixture(scope="module")
def sample(tmp_path_factory, ingested_template) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("compose")
    warehouse = copy_warehouse(ingested_template("culturemix"), root / "warehouse.duckdb")
    return warehouse, make_backgrounds(root / "backgrounds")


def test_compose_builds_every_variant_for_the_sample_and_caches_it(sample, tmp_path: Path):
    warehouse, backgrounds = sample
    out = tmp_path / "out"
    first = run_cli(warehouse, "compose", "culturemix", "--out", str(out), "--backgrounds", str(backgrounds))
    assert "Atlantis3.png" in first.stderr  # a background named by no country is skipped, and said so
    kinds = query(
        warehouse,
        "SELECT subtask, distractor_kind, count(*) FROM core.culturemix_compositions GROUP BY ALL ORDER BY ALL",
    )
    n_targets = query(warehouse, "SELECT count(*) FROM core.culturemix_images WHERE subtask = 'SF'")[0][0]
    assert kinds == [
        ("MF", "agnostic", n_targets),
        ("MF", "cultural", 3 * n_targets),
        ("MFB", "agnostic", n_targets),
        ("MFB", "cultural", 3 * n_targets),
        ("REAL", "cultural", 3 * n_targets),
        ("SFB", "agnostic", n_targets),
        ("SFB", "cultural", 3 * n_targets),
    ]
    for image, path, content, recipe in query(
        warehouse, "SELECT image, path, content_sha256, recipe FROM core.culturemix_compositions"
    ):
        import hashlib

        assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == content
        recipe = json.loads(recipe)
        assert {"inputs", "operations", "seed", "subtask"} <= set(recipe) and recipe.get("model") is None
        assert all(len(i["sha256"]) == 64 for i in recipe["inputs"])
        assert image.startswith("composed/")
    again = run_cli(warehouse, "compose", "culturemix", "--out", str(out), "--backgrounds", str(backgrounds))
    assert f"composed 0 images ({sum(n for *_, n in kinds)} cached)" in again.stderr


def test_composites_become_items_that_a_model_can_be_asked(
    culturemix_warehouse: Path, tmp_path: Path, tiny_vision_model: Path
):
    warehouse = culturemix_warehouse
    backgrounds = make_backgrounds(tmp_path / "bg")
    run_cli(warehouse, "compose", "culturemix", "--out", str(tmp_path / "o"), "--backgrounds", str(backgrounds),
            "--limit", "1", "--per-target", "1")  # fmt: skip
    run_cli(warehouse, "generate", "--task", "culturemix.mfb", "--lang", "en", "--backend", "transformers",
            "--model", str(tiny_vision_model), "--variants", "base", "--max-tokens", "4")  # fmt: skip
    rows = query(
        warehouse,
        "SELECT c.origin, c.distractor_kind, count(*) FROM core.generations g JOIN core.items i USING (item_id) "
        "JOIN core.culturemix_images c ON c.image = i.source_ref WHERE i.task_id = 'culturemix.mfb' GROUP BY ALL "
        "ORDER BY ALL",
    )
    assert ("composed", "agnostic", 1) in rows and ("composed", "cultural", 1) in rows
    assert ("dataset", "cultural", 34) in rows


def test_harmonised_with_a_tiny_flux_kontext_pipeline(sample, tmp_path: Path):
    warehouse, _ = sample
    model = tmp_path / "kontext"
    run_cli(warehouse, "tiny-edit-model", "--out", str(model))
    saved = model / "tiny-flux-kontext"
    assert json.loads((saved / "model_index.json").read_text())["_class_name"] == "FluxKontextPipeline"
    assert is_tiny_random(saved)  # pages can say a tiny random model harmonised what they show
    plain_args = ("compose", "culturemix", "--out", str(tmp_path / "h"), "--limit", "1", "--per-target", "1")
    run_cli(warehouse, *plain_args)
    args = (*plain_args, "--edit-model", str(saved), "--steps", "2")
    run_cli(warehouse, *args)
    rows = query(
        warehouse,
        "SELECT recipe, model, path FROM core.culturemix_compositions WHERE model IS NOT NULL ORDER BY image",
    )
    assert len(rows) == 5  # MF and REAL (boxed MF) cultural, and the three agnostic variants (no backgrounds given)
    recipe = json.loads(rows[0][0])
    harmonise = recipe["operations"][-1]
    assert harmonise["op"] == "harmonise" and harmonise["steps"] == 2 and len(harmonise["weights_sha256"]) == 64
    assert rows[0][1] == str(saved)
    plain = query(
        warehouse,
        "SELECT count(*) FROM core.culturemix_compositions WHERE model IS NULL AND recipe_sha256 NOT IN "
        "(SELECT recipe_sha256 FROM core.culturemix_compositions WHERE model IS NOT NULL)",
    )
    assert plain[0][0] > 0  # the unharmonised composites stay, under their own recipes
    again = run_cli(warehouse, *args)
    assert "composed 0 images (5 cached)" in again.stderr


def _composed(warehouse: Path) -> set[tuple[str, str]]:
    return set(query(warehouse, "SELECT recipe_sha256, content_sha256 FROM core.culturemix_compositions"))


def test_a_killed_compose_resumes_to_the_same_result(ingested_template, tmp_path: Path):
    backgrounds = make_backgrounds(tmp_path / "bg")
    clean, killed = tmp_path / "clean" / "w.duckdb", tmp_path / "killed" / "w.duckdb"
    for warehouse in (clean, killed):
        copy_warehouse(ingested_template("culturemix"), warehouse)
    # the first 5 target foods: 75 composites, killed after 40 (the whole sample's 180 cost ~30 CPU-s more)
    args = ["compose", "culturemix", "--backgrounds", str(backgrounds), "--limit", "5"]
    run_cli(clean, *args, "--out", str(tmp_path / "clean-out"))
    out = tmp_path / "killed-out"
    with started_cli(killed, *args, "--out", str(out)) as command:
        deadline = time.monotonic() + 120
        while len(list(out.glob("*/*.png"))) < 40 and command.process.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert command.kill() == -signal.SIGKILL, "compose finished before it could be killed"
    partial = _composed_after_kill(killed)
    assert 0 < len(partial) < len(_composed(clean))
    resumed = run_cli(killed, *args, "--out", str(out))
    assert f"({len(partial)} cached)" in resumed.stderr
    assert _composed(killed) == _composed(clean)
    assert not list(out.glob("*/*.part-*"))


def _composed_after_kill(warehouse: Path) -> set[tuple[str, str]]:
    """What the killed run committed, read from its working database (it never published)."""
    work = warehouse.with_name("w.work.duckdb")
    return set(query(work, "SELECT recipe_sha256, content_sha256 FROM core.culturemix_compositions"))
