"""Task declarations: each `<dataset>.toml` here declares that dataset's tasks as data (what is
asked, of which inputs, in which languages, with which prompt variants, and the names of the
registered extractor and metrics). Every stage reads these declarations through `TASKS`, the same
`Registry` form as every other pluggable kind, filled from the files at its first look-up; it refuses
two tasks with one name."""

from __future__ import annotations

import csv
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from warehouse.registry import Registry

TASKS_DIR = Path(__file__).parent
INPUTS = ("name", "images", "images_and_name")


@dataclass(frozen=True)
class Task:
    task_id: str  # '<dataset>.<task>'
    dataset: str
    modality: str  # text | image
    answer_kind: str  # countries | dish_name | text | choice
    extractor: str
    metrics: tuple[str, ...]
    description: str
    inputs: str = "name"  # what fills the prompt: the dish name, its images, or both
    langs: tuple[str, ...] = ()  # prompt languages the task is declared for
    max_tokens: int = 64
    # The decoding temperature the paper ran the task at (ZNO-Vision §4: 1); None: the backend's own setting
    # (greedy unless told otherwise). 0 asks for greedy decoding whatever the backend's setting.
    temperature: float | None = None
    prompt_source: str = "task"  # task: the templates below | dataset: questions shipped per item
    prompts: dict[str, dict[str, str]] = field(default_factory=dict)  # lang -> variant -> template
    # What each variant asks, for the countries extractor (pipeline/extract/countries.py READINGS): lang -> variant
    # -> origin | served; a variant not listed asks for the origin. Declared once, beside the prompts.
    asks: dict[str, dict[str, str]] = field(default_factory=dict)
    # Other wordings, selectable by name (`generate --prompts NAME`): name -> lang -> variant -> template. Their
    # variant names are their own (atlas-1…), so a stored answer always says which question it answered.
    prompt_sets: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.task_id.split(".", 1)[1]

    def row(self) -> dict:
        return {
            "task_id": self.task_id,
            "dataset": self.dataset,
            "modality": self.modality,
            "answer_kind": self.answer_kind,
            "extractor": self.extractor,
            "metrics": list(self.metrics),
            "description": self.description,
        }

    def reading(self, lang: str, variant: str) -> str:
        """What the prompt variant asks (origin | served), as declared with the prompts."""
        return self.asks.get(lang.split("_", 1)[0], {}).get(str(variant), "origin")

    def templates(self, lang: str) -> dict[str, str]:
        if lang not in self.prompts:
            raise KeyError(f"task {self.task_id} has no prompts in {lang!r}; it has {', '.join(sorted(self.prompts))}")
        return self.prompts[lang]


class DuplicateTask(ValueError):
    pass


def load_tasks(directory: Path = TASKS_DIR) -> dict[str, Task]:
    registry: dict[str, Task] = {}
    for path in sorted(directory.glob("*.toml")):
        declaration = tomllib.loads(path.read_text(encoding="utf-8"))
        dataset = declaration["dataset"]
        for name, spec in declaration.get("tasks", {}).items():
            task_id = f"{dataset}.{name}"
            if task_id in registry:
                raise DuplicateTask(f"task {task_id} declared twice ({path.name})")
            if spec.get("inputs", "name") not in INPUTS:
                raise ValueError(f"{path.name}: task {name}: inputs must be one of {INPUTS}")
            registry[task_id] = Task(
                task_id=task_id,
                dataset=dataset,
                modality=spec["modality"],
                answer_kind=spec["answer_kind"],
                extractor=spec["extractor"],
                metrics=tuple(spec["metrics"]),
                description=spec["description"].strip(),
                inputs=spec.get("inputs", "name"),
                langs=tuple(spec.get("langs", ())),
                max_tokens=int(spec.get("max_tokens", 64)),
                temperature=float(spec["temperature"]) if "temperature" in spec else None,
                prompt_source=spec.get("prompt_source", "task"),
                prompts={
                    lang: {str(k): v for k, v in variants.items()} for lang, variants in spec.get("prompts", {}).items()
                },
                asks=_asks(path, name, spec),
                prompt_sets={
                    set_name: {lang: {str(k): v for k, v in variants.items()} for lang, variants in langs.items()}
                    for set_name, langs in spec.get("prompt_sets", {}).items()
                },
            )
    return registry


READINGS = (
    "origin",
    "served",
)  # pipeline/extract/countries.py READINGS: kept in step by tests/pipeline/extract/test_question_reading.py


def _asks(path: Path, name: str, spec: dict) -> dict[str, dict[str, str]]:
    """A task's `asks` table, checked: every reading known, every variant one of its prompts or prompt sets'."""
    asks = {lang: {str(k): v for k, v in variants.items()} for lang, variants in spec.get("asks", {}).items()}
    declared = {
        (lang, str(variant))
        for prompts in (spec.get("prompts", {}), *spec.get("prompt_sets", {}).values())
        for lang, variants in prompts.items()
        for variant in variants
    }
    for lang, variants in asks.items():
        for variant, reading in variants.items():
            if reading not in READINGS:
                raise ValueError(
                    f"{path.name}: task {name}: asks.{lang}.{variant} = {reading!r}, not one of {READINGS}"
                )
            if (lang, variant) not in declared:
                raise ValueError(f"{path.name}: task {name}: asks.{lang}.{variant} names no prompt variant")
    return asks


def with_prompt_set(task: Task, name: str) -> Task:
    """The task asked in one of its other declared wordings (`prompt_sets`), e.g. the project's own `atlas`."""
    if name not in task.prompt_sets:
        known = ", ".join(sorted(task.prompt_sets)) or "none"
        raise ValueError(f"task {task.task_id} has no prompt set {name!r} (declared: {known})")
    return replace(task, prompts={**task.prompts, **task.prompt_sets[name]})


def _register_declared(tasks: Registry[Task]) -> None:
    for task_id, task in load_tasks().items():
        tasks.add(task_id, task)


# Every declared task, by id ('<dataset>.<task>'): adding a task is a table in its dataset's TOML file.
TASKS: Registry[Task] = Registry("task", load=_register_declared)


def get_task(task_id: str) -> Task:
    """The task declared as `task_id`; an unknown id is a KeyError listing the declared ones."""
    return TASKS[task_id]


def with_prompt_table(task: Task, path: Path) -> Task:
    """The task with its templates replaced by a table in the papers' format
    (`task, lang, variant, template`, tab-separated, [DISH] marking the dish name). CultureMix's
    table (`subtask, template`: one question per subtask) replaces the task's English `base` prompt."""
    prompts: dict[str, dict[str, str]] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        if set(reader.fieldnames or ()) == {"subtask", "template"}:
            rows = [r for r in reader if r["subtask"].strip().lower() == task.name]
            if not rows:
                raise ValueError(f"{path}: no question for subtask {task.name.upper()!r}")
            base = rows[0]["template"].replace("{", "{{").replace("}", "}}")
            return replace(task, prompts={**task.prompts, "en": {**task.prompts.get("en", {}), "base": base}})
        missing = {"task", "lang", "variant", "template"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path}: missing columns {sorted(missing)}")
        for row in reader:
            if row["task"] == task.name:
                template = row["template"].replace("{", "{{").replace("}", "}}").replace("[DISH]", "{dish}")
                prompts.setdefault(row["lang"], {})[str(row["variant"])] = template
    if not prompts:
        raise ValueError(f"{path}: no prompts for task {task.name!r}")
    return replace(task, prompts=prompts)
