"""`score --executor ray`: the pending answers' chunks scored by `ScoreWorker` actors on Ray, written by the driver.

The driver plans the work as the local executor does (pipeline/score/stage.py `score`: the pending answers of every
task, in chunks of `CHUNK`), sends each chunk to an idle actor, and writes what comes back in its own transaction
per chunk (`store_chunk`): the one writer of the warehouse. An actor runs `score_chunk`, the same pure function of a
chunk the local loop runs, with its own memo of distinct inputs, so the tables are identical to a local score
whichever actor scored which chunk (the rows of a chunk never depend on another chunk). A killed job leaves every
chunk committed before it; the rerun finds the rest pending, as a local rerun does.

Chunks are sent as actors free up, at most two per actor in flight: the driver holds a few chunks, never every
answer. Ray starts (or is joined) only when there is something to score. Ray core actors rather than Ray Data: the
chunks stream from the driver's query one by one, and each actor keeps its extractor's matchers and memo warm.
"""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

from pipeline.core.run_settings import RayOptions
from pipeline.executors.ray_cluster import EXPECTED, cluster_cpus, failure_text, raise_failure, ray_cluster
from pipeline.score.names import NamesContext
from pipeline.score.stage import ScoreElsewhere
from pipeline.tasks import Task

IN_FLIGHT_PER_WORKER = 2


class ScoreWorker:
    """A Ray actor: scores chunks with `score_chunk`, its extractors, metrics and memo built once and kept warm."""

    def __init__(self, names_context: NamesContext | None) -> None:
        from pipeline.score.stage import _Memo

        self.names_context = names_context
        self.memo = _Memo()

    def score(self, task_id: str, chunk: pl.DataFrame) -> tuple[dict[str, pl.DataFrame], str]:
        """(rows by table, "") or ({}, the failure as text: the driver raises it as the local run would)."""
        from pipeline.extract.countries import cyclic_gc_paused
        from pipeline.score.stage import score_chunk
        from pipeline.tasks import TASKS

        try:
            with cyclic_gc_paused():
                return score_chunk(TASKS[task_id], chunk, self.names_context, self.memo), ""
        except EXPECTED as exc:
            return {}, failure_text(exc)


def score_on_ray(options: RayOptions) -> ScoreElsewhere:
    """The Ray executor for `stage.score`."""

    def elsewhere(
        chunks: Iterator[tuple[Task, pl.DataFrame]], names_context: NamesContext | None
    ) -> Iterator[tuple[Task, pl.DataFrame, dict[str, pl.DataFrame]]]:
        first = next(chunks, None)
        if first is None:  # nothing to score: no Ray at all
            return
        with ray_cluster(options):
            yield from _scored(_prepend(first, chunks), names_context, options)

    return elsewhere


def _prepend(first, rest: Iterator) -> Iterator:
    yield first
    yield from rest


def _scored(
    chunks: Iterator[tuple[Task, pl.DataFrame]], names_context: NamesContext | None, options: RayOptions
) -> Iterator[tuple[Task, pl.DataFrame, dict[str, pl.DataFrame]]]:
    import ray

    workers = options.workers or cluster_cpus()
    actor = ray.remote(num_cpus=1)(ScoreWorker)
    context = ray.put(names_context)
    pool = [actor.remote(context) for _ in range(workers)]
    free = [worker for worker in pool for _ in range(IN_FLIGHT_PER_WORKER)]  # one entry per slot
    in_flight: dict = {}  # result ref -> (the actor, task, chunk)

    def collect() -> tuple[Task, pl.DataFrame, dict[str, pl.DataFrame]]:
        (done,), _ = ray.wait(list(in_flight), num_returns=1)
        worker, task, chunk = in_flight.pop(done)
        free.append(worker)
        rows, failure = ray.get(done)
        raise_failure(failure)
        return task, chunk, rows

    try:
        for task, chunk in chunks:
            if not free:
                yield collect()
            worker = free.pop()
            in_flight[worker.score.remote(task.task_id, chunk)] = (worker, task, chunk)
        while in_flight:
            yield collect()
    finally:
        for worker in pool:
            ray.kill(worker)
