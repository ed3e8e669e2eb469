"""Shared fixtures: the real data in ../shared/data, temporary warehouses, and the CLI run as a
user runs it (a process of its own, tests/cli_process.py), so tests exercise the real entry point."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest
from hypothesis import settings

# pytest-xdist runs one worker per core and the real demo builds beside them. torch's OpenMP pool would put one
# thread per core in each of those processes, and a tiny model's operations are too small to share: on the busy
# machine, two threads made each batch of the tiny vision model 10-40x slower (5-18 s instead of 0.45 s). Set
# before anything imports torch; every process the tests start (CLI commands, builds, servers) inherits it.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# DuckDB likewise: a thread per core in each process shared the two cores with the other worker and the demo build,
# and made a small warehouse's publish cost a quarter more CPU (warehouse/db.py THREADS_ENV).
os.environ.setdefault("DISH_ATLAS_DUCKDB_THREADS", "1")
# The flow's write audit on every command the suite runs (pipeline/flow/steps.py AUDIT_ENV): a step that changes a
# table it does not declare stops its command, so the declarations ("no table has two writers") are checked on
# every real run of the suite, not only where a test asks for it. Its cost is one scan of the raw/core/meta tables
# per step: 3 s on a 4.2-million-row warehouse on the shared 2-core machine, a few ms on the suite's small ones.
os.environ.setdefault("DISH_ATLAS_AUDIT_WRITES", "1")

from tests import shared_builds
from tests.helpers import REPO, copy_warehouse, run_cli

WORKER_NICENESS = 10  # pytest_collection_finish

# No time limit per example: a property is about results, and a shared 2-core machine made a first example that
# loads a stemmer take 300 ms (speed is measured by bench/, never by a test's clock).
settings.register_profile("dish-atlas", deadline=None)
settings.load_profile("dish-atlas")


def shared_data_dir() -> Path:
    """DATA (as .ci/run sets it) or ../shared/data next to the checkout."""
    path = Path(os.environ.get("DATA") or REPO.parent / "shared" / "data").resolve()
    if not (path / "borsch" / "RU_DATA.xlsx").is_file():
        raise RuntimeError(f"real data not found at {path}: set DATA=/path/to/shared/data")
    return path


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return shared_data_dir()


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    return tmp_path / "wh" / "warehouse.duckdb"


def real_demo(data_dir: Path) -> tuple[str, list[str], Path | None]:
    """The session's real-data demo build: its name, CLI arguments and, while developing, a prebuilt copy.

    DISH_ATLAS_TEST_DEMO=DIR reuses a `demo` build in DIR (copied, so tests never write to it) instead of
    building one; CI never sets it, so there every session builds its own."""
    prebuilt = os.environ.get("DISH_ATLAS_TEST_DEMO")
    return "real", ["demo", "--data", str(data_dir)], Path(prebuilt) / "warehouse.duckdb" if prebuilt else None


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # once, before the workers start
        _compile_project_bytecode()
    shared_builds.open_session()
    # Streamlit collects all garbage after every script run (`runner.postScriptGC`): in a test worker, whose heap
    # holds every module and fixture of its session, each AppTest run paid a full collection (test_dish and
    # test_map: 22.0 s -> 17.8 s without it). Python's own collections still run; servers keep the option on.
    import streamlit.config

    streamlit.config.set_option("runner.postScriptGC", False)
    # Every AppTest's first run scans the metadata of every installed distribution for Streamlit components (a server
    # does it once, at its start): 0.2 CPU-s and 0.5 s of threads per AppTest, most of a page test's cost, for a
    # list that cannot change during the session (the app uses none). Scanned once per process instead.
    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


def _compile_project_bytecode() -> None:
    """Compile the project's modules once. Where PYTHONDONTWRITEBYTECODE is set (as on CI), no interpreter caches the
    bytecode of what it imports, so every CLI command the tests run compiled the pipeline's modules again: about
    0.2 CPU-s per command (measured: importing the CLI, steps, score stage, extractor and marts, 1.2 -> 1.0 CPU-s),
    over the suite's hundreds of commands. An interpreter still reads a cache it finds."""
    import compileall

    for top in ("pipeline", "warehouse", "app", "tests", "bench"):
        compileall.compile_dir(REPO / top, quiet=1)


def pytest_unconfigure(config: pytest.Config) -> None:
    shared_builds.close_session()


