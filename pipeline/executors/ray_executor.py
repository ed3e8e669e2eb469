"""The `ray` executor's registration: Ray Data answers, scans and scores a run's work on a local Ray or a cluster,
and this module names its three functions in `EXECUTORS`, imported only when `--executor ray` is asked for."""

from __future__ import annotations

from pipeline.executors import EXECUTORS, Executor
from pipeline.executors.ray_corpus import scan_corpus_on_ray
from pipeline.executors.ray_generate import answer_on_ray
from pipeline.executors.ray_score import score_on_ray

EXECUTORS.add(
    "ray",
    Executor(
        "Ray Data on a local Ray or a running cluster",
        answers=answer_on_ray,
        scan=scan_corpus_on_ray,
        score=score_on_ray,
        fans_out=True,
    ),
)
