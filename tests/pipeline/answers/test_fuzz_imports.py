"""Every `import-responses --format` fed generated and mutated answer files (issue 51; strategies: tests/fuzzing.py):
each file ends as imported answers (bad lines counted as quirks with --skip-bad-lines), or as one error naming the
file that left every table as it was; never a traceback. The importers run in-process on one working database that
holds the items they answer (a slice of the real data, and the small ZNO, Multi30K and VQA folders of the dataset
tests); a few files go through the CLI as well."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.answers.formats import IMPORT_FORMATS
from pipeline.core.run_settings import Options
from pipeline.flow.steps import run_pipeline
from tests import fuzzing
from tests.fixtures.warehouses.build import slice_data
from tests.helpers import query, run_cli
from tests.pipeline.datasets import caption_vqa_files, zno_files
from warehouse.db import Warehouse
from warehouse.io import new_run_id


@pytest.fixture(scope="module")
def base(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working database with the items every format answers: WorldCuisines (its first dishes), BORSch (its first
    dishes), the CultureMix sample's first images, and the small ZNO, Multi30K and VQA folders."""
    root = tmp_path_factory.mktemp("fuzz-imports")
    warehouse = Warehouse(root / "w" / "warehouse.duckdb")
    sources = {
        "worldcuisines": slice_data(data_dir, root / "data", dishes=30),
        "borsch": fuzzing.write_borsch(data_dir, root / "borsch"),
        "culturemix": fuzzing.write_culturemix(data_dir, root / "culturemix"),
        "zno": zno_files.write_zno(root / "zno"),
        "multi30k": caption_vqa_files.write_multi30k(root / "multi30k"),
        "vqa": caption_vqa_files.write_vqa(root / "vqa"),
    }
    for dataset, source in sources.items():
        run_pipeline("ingest", warehouse, Options(datasets=(dataset,), source=source), publish=False)
    return warehouse.path


def _copy(base: Path, folder: Path) -> Path:
    """The base's working database in `folder` (an import needs nothing else; it is never published here)."""
    folder.mkdir(parents=True)
    shutil.copyfile(base.with_suffix(".work.duckdb"), folder / "warehouse.work.duckdb")
    return folder / "warehouse.duckdb"


def _predictions(data_dir: Path, base: Path) -> list[dict]:
    items = {row[0] for row in query(base.with_suffix(".work.duckdb"), "SELECT source_ref FROM core.items")}
    path = data_dir / "worldcuisines" / "predictions" / "task2_oe_gpt-4o-2024-08-06.jsonl"
    with open(path, encoding="utf-8") as lines:
        found = [json.loads(line) for line in lines]
    return [row for row in found if str(row["qa_id"]) in items][:6] or found[:6]


BORSCH = [
    {"model": "m1", "lang": "ru", "task": "borsch.origin_qa", "variant": "1", "dish_id": "1", "response": "Из Греции."},
    {"model": "m1", "lang": "uk", "task": "borsch.origin_qa", "variant": 3, "dish_id": 5, "response": "З України."},
    {"model": "m2", "lang": "uk", "task": "origin_vqa", "variant": "2", "dish_id": "7", "response": None,
     "images": ["UK/images/7/1.jpg"]},
]  # fmt: skip
CULTUREMIX = [
    {"model": "m", "image": "images/ff-04-png.jpg", "prompt": "base", "response": "Food: Steak pie. Country: England."},
    {"model": "m", "image": "images/ff-01-png.jpg", "prompt": "direct", "response": "Country: Poland."},
]
ZNO = [{"model": m, "id": q, "response": r} for m, q, r in zno_files.ANSWERS]
MULTI30K = [{"model": m, "id": i, "lang": lang, "response": r} for m, i, lang, r in caption_vqa_files.CAPTIONS]
VQA = [{"model": m, "id": i, "lang": lang, "response": r} for m, i, lang, r in caption_vqa_files.VQA_ANSWERS]
UACUISINE_HEADER = ["dish", "question", "gold", "model", "answer"]
UACUISINE = [
    {"dish": "Борщ", "question": "Q1", "gold": "Борщ", "model": "m1", "answer": "Це борщ"},
    {"dish": "Борщ", "question": "Q6", "gold": "солона", "model": "m1", "answer": "Солона"},
    {"dish": "Вареники", "question": "Як називається ця страва?", "gold": "Вареники", "model": "m2", "answer": "x"},
]


