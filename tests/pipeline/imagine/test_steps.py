"""The imagine steps end to end on CPU with tiny models: description -> translation -> image ->
embedding -> similarity, resumable after a SIGKILL, and the `export imagined` contract."""

from __future__ import annotations

import csv
import io
import json
import signal
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import imagine_config, make_dish_photos
from tests.helpers import query, run_cli, started_cli

CONTRACT = [
    "model", "dataset", "dish_id", "description", "translation", "image", "generator", "seed", "encoder",
    "intra_cosine", "inter_cosine", "qa_jaccard",
]  # fmt: skip


def test_a_run_configuration_imagines_dishes_end_to_end(imagined_warehouse: Path, tiny_text_model: Path) -> None:
    rows = query(
        imagined_warehouse,
        "SELECT dish_id, count(*), count(DISTINCT seed), min(intra_cosine), min(inter_cosine), min(qa_jaccard) "
        "FROM marts.imagined GROUP BY dish_id ORDER BY try_cast(dish_id AS INT)",
    )
    assert [r[:3] for r in rows] == [("1", 2, 2), ("2", 2, 2), ("3", 2, 2), ("4", 2, 2)]
    assert all(-1 <= r[3] <= 1 and -1 <= r[4] <= 1 and 0 <= r[5] <= 1 for r in rows)
    (description, translation, source, target), *_ = query(
        imagined_warehouse,
        """SELECT d.response, t.response, d.messages, t.messages FROM core.generated_images gi
           JOIN core.generations d ON d.generation_id = gi.description_generation_id
           JOIN core.generations t ON t.generation_id = gi.translation_generation_id""",
    )
    assert "ДАКОС" in json.loads(source)[0]["text"]  # dish 1 of BORSch RU, described in Russian
    request = json.loads(target)[0]["text"]
    assert request.startswith("Translate this Russian text into English") and request.endswith(description)
    assert translation and description
    correlation = query(
        imagined_warehouse,
        "SELECT model, n_dishes, n_images, n_dishes_with_qa, spearman BETWEEN -1 AND 1, "
        "spearman_low <= spearman AND spearman <= spearman_high FROM marts.imagined_correlations",
    )
    assert correlation == [(str(tiny_text_model), 4, 8, 4, True, True)] or (
        correlation[0][:4] == (str(tiny_text_model), 4, 8, 4) and correlation[0][4] is None  # constant QA
    )
    settings = query(
        imagined_warehouse, "SELECT DISTINCT steps, guidance, width, pipeline_class FROM core.generated_images"
    )
    assert settings == [(2, 3.5, 32, "FluxPipeline")]
    roles = query(imagined_warehouse, "SELECT role, tiny_random FROM marts.imagined_models ORDER BY role")
    assert roles == [("describer", True), ("encoder", True), ("generator", True), ("translator", True)]


def test_the_similarity_step_measures_the_real_photos_against_each_other(imagined_warehouse: Path) -> None:
    """BORSch §5's reference: 4 dishes x 2 photos, each photo against its dish's other photo and the 6 others."""
    counts = query(
        imagined_warehouse,
        "SELECT n_intra, n_inter, scope_dishes, count(*) FROM core.real_image_similarities GROUP BY ALL",
    )
    assert counts == [(1, 6, 4, 8)]
    photos = query(
        imagined_warehouse,
        """SELECT i.dish_key, e.embedding FROM core.images i JOIN core.image_embeddings e USING (image_id)
           WHERE i.kind = 'real' ORDER BY i.image_id""",
    )
    unit = np.array([v for _, v in photos]) / np.linalg.norm([v for _, v in photos], axis=1, keepdims=True)
    cosine, dishes = unit @ unit.T, np.array([d for d, _ in photos])
    same = (dishes[:, None] == dishes[None, :]) & ~np.eye(len(dishes), dtype=bool)
    other = dishes[:, None] != dishes[None, :]
    ((intra, inter, pairs),) = query(
        imagined_warehouse, "SELECT intra_mean, inter_mean, n_intra_pairs FROM marts.imagined_reference"
    )
    assert pairs == 4 and intra == pytest.approx(cosine[same].mean()) and inter == pytest.approx(cosine[other].mean())