# The modules that take longest (30 s or more each, idle, at eefa2fc), longest first: each group of modules (those
# that do not read the real demo warehouse, then those that do) starts with them, so that the two workers finish
# together instead of one running a long module alone at the end. Only the order depends on this list.
LONGEST_FIRST = (
    "tests/warehouse/test_faults.py",
    "tests/pipeline/executors/test_ray.py",
    "tests/pipeline/test_bad_inputs.py",
    "tests/pipeline/compose/test_culturemix.py",
    "tests/warehouse/test_storage_faults.py",
    "tests/pipeline/answers/test_generate.py",
    "tests/pipeline/imagine/test_steps.py",
    "tests/e2e/test_security.py",
    "tests/e2e/test_browser.py",
    "tests/e2e/test_browser_pages.py",
    "tests/app/test_corpus_pages.py",
    "tests/warehouse/test_corpus_analyses.py",
    "tests/pipeline/score/test_stage.py",
    "tests/app/test_linked_views.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules that read the real demo warehouse run last, and its build starts now, in the background,
    so the minutes it takes overlap with every other test instead of stalling the first that needs it.
    pytest-xdist hands out modules in this order (`--no-loadscope-reorder` in pyproject.toml)."""
    waiting = {
        item.nodeid.split("::")[0]
        for item in items
        if {"real_warehouse", "bundle_warehouse"} & set(getattr(item, "fixturenames", ()))
    }  # the modules that wait for a demo build; the browser ones among them keep an event loop to the worker's end
    bundled = any("bundle_warehouse" in getattr(item, "fixturenames", ()) for item in items)

    def order(item: pytest.Item) -> tuple[bool, int]:
        module = item.nodeid.split("::")[0]
        rank = LONGEST_FIRST.index(module) if module in LONGEST_FIRST else len(LONGEST_FIRST)
        return module in waiting, rank

    items.sort(key=order)  # stable: each module keeps its tests' order
    if waiting:
        shared_builds.start(*real_demo(shared_data_dir()))
    if bundled:
        shared_builds.start(*BUNDLE_DEMO)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Test workers step back (niceness 10) once collection has started the real demo build at the normal
    priority: the modules that read it wait for it, so it is the suite's critical path. Measured idle at 28656af:
    the first worker to need it waited 181 s and the second 94 s while the build shared the cores evenly."""
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        os.nice(WORKER_NICENESS)


@pytest.fixture(scope="session")
def real_warehouse(data_dir: Path) -> Path:
    """BORSch + WorldCuisines + all 12 real prediction files + the CultureMix sample, published once for
    the whole session (shared by pytest-xdist workers; tests copy it before writing)."""
    return shared_builds.wait(*real_demo(data_dir))


# `make demo` on a fresh machine: `demo` with no data folder builds from the embedded bundle (assets/bundle/).
BUNDLE_DEMO = ("bundle", ["demo"])


@pytest.fixture(scope="session")
def bundle_warehouse() -> Path:
    """The embedded bundle's demo warehouse (real answers of 12 models, 30 languages), built once per session."""
    return shared_builds.wait(*BUNDLE_DEMO)


@pytest.fixture(scope="session")
def naive_answers(real_warehouse: Path) -> tuple:
    """Every scored answer about countries of the session's real warehouse, read from the core tables alone
    (tests/warehouse/naive.py): the independent oracle the mart and query tests recount against. Read once per
    test worker: the eight modules that recount read the same answers, and each read cost 3-7 CPU-s. A tuple of
    frozen answers, so that no test can change what the next one sees."""
    from tests.warehouse import naive

    return tuple(naive.load_answers(real_warehouse))


# A dataset's folder in the shared data where it is not the dataset's name: CultureMix is there as its public sample.
SHARED_FOLDERS = {"culturemix": "culturemix-sample"}


@pytest.fixture(scope="session")
def ingested_template(data_dir: Path):
    """`ingest DATASET --source DATA/<its folder>` run once per session and dataset; tests get copies."""

    def template(dataset: str) -> Path:
        source = data_dir / SHARED_FOLDERS.get(dataset, dataset)
        return shared_builds.wait(f"ingested-{dataset}", ["ingest", dataset, "--source", str(source)])

    return template


@pytest.fixture
def borsch_warehouse(warehouse: Path, ingested_template) -> Path:
    """A warehouse where `ingest borsch` has run on the real files (a copy: built once per session)."""
    return copy_warehouse(ingested_template("borsch"), warehouse)


@pytest.fixture
def worldcuisines_warehouse(warehouse: Path, ingested_template) -> Path:
    """A warehouse where `ingest worldcuisines` has run on the real files (a copy: built once per session)."""
    return copy_warehouse(ingested_template("worldcuisines"), warehouse)


@pytest.fixture
def sample_warehouse(tmp_path: Path) -> Path:
    """`w.duckdb` in a folder of its own, where `ingest sample` (the embedded sample) has run (a copy: built once
    per session)."""
    return copy_warehouse(shared_builds.wait("ingested-sample", ["ingest", "sample"]), tmp_path / "wh" / "w.duckdb")


@pytest.fixture
def culturemix_warehouse(warehouse: Path, ingested_template) -> Path:
    """A warehouse where `ingest culturemix` has run on the shared sample (a copy: built once per session)."""
    return copy_warehouse(ingested_template("culturemix"), warehouse)


@pytest.fixture(scope="session")
def tiny_text_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny Qwen2 chat model with a ChatML template (random weights: any text comes out)."""
    from pipeline.tiny.build import build_tiny_model

    return build_tiny_model("text", tmp_path_factory.mktemp("tiny-text"))


@pytest.fixture(scope="session")
def tiny_vision_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny LLaVA model (small CLIP tower + tiny Qwen2) with its processor."""
    from pipeline.tiny.build import build_tiny_model

    return build_tiny_model("vision", tmp_path_factory.mktemp("tiny-vision"))


@pytest.fixture(scope="session")
def tiny_text_to_image_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny random FluxPipeline (draws 32x32 noise)."""
    from pipeline.tiny.build import build_tiny_model

    return build_tiny_model("text-to-image", tmp_path_factory.mktemp("tiny-flux"))


@pytest.fixture(scope="session")
def tiny_image_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny random Dinov2Model with its image processor ([CLS] of 32 numbers)."""
    from pipeline.tiny.build import build_tiny_model

    return build_tiny_model("image-encoder", tmp_path_factory.mktemp("tiny-dinov2"))


def make_dish_photos(root: Path, lang_dir: str, dish_ids: list[int], per_dish: int = 2) -> Path:
    """Small real-looking photos in the BORSch layout (ROOT/RU/images/ID/*.png), one colour per dish."""
    from PIL import Image

    for dish_id in dish_ids:
        folder = root / lang_dir / "images" / str(dish_id)
        folder.mkdir(parents=True, exist_ok=True)
        for index in range(per_dish):
            Image.new("RGB", (40, 30), (50 * dish_id % 256, 30 * index, 200 - 20 * dish_id)).save(
                folder / f"photo_{index}.png"
            )
    return root


def imagine_config(path: Path, text: Path, flux: Path, dinov2: Path, photos: Path, limit: int = 4) -> Path:
    """A run configuration: origin QA answers (for the Spearman), then the imagine steps, then publish."""
    path.write_text(
        f"""
stages = ["generate", "score", "dish_description", "translate", "imagine", "embed", "similarity", "publish"]
[models.tiny]
backend = "transformers"
model = "{text}"
settings = {{ batch_size = 4, max_new_tokens = 16 }}
[[runs]]
task = "borsch.origin_qa"
langs = ["ru"]
models = ["tiny"]
limit = {limit}
max_tokens = 8
[[imagine]]
dataset = "borsch"
langs = ["ru"]
describers = ["tiny"]
generator = "{flux}"
encoder = "{dinov2}"
limit = {limit}
images = "{photos}"
seeds = [0, 1]
steps = 2
size = 32
generator_settings = {{ batch_size = 2, max_sequence_length = 32 }}
""",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="session")
def imagined_warehouse(
    tmp_path_factory: pytest.TempPathFactory,
    tiny_text_model: Path,
    tiny_text_to_image_model: Path,
    tiny_image_encoder: Path,
    ingested_template,
) -> Path:
    """BORSch with 4 Russian dishes imagined end to end by tiny random models (published)."""
    root = tmp_path_factory.mktemp("imagined")
    path = copy_warehouse(ingested_template("borsch"), root / "wh" / "warehouse.duckdb")
    photos = make_dish_photos(root / "photos", "RU", [1, 2, 3, 4])
    config = imagine_config(root / "run.toml", tiny_text_model, tiny_text_to_image_model, tiny_image_encoder, photos)
    run_cli(path, "run", str(config))
    return path
