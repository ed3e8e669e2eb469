"""Every pluggable kind is registered the same way (warehouse/registry.py): a name maps to one thing, a second thing
under a taken name is refused, an unknown name lists the known ones, modules and declared files are read only when
something is looked up, and the kinds whose order matters keep it."""

from __future__ import annotations

import sys

import pytest

from warehouse.registry import DuplicateName, Registry, UnknownName


def test_a_taken_name_is_refused_and_a_refused_registration_leaves_nothing_behind() -> None:
    metrics: Registry[object] = Registry("metric")

    @metrics.register("jaccard")
    def jaccard() -> None: ...

    def other() -> None: ...

    with pytest.raises(DuplicateName, match=r"metric 'jaccard' is already registered \(.*jaccard\)"):
        metrics.register("dice", "jaccard")(other)
    assert metrics.names() == ["jaccard"]  # "dice" was not half-registered
    metrics.add("jaccard", jaccard)  # the same thing again is not a conflict


def test_an_unknown_name_lists_the_known_ones() -> None:
    backends: Registry[str] = Registry("backend")
    backends.add("openai", "o")
    backends.add("hf", "h")
    with pytest.raises(UnknownName) as unknown:
        backends["vlm"]
    assert str(unknown.value) == "unknown backend 'vlm'; known: hf, openai"
    assert isinstance(unknown.value, KeyError)  # callers that catch KeyError keep working


def test_a_lazily_registered_module_is_imported_only_when_its_name_is_looked_up(tmp_path, monkeypatch) -> None:
    (tmp_path / "lazy_thing_for_registry_test.py").write_text(
        "from tests.warehouse.test_registry import LAZY\nLAZY.add('far', 'registered on import')\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "far" in LAZY and "lazy_thing_for_registry_test" not in sys.modules
    assert LAZY["far"] == "registered on import"
    assert "lazy_thing_for_registry_test" in sys.modules


LAZY: Registry[str] = Registry("thing", {"far": "lazy_thing_for_registry_test"})


def test_declared_things_are_read_once_at_the_first_look_up_and_a_failed_read_is_retried() -> None:
    reads: list[int] = []

    def read_files(tasks: Registry[str]) -> None:
        reads.append(1)
        if len(reads) == 1:
            raise ValueError("broken.toml: line 3")
        tasks.add("borsch.origin_qa", "task")

    tasks: Registry[str] = Registry("task", load=read_files)
    assert reads == []  # nothing read at definition
    with pytest.raises(ValueError, match=r"broken\.toml"):
        tasks.names()
    assert tasks["borsch.origin_qa"] == "task" and list(tasks) == ["borsch.origin_qa"]
    assert len(reads) == 2  # read again after the failure, then never again


def test_ordered_kinds_keep_registration_order_and_the_others_list_by_name() -> None:
    marts: Registry[int] = Registry("mart", ordered=True)
    plain: Registry[int] = Registry("metric")
    for number, name in enumerate(["010_dishes", "leaderboard", "005_first_by_name"]):
        marts.add(name, number)
        plain.add(name, number)
    assert list(marts) == ["010_dishes", "leaderboard", "005_first_by_name"]
    assert list(marts.values()) == [0, 1, 2]
    assert list(plain) == ["005_first_by_name", "010_dishes", "leaderboard"]


def test_every_pluggable_kind_of_the_project_is_a_registry() -> None:
    from app.dashboard import VIEWS
    from pipeline.answers.formats import IMPORT_FORMATS
    from pipeline.backends.base import BACKENDS
    from pipeline.datasets import DATASETS
    from pipeline.executors import EXECUTORS
    from pipeline.extract import EXTRACTORS
    from pipeline.flow.steps import STEPS
    from pipeline.score.metrics import METRICS
    from pipeline.tasks import TASKS
    from warehouse.marts import EXPORTS, MARTS

    kinds = {
        "dataset": DATASETS,
        "task": TASKS,
        "backend": BACKENDS,
        "answer format": IMPORT_FORMATS,
        "executor": EXECUTORS,
        "extractor": EXTRACTORS,
        "metric": METRICS,
        "step": STEPS,
        "mart": MARTS,
        "export": EXPORTS,
        "page": VIEWS,
    }
    for kind, registry in kinds.items():
        assert isinstance(registry, Registry) and registry.kind == kind, kind
        assert len(registry) > 0, kind
    assert list(EXECUTORS) == ["local", "ray"] and EXECUTORS["ray"].fans_out
    assert next(iter(MARTS)) == "010_dishes"  # build order, not name order
    assert next(iter(VIEWS.values())).url_path == ""  # the default page first
    assert "borsch.origin_qa" in TASKS and "origin-scores" in EXPORTS
    assert IMPORT_FORMATS["borsch"].pipeline == "import-borsch" and IMPORT_FORMATS["uacuisine"].per_file
    # what their module maps name is registered by that module, imported on first use
    from pipeline.answers.formats import IMPORTERS
    from pipeline.answers.responses import import_answers

    assert IMPORTERS["worldcuisines"] is import_answers and set(IMPORTERS) == set(IMPORT_FORMATS)
    assert EXECUTORS["ray"].scan.__name__ == "scan_corpus_on_ray"  # registered by its module, imported on first use
    assert EXECUTORS["local"].scan is None