def test_the_export_keeps_its_contract_columns(imagined_warehouse: Path) -> None:
    result = run_cli(imagined_warehouse, "export", "imagined", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert list(rows[0])[: len(CONTRACT)] == CONTRACT
    assert len(rows) == 8 and all(Path(r["image"]).is_file() and r["image"].endswith(".png") for r in rows)
    assert {r["seed"] for r in rows} == {"0", "1"}


def test_a_killed_run_resumes_without_duplicates(
    borsch_warehouse: Path, tmp_path: Path, tiny_text_model: Path, tiny_text_to_image_model: Path,
    tiny_image_encoder: Path,
) -> None:  # fmt: skip
    warehouse = borsch_warehouse
    photos = make_dish_photos(tmp_path / "photos", "RU", [1, 2, 3, 4])
    config = imagine_config(
        tmp_path / "run.toml", tiny_text_model, tiny_text_to_image_model, tiny_image_encoder, photos
    )
    with started_cli(warehouse, "run", str(config)) as command:
        assert any(line.startswith("drew 2/") for line in command.lines())
        assert command.kill() == -signal.SIGKILL
    work = warehouse.with_name("warehouse.work.duckdb")
    drawn = query(work, "SELECT count(*) FROM core.generated_images")[0][0]
    assert 2 <= drawn < 8 and drawn % 2 == 0  # whole batches only
    run_cli(warehouse, "run", str(config))
    assert query(
        work, "SELECT count(*), count(DISTINCT render_id), count(DISTINCT (dish_key, seed)) FROM core.generated_images"
    ) == [(8, 8, 8)]
    assert query(work, "SELECT count(*), count(DISTINCT image_id) FROM core.image_embeddings") == [(16, 16)]
    assert query(work, "SELECT count(*) FROM core.image_similarities") == [(8,)]
    assert query(
        work, "SELECT count(*) FROM core.generations g JOIN core.items i USING (item_id) "
        "WHERE i.task_id = 'borsch.translate_description'"
    ) == [(4,)]  # fmt: skip
    store = warehouse.parent / "images" / "generated"
    files = [p for p in store.rglob("*") if p.is_file()]
    assert len(files) == 8 and all(p.suffix == ".png" for p in files)  # no temporary files left
    assert query(warehouse, "SELECT count(*) FROM marts.imagined") == [(8,)]


def test_the_imagine_command_says_when_there_is_no_qa_score(
    borsch_warehouse: Path, tmp_path: Path, tiny_text_model: Path, tiny_text_to_image_model: Path,
    tiny_image_encoder: Path,
) -> None:  # fmt: skip
    warehouse = borsch_warehouse
    photos = make_dish_photos(tmp_path / "photos", "UK", [1, 2])
    args = [
        "imagine", "--dataset", "borsch", "--lang", "uk", "--describer", str(tiny_text_model),
        "--generator", str(tiny_text_to_image_model), "--encoder", str(tiny_image_encoder), "--limit", "2",
        "--images", str(photos), "--steps", "1", "--size", "32", "--setting", "max_new_tokens=8",
    ]  # fmt: skip
    first = run_cli(warehouse, *args)
    assert "imagine: 2 new images" in first.stderr
    again = run_cli(warehouse, *args, "--vqa-model", "Qwen/Qwen2-VL-7B-Instruct")  # Table 4's pairing, declared
    assert "imagine: 0 new images (2 cached)" in again.stderr and "embed: 0 new" in again.stderr
    assert query(warehouse, "SELECT DISTINCT vqa_model, pairing FROM marts.imagined_table4") == [
        ("Qwen/Qwen2-VL-7B-Instruct", "declared with --vqa-model")
    ]
    rows = query(warehouse, "SELECT dish_id, qa_jaccard, n_intra, n_inter FROM marts.imagined ORDER BY dish_id")
    assert [r[0] for r in rows] == ["1", "2"] and all(r[1] is None for r in rows)
    assert [(r[2], r[3]) for r in rows] == [(2, 2), (2, 2)]
    assert query(warehouse, "SELECT n_dishes_with_qa, spearman FROM marts.imagined_correlations") == [(0, None)]


@pytest.mark.parametrize("step", ["bogus"])
def test_an_unknown_stage_is_refused(warehouse: Path, tmp_path: Path, step: str) -> None:
    config = tmp_path / "run.toml"
    config.write_text(f'stages = ["{step}"]\n', encoding="utf-8")
    result = run_cli(warehouse, "run", str(config), check=False)
    assert result.returncode == 2 and "bogus" in result.stderr and "Traceback" not in result.stderr


def test_a_run_configuration_declares_whose_vqa_answers_pair_with_a_describer(tmp_path: Path) -> None:
    """`vqa_models` names a model under [models] or a model id; a describer it leaves out keeps §4.1's pairing."""
    from pipeline.imagine import specs_from_config

    models = {"qwen": {"backend": "vllm", "model": "Qwen/Qwen2-72B-Instruct"},
              "qwen-vl": {"backend": "vllm", "model": "Qwen/Qwen2-VL-72B-Instruct"},
              "llama": {"backend": "vllm", "model": "meta-llama/Llama-3.1-70B-Instruct"}}  # fmt: skip
    table = {"dataset": "borsch", "langs": ["ru"], "describers": ["qwen", "llama"], "vqa_models": {"qwen": "qwen-vl"}}
    specs = specs_from_config(tmp_path / "run.toml", [table], models)
    assert [(s.describer, s.vqa_model) for s in specs] == [
        ("Qwen/Qwen2-72B-Instruct", "Qwen/Qwen2-VL-72B-Instruct"),
        ("meta-llama/Llama-3.1-70B-Instruct", None),
    ]
