"""Joining Ray: an existing cluster (`--ray-address`, else `RAY_ADDRESS`) or a local Ray on this machine.

On a cluster the workers run the driver's own `pipeline` and `warehouse` packages (shipped as `py_modules`), so
they never run other code than the driver; the libraries (Ray, torch, transformers, hyperscan, ...) must be
installed on every node, and shards, images, model folders and the work folder must be on storage every node
sees under the same path (see README "Scaling out on Ray").
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.backends.base import BackendError
from pipeline.core.errors import CorpusError
from pipeline.core.run_settings import RayOptions

ADDRESS_ENV = "RAY_ADDRESS"


@contextmanager
def ray_cluster(options: RayOptions) -> Iterator[None]:
    """Ray initialised for the block: an existing connection is reused (tests start one per session), a new one is
    closed afterwards. A cluster that cannot be reached is an OSError naming the address."""
    import ray

    if ray.is_initialized():
        _quiet()
        yield
        return
    address = options.address or os.environ.get(ADDRESS_ENV) or None
    # Ray 2.60 turns token authentication on by default and says so on every start: kept on, said once in the README
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
    try:
        if address:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False, runtime_env=_runtime_env())
        else:  # a local Ray: no dashboard (nothing served beyond what Ray itself needs)
            ray.init(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    except (ConnectionError, TimeoutError) as exc:
        raise ConnectionError(f"cannot join the Ray cluster at {address}: {exc}") from None
    _quiet()
    try:
        yield
    finally:
        ray.shutdown()


def _runtime_env() -> dict:
    """The driver's own code for the workers of a remote cluster."""
    import pipeline
    import warehouse

    return {"py_modules": [str(Path(pipeline.__file__).parent), str(Path(warehouse.__file__).parent)]}


def _quiet() -> None:
    """Ray Data's progress bars and per-dataset log lines would bury the command's own output."""
    from ray.data import DataContext

    context = DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    logging.getLogger("ray.data._internal.progress").setLevel(logging.ERROR)  # "progress bars disabled", as asked
    # A worker's expected failure comes back as data and ends the command with one line (`raise_failure`); Ray Data
    # would log a failed block first, with its stack trace.
    for name in ("ray.data.exceptions", "ray.data._internal.execution.streaming_executor_state"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def actor_pool(size: int):
    """A fixed pool of `size` actors (Ray Data's stateful map: each builds its model or patterns once)."""
    from ray.data import ActorPoolStrategy

    return ActorPoolStrategy(size=max(1, size))


def cluster_cpus() -> int:
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def cluster_gpus() -> int:
    import ray

    return int(ray.cluster_resources().get("GPU", 0))


# What a worker reports back as its failure instead of raising it: Ray hands the driver only the text of a UDF's
# exception (wrapped twice, with the remote traceback), never the exception itself.
EXPECTED = (BackendError, CorpusError, OSError, ValueError)


def failure_text(exc: BaseException) -> str:
    """An expected failure on a worker, as a column value the driver turns back into it (`raise_failure`)."""
    kind = next((k for k in EXPECTED if isinstance(exc, k)), ValueError)
    return json.dumps({"type": kind.__name__, "message": str(exc)}, ensure_ascii=False)


def raise_failure(text: str) -> None:
    """On the driver: raise the worker's failure as the exception the local executor would have raised, so the
    command ends with the same one line (and leaves every unit committed before it)."""
    if not text:
        return
    failure = json.loads(text)
    kind = {k.__name__: k for k in EXPECTED}.get(failure["type"], ValueError)
    raise kind(failure["message"])
