"""`python -m pipeline reproduce PAPER`: a paper's whole protocol from the run configuration kept in the repository
(assets/reproduce/PAPER.toml: its datasets, models, tasks, prompts, settings and subsets), in the steps every
command uses, so a killed run resumes like any other (an unchanged dataset is not reloaded, answers already made
are not asked again, and the working database publishes only when the run succeeds).

Overrides: `--backend B` for every model; `--model PATH` for every model, `--model KIND=PATH` (text, vision) or
`--model NAME=PATH` for some; `--limit N` for every run (smoke runs, tests); `--images DIR` the photos of the tasks
the configuration lists under `[reproduce] images` (those runs are skipped, and named, without it); `--answers DIR`
imports the answer files under DIR (the paper's import format) instead of generating.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.core.errors import DataError
from pipeline.core.run_settings import Options
from pipeline.flow import runconfig
from pipeline.flow.steps import run_pipeline
from warehouse.db import Warehouse

CONFIG_DIR = Path(__file__).resolve().parents[2] / "assets" / "reproduce"
ANSWER_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".xlsx")
RUN_STEPS = ("link", "answers", "score", "languages", "culturemix_parse")


def papers() -> list[str]:
    return sorted(path.stem for path in CONFIG_DIR.glob("*.toml"))


def config_path(paper: str) -> Path:
    path = CONFIG_DIR / f"{paper}.toml"
    if not path.is_file():
        raise DataError(f"reproduce {paper}", f"unknown paper; known: {', '.join(papers())}")
    return path


@dataclass(frozen=True)
class Protocol:
    """A paper's run configuration with the overrides applied: the datasets to ingest (dataset -> candidate
    folders under the data folder), the import format of `--answers`, the generation plan, and the runs left out
    (with why)."""

    paper: str
    datasets: dict[str, tuple[str, ...]]
    answers_format: str
    plan: runconfig.RunPlan
    left_out: list[str] = field(default_factory=list)


def load(
    paper: str,
    *,
    backend: str | None = None,
    models: tuple[str, ...] = (),
    limit: int | None = None,
    images: Path | None = None,
) -> Protocol:
    path = config_path(paper)
    config = copy.deepcopy(runconfig.read(path))
    section = config.pop("reproduce", {})
    for model in config.get("models", {}).values():
        if backend is not None:
            model["backend"] = backend
    _override_models(path, config.get("models", {}), models)
    needs_images = set(section.get("images", []))
    kept, left_out = [], []
    for run in config.get("runs", []):
        if limit is not None:
            run["limit"] = limit
        if run["task"] in needs_images:
            if images is None:
                left_out.append(f"{run['task']}: needs the dish photos (--images DIR; `data fetch --images`)")
                continue
            run["images"] = str(images)
        kept.append(run)
    config["runs"] = kept
    datasets = {
        name: tuple(folders) if isinstance(folders, list) else (folders,)
        for name, folders in section.get("datasets", {}).items()
    }
    return Protocol(paper, datasets, section.get("answers_format", paper), runconfig.parse(path, config), left_out)


def _override_models(path: Path, models: dict, overrides: tuple[str, ...]) -> None:
    """`PATH` replaces every model; `KIND=PATH` the models of that kind; `NAME=PATH` one model."""
    for override in overrides:
        key, sep, value = override.partition("=")
        if not sep:
            for model in models.values():
                model["model"] = override
            continue
        chosen = [m for name, m in models.items() if name == key or m.get("kind") == key]
        if not chosen:
            kinds = sorted({m.get("kind", "") for m in models.values()} - {""})
            raise DataError(path, f"--model {override}: no model named or of kind {key!r}; known: "
                            f"{', '.join([*models, *kinds])}")  # fmt: skip
        for model in chosen:
            model["model"] = value


def run(
    warehouse: Warehouse,
    protocol: Protocol,
    *,
    data: Path,
    answers: Path | None = None,
    publish: bool = True,
    say: Callable[[str], None] = print,
) -> None:
    """Ingest the paper's datasets found under `data`, then generate (or import `answers`), score, publish."""
    ingested = []
    for dataset, folders in protocol.datasets.items():
        source = next((data / folder for folder in folders if (data / folder).is_dir()), None)
        if source is None:
            say(f"{dataset}: no {' or '.join(str(data / f) for f in folders)} folder, skipped (`data fetch`)")
            continue
        run_pipeline("ingest", warehouse, Options(datasets=(dataset,), source=source), publish=False)
        ingested.append(dataset)
    if not ingested:
        raise DataError(data, f"none of {protocol.paper}'s datasets ({', '.join(protocol.datasets)}) is here")
    for line in protocol.left_out:
        say(f"left out: {line}")
    if answers is not None:
        files = sorted(p for p in answers.rglob("*") if p.is_file() and p.suffix in ANSWER_SUFFIXES)
        if not files:
            raise DataError(answers, f"no answer files ({', '.join(ANSWER_SUFFIXES)}) to import")
        options = Options(responses=tuple(files), response_format=protocol.answers_format)
        run_pipeline("import", warehouse, options, publish=False)
        run_pipeline("score", warehouse, Options(), publish=publish)
        return
    generations = tuple(spec for spec in protocol.plan.generations if spec.task.split(".")[0] in ingested)
    options = Options(generations=generations, executor=protocol.plan.executor, ray=protocol.plan.ray)
    run_pipeline("run", warehouse, options, steps=RUN_STEPS, publish=publish)
