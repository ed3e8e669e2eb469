"""`python -m pipeline run CONFIG.toml`: several models, tasks and languages from one file.

stages = ["generate", "score", "publish"]      # default: all three
executor = "ray"                               # optional: local (default) or ray (README "Scaling out on Ray")
ray = { address = "head:6379", workers = 8 }   # optional, with executor = "ray" (default: $RAY_ADDRESS or local)

[models.tiny]                                  # a name used below
backend = "transformers"
model = "/models/tiny-text"
settings = { batch_size = 16 }                 # the backend's settings; transformers: device, dtype, batch_size,
                                               # max_new_tokens, threads (torch's CPU threads; 1 for tiny models)

[[runs]]
task = "borsch.origin_qa"
langs = ["ru", "uk"]
models = ["tiny"]
limit = 20                                     # optional, as --limit
images = "/data/borsch"                        # optional, as --images
subset = "full"                                # optional
variants = ["1", "2"]                          # optional

[[imagine]]                                    # imagined dishes (stages dish_description ... similarity)
dataset = "borsch"
langs = ["ru"]
describers = ["tiny"]                          # names under [models]; translator = "NAME" optional
generator = "black-forest-labs/FLUX.1-dev"     # any diffusers text-to-image pipeline id or folder
encoder = "facebook/dinov2-giant"
limit = 20                                     # optional; also images, seeds, steps, guidance, size,
                                               # generator_settings, encoder_settings

[finetune]                                     # stage "finetune": runs before generate, so [[runs]] can
model = "tiny"                                 # evaluate the base (a name under [models]) and the tuned
tasks = ["culturemix.sf", "culturemix.mf"]     # folder OUT/epoch-N (pipeline/finetune/) in the same file
lang = "en"
out = "/models/tiny-tuned"
recipe = "culturemix_sft"                      # optional: culturemix_sft | zno_paligemma | plain (default)
settings = { epochs = [1, 2], method = "lora" }  # optional overrides: learning_rate, batch_size,
                                               # gradient_accumulation, epochs, method, seed, save_steps
                                               # also optional: variant, limit, images, device
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.core.errors import DataError
from pipeline.core.run_settings import GenerationSpec, RayOptions
from pipeline.executors import EXECUTORS

IMAGINE_STAGES = ("dish_description", "translate", "imagine", "embed", "similarity")
STAGES = ("generate", "score", *IMAGINE_STAGES, "finetune", "publish")
DEFAULT_STAGES = ("generate", "score", "publish")


@dataclass(frozen=True)
class RunPlan:
    generations: list[GenerationSpec]
    stages: tuple[str, ...]
    imagines: list = field(default_factory=list)  # ImagineSpec (core/run_settings.py), for the imagine stages
    executor: str = "local"  # who runs the generate stage: local | ray
    ray: RayOptions = field(default_factory=RayOptions)
    finetunes: list = field(default_factory=list)  # FinetuneSpec (core/run_settings.py), for the finetune stage

    @property
    def imagine_steps(self) -> tuple[str, ...]:
        return tuple(s for s in self.stages if s in IMAGINE_STAGES)


def read(path: Path) -> dict:
    """The run configuration's TOML as a dict (one clear line when it cannot be read)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataError(path, f"cannot read the run configuration: {exc}") from exc


def load(path: Path) -> RunPlan:
    return parse(path, read(path))


def parse(path: Path, config: dict) -> RunPlan:
    """The plan of a configuration already read (`reproduce` applies its overrides first); `path` names it in
    errors."""
    stages = tuple(config.get("stages", DEFAULT_STAGES))
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise DataError(path, f"unknown stages {unknown}; known: {list(STAGES)}")
    models = config.get("models", {})
    specs = []
    for index, run in enumerate(config.get("runs", []), start=1):
        for key in ("task", "langs", "models"):
            if key not in run:
                raise DataError(path, f"[[runs]] number {index} needs `{key}`")
        for name in run["models"]:
            if name not in models:
                raise DataError(path, f"[[runs]] number {index} names model {name!r}, not defined under [models]")
            model = models[name]
            for lang in run["langs"]:
                specs.append(
                    GenerationSpec(
                        task=run["task"],
                        lang=lang,
                        backend=model["backend"],
                        model=str(model["model"]),
                        limit=run.get("limit"),
                        images=Path(run["images"]) if run.get("images") else None,
                        subset=run.get("subset", "full"),
                        prompts=Path(run["prompts"]) if run.get("prompts") else None,
                        variants=tuple(str(v) for v in run["variants"]) if run.get("variants") else None,
                        max_tokens=run.get("max_tokens"),
                        settings=dict(model.get("settings", {})),
                        chunk_size=int(run.get("chunk_size", 64)),
                    )
                )
    if "generate" not in stages:
        specs = []
    from pipeline.imagine import specs_from_config

    imagines = specs_from_config(path, config.get("imagine", []), models)
    finetunes = _finetunes(path, config.get("finetune"), models) if "finetune" in stages else []
    return RunPlan(specs, stages, imagines, *_executor(path, config), finetunes=finetunes)


FINETUNE_KEYS = {"model", "tasks", "lang", "out", "recipe", "settings", "variant", "limit", "images", "device"}
FINETUNE_SETTINGS = {"learning_rate", "batch_size", "gradient_accumulation", "epochs", "method", "seed", "save_steps"}


def _finetunes(path: Path, section: dict | None, models: dict) -> list:
    """The [finetune] section (one table, or [[finetune]] for several) as FinetuneSpecs."""
    from pipeline.core.run_settings import FinetuneSpec

    if section is None:
        raise DataError(path, "stage finetune needs a [finetune] section")
    specs = []
    for index, entry in enumerate(section if isinstance(section, list) else [section], start=1):
        where = f"[finetune] number {index}"
        missing = [key for key in ("model", "tasks", "lang", "out") if key not in entry]
        unknown = sorted(set(entry) - FINETUNE_KEYS)
        wrong = sorted(set(entry.get("settings", {})) - FINETUNE_SETTINGS)
        if missing or unknown or wrong:
            raise DataError(path, f"{where}: missing {missing}, unknown keys {unknown + wrong}")
        if entry["model"] not in models:
            raise DataError(path, f"{where} names model {entry['model']!r}, not defined under [models]")
        settings = dict(entry.get("settings", {}))
        if "epochs" in settings:
            settings["epochs"] = tuple(int(e) for e in settings["epochs"])
        specs.append(
            FinetuneSpec(
                model=str(models[entry["model"]]["model"]),
                tasks=tuple(entry["tasks"]),
                lang=entry["lang"],
                out=Path(entry["out"]),
                recipe=entry.get("recipe", "plain"),
                variant=entry.get("variant"),
                limit=entry.get("limit"),
                images=Path(entry["images"]) if entry.get("images") else None,
                device=entry.get("device", "auto"),
                overrides=settings,
            )
        )
    return specs


def _executor(path: Path, config: dict) -> tuple[str, RayOptions]:
    executor = config.get("executor", "local")
    if executor not in EXECUTORS:
        raise DataError(path, f"unknown executor {executor!r}; known: {', '.join(EXECUTORS)}")
    ray = config.get("ray", {})
    unknown = sorted(set(ray) - {"address", "workers"})
    if unknown or not isinstance(ray.get("workers", 1), int):
        raise DataError(path, f"[ray] takes address (text) and workers (a whole number), not {unknown or ray}")
    return executor, RayOptions(ray.get("address"), ray.get("workers"))
