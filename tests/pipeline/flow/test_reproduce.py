"""`reproduce PAPER` runs a paper's protocol end to end from its configuration in the repository (assets/reproduce/),
on tiny real models with small subsets: one run per paper (module-scoped), the BORSch one killed and resumed."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import polars as pl
import pytest

from pipeline.flow import reproduce
from tests.helpers import copy_warehouse, query, run_cli, started_cli
from tests.pipeline.datasets.zno_files import write_zno
from warehouse.paper_tables import COLUMNS, tables_of


def _tables(folder: Path, paper: str) -> dict[str, pl.DataFrame]:
    return {path.stem: pl.read_csv(path, infer_schema_length=None) for path in sorted(folder.glob(f"{paper}_*.csv"))}


def test_every_paper_has_a_run_configuration_that_loads() -> None:
    assert reproduce.papers() == ["borsch", "culturemix", "worldcuisines", "zno-vision"]
    borsch = reproduce.load("borsch")
    assert {spec.subset for spec in borsch.plan.generations} == {"parallel"}  # §3.5's parallel subset by default
    assert {spec.task for spec in borsch.plan.generations} == {"borsch.origin_qa"}  # VQA waits for --images
    assert len(borsch.left_out) == 3 and all("--images" in line for line in borsch.left_out)
    with_photos = reproduce.load("borsch", images=Path("/photos"), limit=3, backend="openai")
    assert {spec.images for spec in with_photos.plan.generations} == {None, Path("/photos")}
    assert {(spec.limit, spec.backend) for spec in with_photos.plan.generations} == {(3, "openai")}
    vision = reproduce.load("borsch", models=("vision=/tiny-vision",), images=Path("/photos"))
    assert {spec.model for spec in vision.plan.generations if spec.task != "borsch.origin_qa"} == {"/tiny-vision"}
    assert {spec.model for spec in vision.plan.generations if spec.task == "borsch.origin_qa"} == {
        "meta-llama/Llama-3.1-70B-Instruct",
        "Qwen/Qwen2-72B-Instruct",
    }


def test_an_unknown_paper_or_model_kind_is_one_line(tmp_path: Path) -> None:
    result = run_cli(tmp_path / "w.duckdb", "reproduce", "borshch", check=False)
    assert result.returncode == 2 and "unknown paper; known: borsch, culturemix" in result.stderr
    result = run_cli(tmp_path / "w.duckdb", "reproduce", "borsch", "--model", "audio=/m", check=False)
    assert result.returncode == 2 and "no model named or of kind 'audio'" in result.stderr


@pytest.fixture(scope="module")
def borsch_run(ingested_template, tiny_text_model: Path, data_dir: Path, tmp_path_factory) -> tuple:
    """`reproduce borsch` with the tiny text model, killed after its first committed chunk, then run again."""
    folder = tmp_path_factory.mktemp("reproduce-borsch")
    warehouse = copy_warehouse(ingested_template("borsch"), folder / "warehouse.duckdb")
    args = ["reproduce", "borsch", "--data", str(data_dir), "--backend", "transformers", "--model",
            f"text={tiny_text_model}", "--limit", "1", "--tables", str(folder / "tables")]  # fmt: skip
    with started_cli(warehouse, *args) as command:
        assert any(line.startswith("committed ") for line in command.lines())
        assert command.kill() == -signal.SIGKILL
    partial = query(warehouse.with_name("warehouse.work.duckdb"), "SELECT count(*) FROM core.generations")[0][0]
    finished = run_cli(warehouse, *args)
    return warehouse, partial, finished, folder / "tables"


def test_a_killed_reproduce_resumes_where_it_stopped(borsch_run: tuple) -> None:
    warehouse, partial, finished, _ = borsch_run
    # 1 parallel pair x 5 variants x 2 languages; both text models are the tiny one here, so the second is cached
    assert 0 < partial < 10
    assert query(warehouse, "SELECT count(*), count(DISTINCT lang) FROM marts.origin_scores") == [(10, 2)]
    assert f"({partial} cached" in finished.stderr + finished.stdout
    assert "left out: borsch.origin_vqa: needs the dish photos" in finished.stderr + finished.stdout


def test_reproduce_borsch_writes_the_papers_tables(borsch_run: tuple) -> None:
    tables = _tables(borsch_run[3], "borsch")
    assert set(tables) == {f"borsch_{t.table}" for t in tables_of("borsch")}
    assert all(tuple(frame.columns) == COLUMNS for frame in tables.values())
    table7 = tables["borsch_table7"]  # the dataset's composition: the paper's counts, one dish short for "Unknown"
    assert table7.filter(pl.col("value") == pl.col("published")).height == 109
    assert table7.filter(pl.col("value").is_null())["row"].to_list() == ["Unknown"]


@pytest.fixture(scope="module")
def vision_runs(ingested_template, tiny_vision_model: Path, data_dir: Path, tmp_path_factory) -> dict[str, Path]:
    """`reproduce culturemix` (the public sample) and `reproduce zno-vision` (a small exam written in code) with the
    tiny vision model, one item per run; their table folders."""
    folder = tmp_path_factory.mktemp("reproduce-vision")
    data = folder / "data"
    write_zno(data / "zno")
    shutil.copytree(data_dir / "culturemix-sample", data / "culturemix-sample")
    out = {}
    for paper in ("culturemix", "zno-vision"):
        warehouse = folder / paper / "warehouse.duckdb"
        run_cli(warehouse, "reproduce", paper, "--data", str(data), "--backend", "transformers", "--model",
                str(tiny_vision_model), "--limit", "1", "--tables", str(folder / paper / "tables"))  # fmt: skip
        out[paper] = folder / paper
    return out


def test_reproduce_culturemix_answers_every_subtask_and_prompt(vision_runs: dict[str, Path]) -> None:
    warehouse = vision_runs["culturemix"] / "warehouse.duckdb"
    assert query(warehouse, "SELECT count(DISTINCT subtask), count(DISTINCT prompt) FROM marts.culturemix_answers") == [
        (4, 3)
    ]
    table6 = _tables(vision_runs["culturemix"] / "tables", "culturemix")["culturemix_table6"]
    assert table6["value"].is_not_null().all() and table6["n"].min() >= 1


def test_reproduce_zno_vision_runs_the_exam_it_has_and_names_the_rest(vision_runs: dict[str, Path]) -> None:
    tables = _tables(vision_runs["zno-vision"] / "tables", "zno-vision")
    table1 = tables["zno-vision_table1"]
    ours = table1.filter(pl.col("value").is_not_null())
    assert set(ours["column"]) == {"ZNO val", "ZNO test"} and "Baseline" in set(ours["row"])
    assert table1.filter(pl.col("row") == "Gemini Pro", pl.col("column") == "ZNO test")["published"].to_list() == [
        0.675
    ]  # the printed number beside ours (§5, Table 1)


def test_reproduce_worldcuisines_imports_answers_made_elsewhere(
    ingested_template, data_dir: Path, tmp_path: Path
) -> None:
    answers = tmp_path / "answers"
    answers.mkdir()
    for model in ("qwen-vl-2b", "molmoe-1b"):
        source = data_dir / "worldcuisines" / "predictions" / f"task2_oe_{model}.jsonl"
        lines = source.read_text(encoding="utf-8").splitlines()[:40]
        (answers / source.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    warehouse = copy_warehouse(ingested_template("worldcuisines"), tmp_path / "w" / "warehouse.duckdb")
    run_cli(warehouse, "reproduce", "worldcuisines", "--data", str(data_dir), "--answers", str(answers), "--tables",
            str(tmp_path / "tables"))  # fmt: skip
    oe = _tables(tmp_path / "tables", "worldcuisines")["worldcuisines_task2_oe"]
    ours = oe.filter(pl.col("value").is_not_null())
    assert set(ours["row"]) == {"qwen-vl-2b", "molmoe-1b"} and set(ours["method"]) == {"paper", "atlas"}
    published = oe.filter(pl.col("published").is_not_null()).select("row", "column").unique()
    assert published.height == 12 * 30  # every published cell, ours or not
