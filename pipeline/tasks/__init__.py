"""Task declarations: each `<dataset>.toml` here declares that dataset's tasks as data (what is
asked, of what modality, which registered extractor and metrics score it). Every stage reads
these declarations; the registry refuses two tasks with one name."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

TASKS_DIR = Path(__file__).parent


@dataclass(frozen=True)
class Task:
    task_id: str  # '<dataset>.<task>'
    dataset: str
    modality: str  # text | image
    answer_kind: str  # countries | dish_name | text | choice
    extractor: str
    metrics: tuple[str, ...]
    description: str

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
            registry[task_id] = Task(
                task_id=task_id,
                dataset=dataset,
                modality=spec["modality"],
                answer_kind=spec["answer_kind"],
                extractor=spec["extractor"],
                metrics=tuple(spec["metrics"]),
                description=spec["description"].strip(),
            )
    return registry


@functools.cache
def registry() -> dict[str, Task]:
    return load_tasks()


def get_task(task_id: str) -> Task:
    tasks = registry()
    if task_id not in tasks:
        raise KeyError(f"unknown task {task_id!r}; known: {', '.join(sorted(tasks))}")
    return tasks[task_id]
