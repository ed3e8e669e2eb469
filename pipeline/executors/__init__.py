"""Executors: who runs the heavy stages' work. The steps (pipeline/flow/steps.py) stay the same; only the loop that
asks the model (`generate`), reads the shards (`corpus scan`) or scores the answers' chunks (`score`) changes.

* `local` (default): this process, as pipeline/answers/generate.py, pipeline/corpus/scan.py and
  pipeline/score/stage.py do it.
* `ray`: Ray Data on a local Ray or an existing cluster (`--ray-address` / `RAY_ADDRESS`):
  pipeline/executors/ray_generate.py and ray_corpus.py; the score stage's chunks on Ray actors: ray_score.py.
  Cache keys, shard checksums, the one-writer warehouse and its transactions stay on the driver, so both executors
  write the same rows and resume alike.

Ray is imported only here, when `--executor ray` is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from warehouse.registry import Registry, load_function


@dataclass(frozen=True)
class Executor:
    """Where a stage's work runs. `answers`, `scan` and `score` name ("module:function") what replaces the generate
    loop's model calls, the corpus scan and the score stage's chunk loop; None: the stage's own loop in this
    process. Imported only when used."""

    description: str
    answers: str | None = None
    scan: str | None = None
    score: str | None = None
    fans_out: bool = False  # may spread one model over several OpenAI-compatible servers

    def function(self, part: str) -> Callable | None:
        target = getattr(self, part)
        return None if target is None else load_function(target)


EXECUTORS: Registry[Executor] = Registry("executor", ordered=True)
EXECUTORS.add("local", Executor("this process: the stage's own loop"))
EXECUTORS.add(
    "ray",
    Executor(
        "Ray Data on a local Ray or a running cluster",
        answers="pipeline.executors.ray_generate:answer_on_ray",
        scan="pipeline.executors.ray_corpus:scan_corpus_on_ray",
        score="pipeline.executors.ray_score:score_on_ray",
        fans_out=True,
    ),
)


def endpoint_settings(backend: str, settings: dict) -> list[dict]:
    """The backend settings once per endpoint: an `openai` backend's `base_url` may list several OpenAI-compatible
    servers of one model, comma-separated (the Ray executor fans out over them); anything else is one endpoint."""
    url = settings.get("base_url")
    if backend != "openai" or not isinstance(url, str) or "," not in url:
        return [dict(settings)]
    urls = [u.strip() for u in url.split(",") if u.strip()]
    return [{**settings, "base_url": u} for u in urls]
