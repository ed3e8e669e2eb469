"""Executors decide who runs the heavy stages' work: the steps and the stages' drivers stay the same, only the loop
that asks the model (`generate`), reads the shards (`corpus scan`) or scores the answers' chunks (`score`) changes.

* `local` (default): this process, as pipeline/answers/generate.py, pipeline/corpus/scan.py and
  pipeline/score/stage.py do it.
* `ray`: Ray Data on a local Ray or an existing cluster (`--ray-address` / `RAY_ADDRESS`):
  pipeline/executors/ray_generate.py and ray_corpus.py; the score stage's chunks on Ray actors: ray_score.py.
  Cache keys, shard checksums, the one-writer warehouse and its transactions stay on the driver, so both executors
  write the same rows and resume alike.

The flow (pipeline/flow/steps.py) resolves the run's executor once and binds it to the run's Ray options
(`Executor.bind`); the stages' drivers are handed what it runs in their place. The `ray` executor registers itself
in pipeline/executors/ray_executor.py, which `EXECUTORS` imports only when `--executor ray` is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from pipeline.core.run_settings import RayOptions
from warehouse.registry import Registry


@dataclass(frozen=True)
class Placement:
    """An executor bound to one run's Ray options: what each heavy stage's driver calls instead of its own loop
    (None: the stage's own loop, in this process), and whether one model may fan out over several servers."""

    answers: Callable | None = None  # pipeline/answers/stage.py `AnswerElsewhere`
    scan: Callable | None = None  # pipeline/corpus/stage.py `ScanElsewhere`
    score: Callable | None = None  # pipeline/score/stage.py `ScoreElsewhere`
    fans_out: bool = False


@dataclass(frozen=True)
class Executor:
    """Where a stage's work runs. `answers`, `scan` and `score` are the functions that replace the generate loop's
    model calls, the corpus scan and the score stage's chunk loop, each taking the run's Ray options (and the scan its
    work folder); None: the stage's own loop in this process."""

    description: str
    answers: Callable | None = None
    scan: Callable | None = None
    score: Callable | None = None
    fans_out: bool = False  # may spread one model over several OpenAI-compatible servers

    def bind(self, ray: RayOptions, work_dir: Path) -> Placement:
        """This executor for one run: `ray`'s address and workers, and `work_dir` for per-shard counts."""
        work = (ray.work_dir or work_dir).expanduser()
        return Placement(
            answers=partial(self.answers, options=ray) if self.answers else None,
            scan=partial(self.scan, options=ray, work_dir=work) if self.scan else None,
            score=self.score(ray) if self.score else None,
            fans_out=self.fans_out,
        )


EXECUTORS: Registry[Executor] = Registry(
    "executor", {"ray": "pipeline.executors.ray_executor"}, ordered=True
)  # the ray executor's module registers it, imported on first use
EXECUTORS.add("local", Executor("this process: the stage's own loop"))
