"""One local Ray for the module that uses it (starting one takes ~15 s on this machine): the executor joins it.
Module-scoped, not session-scoped: its daemons kept polling (and their memory kept) for the rest of the worker's
session, ~12 minutes of a suite run, after test_ray.py, the only module using it, had ended."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def local_ray() -> Iterator[str]:
    """A local Ray with 2 CPUs and no dashboard; yields its address for commands run as subprocesses."""
    import ray

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        logging_level=logging.WARNING,
        log_to_driver=False,
        object_store_memory=256 * 2**20,
        # No idle workers started ahead: every test here starts its own actors, so the workers Ray prestarts for the
        # first driver (one per CPU, each importing Ray) only took CPU from the other test worker. Set for this
        # cluster only (environment variables would have stayed in the worker's environment after the module).
        _system_config={"enable_worker_prestart": False, "prestart_worker_first_driver": False},
    )
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