def _fuzz(base: Path, tmp_path: Path, fmt: str, files, file_name: str, **options) -> None:
    """Import each drawn file with `fmt` on a copy of `base` (one writer session for every example)."""
    warehouse = Warehouse(_copy(base, tmp_path / "w"))
    tally = fuzzing.Tally(fmt + ("/" + file_name.rsplit(".", 1)[-1] if fmt == "borsch" else ""))
    with warehouse.writer() as con:

        @fuzzing.fuzz_settings()
        @given(data=files, skip=st.booleans())
        def run(data: bytes, skip: bool) -> None:
            with tempfile.TemporaryDirectory(dir=tmp_path) as folder:
                path = Path(folder) / file_name
                path.write_bytes(data)
                chosen = Options(
                    response_format=fmt, responses=(path,), skip_bad_lines=skip, max_bad_share=0.5, **options
                )

                def importer() -> list:
                    failures: list = []
                    IMPORT_FORMATS[fmt].run(con, chosen, new_run_id(), failures)
                    return failures

                fuzzing.check_outcome(con, path, importer, tally)

        run()
    tally.report()
    assert sum(tally.outcomes.values()) >= min(fuzzing.examples(), 10)


def test_worldcuisines_prediction_files(base: Path, data_dir: Path, tmp_path: Path) -> None:
    _fuzz(base, tmp_path, "worldcuisines", fuzzing.json_lines(_predictions(data_dir, base)), "task2_oe_fuzz.jsonl")


def test_borsch_answer_files_as_json_lines(base: Path, tmp_path: Path) -> None:
    _fuzz(base, tmp_path, "borsch", fuzzing.json_lines(BORSCH), "answers.jsonl")


def test_borsch_answer_files_as_csv(base: Path, tmp_path: Path) -> None:
    header = ["model", "lang", "task", "variant", "dish_id", "response", "images"]
    _fuzz(base, tmp_path, "borsch", fuzzing.csv_file(header, BORSCH), "answers.csv")


def test_culturemix_answer_files(base: Path, tmp_path: Path) -> None:
    _fuzz(base, tmp_path, "culturemix", fuzzing.json_lines(CULTUREMIX), "answers.jsonl")


@pytest.mark.parametrize(("fmt", "seeds"), [("zno", ZNO), ("multi30k", MULTI30K), ("vqa", VQA)])
def test_item_answer_files(fmt: str, seeds: list[dict], base: Path, tmp_path: Path) -> None:
    _fuzz(base, tmp_path, fmt, fuzzing.json_lines(seeds), "answers.jsonl")


def test_uacuisine_tables(base: Path, tmp_path: Path) -> None:
    _fuzz(base, tmp_path, "uacuisine", fuzzing.csv_file(UACUISINE_HEADER, UACUISINE, delimiter="\t"), "table.tsv")


CLI_FILES = [
    ("worldcuisines", "task2_oe_fuzz.jsonl", b'{"qa_id": "1", "prediction": "\xff\xfe", "lang": "en"}\n'),
    ("borsch", "answers.csv", b"model,lang,task\nm1,ru\n"),
    ("culturemix", "answers.jsonl", b'{"model": "m", "image": "images/ff-04-png.jpg", "response": "x"'),
    ("zno", "answers.jsonl", b'{"model": "m", "id": "v1", "id": "v2", "response": ' + b"9" * 5000 + b"}\n"),
    ("uacuisine", "table.tsv", b"dish\tquestion\tgold\tmodel\tanswer\n\xed\xa0\x80\tQ1\n"),
]


@pytest.mark.parametrize(("fmt", "name", "data"), CLI_FILES, ids=[c[0] for c in CLI_FILES])
def test_the_cli_prints_one_error_line_for_a_mutated_file(
    fmt: str, name: str, data: bytes, base: Path, tmp_path: Path
) -> None:
    warehouse = _copy(base, tmp_path / "w")
    path = tmp_path / name
    path.write_bytes(data)
    result = run_cli(warehouse, "--no-publish", "import-responses", "--format", fmt, str(path), check=False)
    assert "Traceback" not in result.stderr and "this is a bug" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert result.returncode == 2 and len(errors) == 1, result.stderr
    assert str(path) in errors[0], errors[0]
