"""`compose culturemix`: build CultureMix variants from the dish images the warehouse has.

For every target dish with a local photo (the dataset's SF images, or any real dish image):

- **MF**: the target on the left, another dish on the right (side by side, same height);
- **SFB**: a background image stacked above the food; **MFB**: a background above the MF pair;
- the **culture-agnostic** variants: the same layouts with a plain object (drawn in code: a ball,
  a cube, a mug) instead of the other food, and a plain wall instead of the background;
- **REAL**: the MFB (else MF) composite with a red box around the target.

Backgrounds come from `--backgrounds DIR`, one image per label named as CultureMix names them
(`Mexico1.jpg`: a country and a variant). Optionally each composite is **harmonised** by a
diffusers image-edit pipeline (FLUX.1-Kontext, `FluxKontextPipeline`; GPU for real models; a tiny
random one built in code for tests: `pipeline.tiny.images.build_image_edit`).

Every composite has a recipe (inputs with their content hashes, operations, model, seed); the
recipe's hash is the cache key and names the file; the row stores the content hash of the result.
Files are written to a temporary name and renamed, and each composite is one transaction, so a
killed run resumes: what is recorded (and whose file is intact) is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipeline.compose import pairing as pairings
from pipeline.compose import variants
from pipeline.datasets.culturemix import parse_background
from pipeline.datasets.culturemix_real import red_box
from pipeline.reference.cultural_distance import cultural_distance, great_circle_km, nearest
from warehouse.io import insert, transaction

RECIPE_VERSION = 2  # 2: distractors chosen by pipeline/compose/pairing.py (distance x difficulty strata)
PANEL = 256  # pixels: every food panel is PANEL x PANEL, a background PANEL high
PLAIN_OBJECTS = ("grey ball", "blue cube", "white mug")
EDIT_PROMPT = (
    "Make this one natural photograph: blend the lighting, shadows and colours of the parts, keep every food "
    "and the scene exactly where and what they are."
)


@dataclass(frozen=True)
class Food:
    dish_key: str
    dish_id: str
    name: str
    country: str | None
    path: Path
    sha256: str


@dataclass(frozen=True)
class Background:
    label: str
    country: str
    variant: int | None
    path: Path
    sha256: str


@dataclass
class ComposeSummary:
    built: int = 0
    cached: int = 0
    skipped_backgrounds: list[str] | None = None
    rated_foods: int = 0  # foods whose difficulty the stored baseline answers give (0: none; pairing by distance only)


# --- image operations (pure: PIL images in, PIL image out) -------------------------------------


def fit(image, size: int = PANEL):
    """Centre-crop to a square and resize to `size`."""
    from PIL import ImageOps

    return ImageOps.fit(image.convert("RGB"), (size, size))


def side_by_side(left, right):
    """Two panels of equal height, `left` first (the target in MF)."""
    from PIL import Image

    canvas = Image.new("RGB", (left.width + right.width, max(left.height, right.height)), "white")
    canvas.paste(left, (0, 0))
    canvas.paste(right, (left.width, 0))
    return canvas


def stack(top, bottom):
    """`top` (the background, resized to the width below) above `bottom` (the food)."""
    from PIL import Image, ImageOps

    top = ImageOps.fit(top.convert("RGB"), (bottom.width, PANEL))
    canvas = Image.new("RGB", (bottom.width, top.height + bottom.height), "white")
    canvas.paste(top, (0, 0))
    canvas.paste(bottom, (0, top.height))
    return canvas


def plain_object(kind: str, size: int = PANEL):
    """A culture-agnostic object drawn in code on a light table."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (size, size), (235, 232, 225))
    draw = ImageDraw.Draw(image)
    m = size // 5
    if kind == "grey ball":
        draw.ellipse((m, m, size - m, size - m), fill=(150, 150, 150), outline=(90, 90, 90), width=3)
    elif kind == "blue cube":
        draw.rectangle((m, m + m // 2, size - m - m // 2, size - m), fill=(60, 90, 170), outline=(30, 40, 90), width=3)
        draw.polygon(
            [(m, m + m // 2), (m + m // 2, m), (size - m, m), (size - m - m // 2, m + m // 2)], fill=(90, 120, 200)
        )
        draw.polygon(
            [
                (size - m - m // 2, m + m // 2),
                (size - m, m),
                (size - m, size - m - m // 2),
                (size - m - m // 2, size - m),
            ],
            fill=(40, 60, 130),
        )
    elif kind == "white mug":
        draw.rectangle((m, m, size - 2 * m, size - m), fill=(250, 250, 250), outline=(120, 120, 120), width=3)
        draw.arc(
            (size - 2 * m - m // 2, 2 * m, size - m + m // 3, size - 2 * m), -90, 90, fill=(120, 120, 120), width=6
        )
    else:
        raise ValueError(f"unknown plain object {kind!r}; known: {', '.join(PLAIN_OBJECTS)}")
    return image


def plain_wall(width: int, height: int = PANEL):
    """A culture-agnostic background: a plain wall with a soft vertical gradient."""
    from PIL import Image

    image = Image.new("RGB", (width, height))
    for y in range(height):
        shade = 215 - y * 30 // height
        image.paste((shade, shade, shade - 8), (0, y, width, y + 1))
    return image


# --- harmonisation ---------------------------------------------------------------------------


class Harmoniser:
    """A diffusers image-edit pipeline (FluxKontextPipeline) loaded with `from_pretrained`."""

    def __init__(self, path: str, steps: int = 28, guidance: float = 2.5, device: str | None = None) -> None:
        import torch
        from diffusers import FluxKontextPipeline

        self.name = path
        self.steps = steps
        self.guidance = guidance
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        dtype = torch.bfloat16 if self.device == "cuda" else torch.float32
        self.pipe = FluxKontextPipeline.from_pretrained(path, torch_dtype=dtype).to(self.device)
        self.pipe.set_progress_bar_config(disable=True)
        self.weights = _folder_hash(Path(path)) if Path(path).is_dir() else None

    def describe(self) -> dict:
        return {
            "model": self.name,
            "weights_sha256": self.weights,
            "steps": self.steps,
            "guidance": self.guidance,
            "prompt": EDIT_PROMPT,
        }

    def __call__(self, image, seed: int):
        import torch

        generator = torch.Generator(device="cpu").manual_seed(seed)
        width, height = image.width - image.width % 16, image.height - image.height % 16
        result = self.pipe(
            image=image.resize((width, height)),
            prompt=EDIT_PROMPT,
            num_inference_steps=self.steps,
            guidance_scale=self.guidance,
            height=height,
            width=width,
            generator=generator,
            max_area=width * height,
            _auto_resize=False,
        ).images[0]
        return result.convert("RGB").resize(image.size)


def _folder_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


# --- recipes ---------------------------------------------------------------------------------


def recipe_hash(recipe: dict) -> str:
    return hashlib.sha256(json.dumps(recipe, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def foods(con: duckdb.DuckDBPyConnection) -> list[Food]:
    """One local photo per dish: CultureMix SF images and any real dish image with a file."""
    rows = con.execute(
        """
        SELECT d.dish_key, d.dish_id, d.name,
               (SELECT country FROM core.dish_origins o WHERE o.dish_key = d.dish_key ORDER BY position LIMIT 1),
               arg_min(im.local_path, coalesce(im.position, 0) * 1000000 + hash(im.image_id) % 1000000)
        FROM core.images im JOIN core.dishes d USING (dish_key)
        WHERE im.kind = 'real' AND im.local_path IS NOT NULL
        GROUP BY ALL ORDER BY d.dish_key
        """
    ).fetchall()
    found = []
    for key, dish_id, name, country, path in rows:
        file = Path(path)
        if file.is_file():
            found.append(Food(key, dish_id, name, country, file, hashlib.sha256(file.read_bytes()).hexdigest()))
    return found


def backgrounds(folder: Path | None) -> tuple[list[Background], list[str]]:
    """Background images named by CultureMix label; (usable, names whose label is no country)."""
    if folder is None:
        return [], []
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such backgrounds folder")
    usable, skipped = [], []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in (".jpg", ".jpeg", ".png", ".webp"):
            continue
        try:
            country, variant = parse_background(path.stem)
        except ValueError:
            country, variant = None, None
        if country is None:
            skipped.append(path.name)
            continue
        usable.append(Background(path.stem, country, variant, path, hashlib.sha256(path.read_bytes()).hexdigest()))
    return usable, skipped


def plan(
    target: Food,
    others: list[Food],
    scenes: list[Background],
    per_target: int,
    seed: int,
    *,
    pairing: str = "stratified",
    difficulty: dict[str, str] | None = None,
    objects: list | None = None,
    positions: tuple[str, ...] = ("left",),
    sizes: tuple[float, ...] = (),
) -> list[dict]:
    """The recipes for one target: cultural and agnostic MF / SFB / MFB, and REAL; with `positions` holding
    "right", each cultural MF mirrored too, and with `sizes`, the SF food and each cultural MF with the target at
    those sizes."""
    rng = random.Random(f"{seed}:{target.dish_key}")
    food_in = {"role": "target", "dish_key": target.dish_key, "sha256": target.sha256}
    rated = difficulty or {}
    candidates = [pairings.Candidate(o.dish_key, o.country, rated.get(o.dish_key, "unknown")) for o in others]
    me = pairings.Candidate(target.dish_key, target.country, rated.get(target.dish_key, "unknown"))
    by_key = {o.dish_key: o for o in others}
    distractors = [by_key[c.dish_key] for c in pairings.choose(me, candidates, per_target, pairing, seed)]
    strata = {"pairing": pairing, "target_difficulty": me.difficulty}
    chosen_scenes = rng.sample(scenes, min(per_target, len(scenes)))
    recipes = []

    def add(subtask: str, kind: str, inputs: list[dict], operations: list[dict], meta: dict) -> None:
        recipes.append(
            {
                "version": RECIPE_VERSION,
                "subtask": subtask,
                "distractor_kind": kind,
                "inputs": [food_in, *inputs],
                "operations": operations,
                "seed": seed,
                "meta": meta,
            }
        )

    for index, other in enumerate(distractors):
        other_in = {"role": "distractor", "dish_key": other.dish_key, "sha256": other.sha256}
        pair = {"distractor": other.dish_key, **strata, "distractor_difficulty": rated.get(other.dish_key, "unknown")}
        add("MF", "cultural", [other_in], [{"op": "side_by_side", "left": "target", "right": "distractor"}], pair)
        if "right" in positions:  # Appendix B.2, Table 10: the MF image flipped horizontally
            operations = [{"op": "side_by_side", "left": "target", "right": "distractor"}, {"op": "mirror"}]
            add("MF", "cultural", [other_in], operations, {**pair, "target_position": "right"})
        for size in sizes:  # Appendix B.2, Table 11: the target smaller than the distractor
            operations = [{"op": "scale", "of": "target", "scale": size}, {"op": "side_by_side"}]
            add("MF", "cultural", [other_in], operations, {**pair, "target_scale": size})
        if chosen_scenes:
            scene = chosen_scenes[index % len(chosen_scenes)]
            scene_in = {"role": "background", "label": scene.label, "sha256": scene.sha256}
            operations = [
                {"op": "side_by_side", "left": "target", "right": "distractor"},
                {"op": "stack", "top": "background"},
            ]
            add(
                "MFB",
                "cultural",
                [other_in, scene_in],
                operations,
                {**pair, "background": scene.label},
            )
            add(
                "REAL",
                "cultural",
                [other_in, scene_in],
                [*operations, {"op": "red_box", "around": "target"}],
                {**pair, "background": scene.label},
            )
        else:
            add(
                "REAL",
                "cultural",
                [other_in],
                [{"op": "side_by_side"}, {"op": "red_box", "around": "target"}],
                pair,
            )
    for scene in chosen_scenes:
        scene_in = {"role": "background", "label": scene.label, "sha256": scene.sha256}
        add("SFB", "cultural", [scene_in], [{"op": "stack", "top": "background"}], {"background": scene.label})
    for size in sizes:  # Table 11's caption: the single food resized, beside the MF pairs above
        add("SF", "none", [], [{"op": "scale", "of": "target", "scale": size}], {"target_scale": size})
    plain = PLAIN_OBJECTS[rng.randrange(len(PLAIN_OBJECTS))]
    object_in: list[dict] = []
    if objects:  # CultureMix §4.3: apple, car, scissors, teddy bear, from their photos
        photo = objects[rng.randrange(len(objects))]
        plain, object_in = photo.name, [{"role": "object", "name": photo.name, "sha256": photo.sha256}]
    draw = {"op": "photo" if objects else "draw", "object": plain}
    add("MF", "agnostic", object_in, [draw, {"op": "side_by_side"}], {"object": plain})
    add("SFB", "agnostic", [], [{"op": "draw", "object": "plain wall"}, {"op": "stack", "top": "plain wall"}], {})
    add(
        "MFB",
        "agnostic",
        object_in,
        [
            draw,
            {"op": "side_by_side"},
            {"op": "draw", "object": "plain wall"},
            {"op": "stack", "top": "plain wall"},
        ],
        {"object": plain},
    )
    return recipes


def render(recipe: dict, by_key: dict[str, Food], scenes: dict[str, Background], objects: dict | None = None):
    """Carry out a recipe's operations (without harmonisation); returns the image. `objects`: the agnostic
    objects' photos by name (compose --agnostic)."""
    from PIL import Image

    meta = recipe["meta"]
    target = fit(Image.open(by_key[recipe["inputs"][0]["dish_key"]].path))
    if meta.get("target_scale"):
        target = variants.scaled(target, meta["target_scale"])
    if "distractor" in meta:
        right = fit(Image.open(by_key[meta["distractor"]].path))
    elif "object" in meta and objects and meta["object"] in objects:
        right = fit(Image.open(objects[meta["object"]].path))
    elif "object" in meta:
        right = plain_object(meta["object"])
    else:
        right = None
    subtask = recipe["subtask"]
    picture = side_by_side(target, right) if right is not None and subtask in ("MF", "MFB", "REAL") else target
    if meta.get("target_position") == "right":
        picture = variants.mirrored(picture)
    stacked = subtask in ("SFB", "MFB") or (subtask == "REAL" and "background" in meta)
    if stacked:
        top = Image.open(scenes[meta["background"]].path) if "background" in meta else plain_wall(picture.width)
        picture = stack(top, picture)
    if subtask == "REAL":
        top_offset = PANEL if stacked else 0
        picture = red_box(picture, (2, top_offset + 2, PANEL - 3, top_offset + PANEL - 3))
    return picture


def compose(
    con: duckdb.DuckDBPyConnection,
    out: Path,
    *,
    backgrounds_dir: Path | None = None,
    per_target: int = 3,
    seed: int = 0,
    limit: int | None = None,
    harmoniser: Harmoniser | None = None,
    on_built: Callable[[int, int], None] | None = None,
    pairing: str = "stratified",
    agnostic_dir: Path | None = None,
    positions: tuple[str, ...] = ("left",),
    sizes: tuple[float, ...] = (),
) -> ComposeSummary:
    """Build every recipe not yet built (or whose file changed); each one is one transaction. Distractors are
    stratified by cultural distance and by the difficulty the stored baseline SF answers give (CultureMix §2.3)."""
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*/*.part-*"):  # a file a killed run was writing
        stale.unlink(missing_ok=True)
    dishes = foods(con)
    if not dishes:
        raise ValueError(
            "no dish images with a local file in the warehouse: ingest CultureMix (its SF photos) or a dataset "
            "with images first"
        )
    by_key = {f.dish_key: f for f in dishes}
    scene_list, skipped = backgrounds(backgrounds_dir)
    scenes = {s.label: s for s in scene_list}
    targets = [f for f in dishes if f.dish_key.startswith("culturemix:")] or dishes
    targets = targets[:limit] if limit else targets
    unknown = sorted(set(positions) - set(variants.POSITIONS))
    if unknown:
        raise ValueError(f"unknown positions {unknown}; known: {', '.join(variants.POSITIONS)}")
    photos = variants.agnostic_objects(agnostic_dir) if agnostic_dir is not None else []
    objects = {o.name: o for o in photos}
    difficulty = pairings.difficulties(con, [f.dish_key for f in dishes])
    recipes = []
    for target in targets:
        others = [f for f in dishes if f.dish_key != target.dish_key]
        for recipe in plan(target, others, scene_list, per_target, seed, pairing=pairing, difficulty=difficulty,
                           objects=photos, positions=positions, sizes=sizes):  # fmt: skip
            if harmoniser is not None:
                recipe["operations"].append({"op": "harmonise", **harmoniser.describe()})
                recipe["model"] = harmoniser.name
            recipes.append(recipe)
    summary = ComposeSummary(skipped_backgrounds=skipped, rated_foods=len(difficulty))
    done = dict(con.execute("SELECT recipe_sha256, content_sha256 FROM core.culturemix_compositions").fetchall())
    for recipe in recipes:
        key = recipe_hash(recipe)
        relative = Path(recipe["subtask"].lower()) / f"{key[:20]}.png"
        path = out / relative
        if key in done and path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == done[key]:
            summary.cached += 1
            continue
        picture = render(recipe, by_key, scenes, objects)
        if harmoniser is not None:
            picture = harmoniser(picture, seed=recipe["seed"])
        content = _write_atomically(picture, path)
        _record(con, recipe, key, f"composed/{relative.as_posix()}", path, content, picture.size, by_key, scenes)
        summary.built += 1
        if on_built:
            on_built(summary.built + summary.cached, len(recipes))
    return summary


def _write_atomically(picture, path: Path) -> str:
    import io

    buffer = io.BytesIO()
    # zlib's fastest level: half the encoding time of Pillow's default (6), whose encoding was 40% of a compose run,
    # for files 8% larger (measured on 60 of the sample's composites); the pixels are the same
    picture.save(buffer, format="PNG", compress_level=1)
    data = buffer.getvalue()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".part-{os.getpid()}")
    partial.write_bytes(data)
    os.replace(partial, path)
    return hashlib.sha256(data).hexdigest()


def _record(con, recipe: dict, key: str, image: str, path: Path, content: str, size, by_key, scenes) -> None:
    """One composite: its recipe row (the culturemix dataset turns it into an item when asked)."""
    meta = recipe["meta"]
    target = by_key[recipe["inputs"][0]["dish_key"]]
    other = by_key.get(meta.get("distractor", ""))
    scene = scenes.get(meta.get("background", ""))
    food_distance = cultural_distance(target.country, other.country) if other else None
    scene_distance = cultural_distance(target.country, scene.country) if scene else None
    labels = {
        "subset": "composed",
        "subtask": recipe["subtask"],
        "distractor_kind": recipe["distractor_kind"],
        "target_food_id": target.dish_id,
        "target_food_name": target.name,
        "target_dish_key": target.dish_key if target.dish_key.startswith("worldcuisines:") else None,
        "target_country": target.country,
        "distractor_food_name": other.name if other else meta.get("object"),
        "distractor_dish_key": other.dish_key if other else None,
        "distractor_country": other.country if other else None,
        "background_label": scene.label if scene else ("plain wall" if recipe["subtask"] != "MF" and
                                                      recipe["distractor_kind"] == "agnostic" else None),
        "background_country": scene.country if scene else None,
        "background_variant": scene.variant if scene else None,
        "distance_food": food_distance,
        "distance_background": scene_distance,
        "distance": nearest(food_distance, scene_distance),
        "km_food": great_circle_km(target.country, other.country) if other else None,
        "km_background": great_circle_km(target.country, scene.country) if scene else None,
        "source_file": "compose",
        "pairing": meta.get("pairing"),
        "target_difficulty": meta.get("target_difficulty"),
        "distractor_difficulty": meta.get("distractor_difficulty"),
        "target_position": meta.get("target_position", "left") if recipe["subtask"] in ("MF", "MFB", "REAL") else None,
        "target_scale": meta.get("target_scale"),
    }  # fmt: skip
    with transaction(con):
        con.execute("DELETE FROM core.culturemix_compositions WHERE recipe_sha256 = ?", [key])
        insert(
            con,
            "core.culturemix_compositions",
            [
                {
                    "recipe_sha256": key,
                    "image": image,
                    "path": str(path),
                    "content_sha256": content,
                    "subtask": recipe["subtask"],
                    "distractor_kind": recipe["distractor_kind"],
                    "target_dish_key": target.dish_key,
                    "recipe": json.dumps(recipe, sort_keys=True, ensure_ascii=False),
                    "labels": json.dumps(labels, ensure_ascii=False),
                    "model": recipe.get("model"),
                    "seed": recipe["seed"],
                    "width": size[0],
                    "height": size[1],
                }
            ],
        )


def run(con: duckdb.DuckDBPyConnection, settings: dict) -> ComposeSummary:
    """The `compose` step: settings as the command line gave them (see pipeline/cli.py)."""
    from pipeline.core.output import progress_bar, say

    if not settings.get("out"):
        raise ValueError("compose needs --out DIR")
    harmoniser = None
    if settings.get("edit_model"):
        harmoniser = Harmoniser(str(settings["edit_model"]), steps=int(settings.get("steps") or 28))
    with progress_bar() as progress:
        bar = progress.add_task("composing", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(bar, total=total, completed=done)

        summary = compose(
            con,
            Path(settings["out"]),
            backgrounds_dir=settings.get("backgrounds"),
            per_target=int(settings.get("per_target") or 3),
            seed=int(settings.get("seed") or 0),
            limit=settings.get("limit"),
            harmoniser=harmoniser,
            on_built=advance,
            pairing=settings.get("pairing") or "stratified",
            agnostic_dir=settings.get("agnostic"),
            positions=tuple(settings.get("positions") or ("left",)),
            sizes=tuple(settings.get("sizes") or ()),
        )
    say("composed {} images ({} cached) into {}", summary.built, summary.cached, settings["out"])
    if summary.skipped_backgrounds:
        say("[yellow]backgrounds whose name is no CultureMix label were skipped:[/] {}",
            ", ".join(summary.skipped_backgrounds))  # fmt: skip
    if summary.rated_foods == 0 and (settings.get("pairing") or "stratified") == "stratified":
        say("[yellow]no baseline answers to the SF items: every food's difficulty is unknown, so distractors are "
            "stratified by cultural distance only[/] (answer culturemix.sf with baseline models, score, compose "
            "again)")  # fmt: skip
    elif summary.rated_foods:
        say("difficulty from stored baseline SF answers: {} foods rated", summary.rated_foods)
    if not settings.get("backgrounds"):
        say("[yellow]no --backgrounds: only the culture-agnostic SFB/MFB variants were built[/]")
    return summary
