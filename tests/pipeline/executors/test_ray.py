"""`--executor ray` writes exactly the rows the local executor writes, and resumes like it: `generate` with the
tiny transformers model and with OpenAI-compatible test servers, `corpus scan` on a small corpus; the vLLM
processor's configuration (vLLM itself needs a GPU). One file, so one local Ray serves all of them (pytest-xdist
keeps a file's tests on one worker)."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.backends import BackendError, Message, Request, endpoint_settings
from pipeline.backends.vllm_engine import VLLMBackend, engine_kwargs
from pipeline.core.errors import DataError
from pipeline.core.run_settings import GenerationSpec, Options, RayOptions
from pipeline.corpus.scan import CorruptShardRefused, checksum_file, plan_scan, scan_corpus
from pipeline.executors.ray_corpus import ShardScanner, scan_corpus_on_ray
from pipeline.executors.ray_generate import (
    request_from_dict,
    request_to_dict,
    vllm_answer_row,
    vllm_processor_config,
    vllm_request_row,
    vllm_response,
)
from pipeline.executors.ray_score import score_on_ray
from pipeline.flow.runconfig import load as load_run_config
from pipeline.flow.steps import run_pipeline
from tests.helpers import copy_warehouse, query, run_cli
from tests.local_server import LocalServer, message_text
from warehouse.db import Warehouse

# --- generate ---------------------------------------------------------------------------------------------------

# Everything a generation row holds but its run, clock and latency.
ROWS = """SELECT generation_id, model_id, item_id, lang, variant, messages, response, finish_reason, tokens_in,
                 tokens_out, origin FROM core.generations ORDER BY generation_id"""


def work(warehouse: Path) -> Path:
    return warehouse.with_name("warehouse.work.duckdb")


def generate(warehouse: Path, spec: GenerationSpec, executor: str = "local", workers: int | None = None) -> None:
    options = Options(generations=(spec,), executor=executor, ray=RayOptions(workers=workers))
    run_pipeline("generate", Warehouse(warehouse), options)


def last_run(warehouse: Path) -> tuple:
    return query(
        work(warehouse), "SELECT n_requested, n_generated, n_skipped FROM core.generation_runs ORDER BY started_at DESC"
    )[0]


def test_the_tiny_transformers_model_answers_on_ray_exactly_as_locally_and_a_rerun_asks_only_what_is_missing(
    local_ray: str, borsch_warehouse: Path, tiny_text_model: Path, tmp_path: Path
) -> None:
    spec = GenerationSpec(
        "borsch.origin_qa", "ru", "transformers", str(tiny_text_model), limit=3, max_tokens=8, chunk_size=4
    )
    generate(borsch_warehouse, spec)
    local = query(work(borsch_warehouse), ROWS)
    assert len(local) == 15

    # What a killed Ray job leaves: some answers committed, the rest never asked. The rerun drops the committed keys
    # before Ray sees anything, and the two Ray workers (one per CPU) answer the rest as the local run did. (A whole
    # run on Ray from nothing: the OpenAI-compatible servers' test below.)
    on_ray = copy_warehouse(borsch_warehouse, tmp_path / "ray" / "warehouse.duckdb")
    with duckdb.connect(str(work(on_ray))) as con:
        con.execute("DELETE FROM core.generations WHERE generation_id IN (SELECT generation_id FROM core.generations "
                    "ORDER BY generation_id LIMIT 10)")  # fmt: skip
    generate(on_ray, spec, "ray")
    assert last_run(on_ray) == (15, 10, 5)
    assert query(work(on_ray), ROWS) == local
    runs = query(work(on_ray), "SELECT count(*) FROM core.generation_runs")
    generate(on_ray, spec, "ray")  # nothing left to ask: no run is recorded
    assert query(work(on_ray), "SELECT count(*) FROM core.generation_runs") == runs


def test_a_model_that_fails_on_a_worker_fails_the_command_with_its_own_message(
    local_ray: str, borsch_warehouse: Path, tiny_text_model: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "no-weights"
    broken.mkdir()
    shutil.copyfile(tiny_text_model / "config.json", broken / "config.json")  # the driver reads only the config
    spec = GenerationSpec("borsch.origin_qa", "ru", "transformers", str(broken), limit=1)
    with pytest.raises(BackendError, match=r"^cannot load model") as failed:
        generate(borsch_warehouse, spec, "ray", workers=1)  # one actor fails as two would: each loads the model
    assert "Traceback" not in str(failed.value) and "ray::" not in str(failed.value)
    assert query(work(borsch_warehouse), "SELECT count(*) FROM core.generations") == [(0,)]


def answer(messages: list[dict], max_tokens: int) -> str:
    """A deterministic served 'model': the question turned into an answer."""
    return f"{message_text(messages[-1])[: max_tokens * 4]} Україна"


def test_openai_servers_answer_on_ray_exactly_as_one_server_locally(
    local_ray: str, borsch_warehouse: Path, tmp_path: Path
) -> None:
    on_ray = copy_warehouse(borsch_warehouse, tmp_path / "ray" / "warehouse.duckdb")
    with LocalServer(answer) as one, LocalServer(answer) as two:
        local = GenerationSpec("borsch.origin_qa", "uk", "openai", "local", limit=4, chunk_size=5,
                               settings={"base_url": one.url})  # fmt: skip
        generate(borsch_warehouse, local)
        asked_locally = len(one.chat_requests)
        fanned = GenerationSpec(**{**local.__dict__, "settings": {"base_url": f"{one.url},{two.url}"}})
        generate(on_ray, fanned, "ray")
        shares = (len(one.chat_requests) - asked_locally, len(two.chat_requests))
    rows = query(work(borsch_warehouse), ROWS)
    assert len(rows) == 20 and query(work(on_ray), ROWS) == rows
    assert shares == (10, 10)  # four chunks of five, taken by the two servers in turn


def test_several_servers_need_the_ray_executor(borsch_warehouse: Path) -> None:
    settings = {"base_url": "http://127.0.0.1:9/v1, http://127.0.0.1:10/v1", "concurrency": 4}
    assert endpoint_settings("openai", settings) == [
        {"base_url": "http://127.0.0.1:9/v1", "concurrency": 4},
        {"base_url": "http://127.0.0.1:10/v1", "concurrency": 4},
    ]
    spec = GenerationSpec("borsch.origin_qa", "uk", "openai", "local", limit=1, settings=settings)
    with pytest.raises(ValueError, match="fanning out over several needs --executor ray"):
        generate(borsch_warehouse, spec)


def test_a_run_configuration_names_its_executor(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text('executor = "ray"\nray = { address = "head:6379", workers = 8 }\n', encoding="utf-8")
    plan = load_run_config(config)
    assert (plan.executor, plan.ray) == ("ray", RayOptions("head:6379", 8))
    config.write_text('executor = "spark"\n', encoding="utf-8")
    with pytest.raises(DataError, match="unknown executor 'spark'; known: local, ray"):
        load_run_config(config)


def test_requests_cross_to_the_workers_unchanged() -> None:
    request = Request("k1", (Message("user", "Звідки борщ?", (Path("/data/RU/images/1/a.jpg"),)),), 12, "i", "uk", "3")
    assert request_from_dict(request_to_dict(request)) == request


def test_the_vllm_processor_is_built_with_the_local_engine_arguments(tiny_text_model: Path) -> None:
    """vLLM does not run here (no GPU): the Ray Data LLM processor's configuration is what can be checked."""
    text = VLLMBackend(str(tiny_text_model), max_model_len=2048, gpu_memory_utilization=0.5)
    config = vllm_processor_config(text, workers=2, batch_size=16)
    expected = engine_kwargs(str(tiny_text_model), text.config)
    assert config.model_source == expected.pop("model")
    assert {key: config.engine_kwargs[key] for key in expected} == expected
    assert (config.batch_size, config.concurrency, config.should_continue_on_error) == (16, 2, True)
    assert config.prepare_multimodal_stage is False and "limit_mm_per_prompt" not in config.engine_kwargs
    vision = vllm_processor_config(VLLMBackend(str(tiny_text_model), vision=True, max_images=4), 1, 8)
    assert vision.prepare_multimodal_stage is True and vision.engine_kwargs["limit_mm_per_prompt"] == {"image": 4}


def test_vllm_rows_become_answers_with_their_limits_and_errors() -> None:
    request = Request("k1", (Message("user", "Звідки борщ?"),), 12)
    row = {"key": "k1", "limit": 5, "request": json.dumps(request_to_dict(request))}
    asked = vllm_request_row(row, max_images=10, temperature=0.0)
    assert asked["messages"] == [{"role": "user", "content": "Звідки борщ?"}]
    assert asked["sampling_params"] == {"temperature": 0.0, "max_tokens": 5}
    engine_out = {**asked, "generated_text": "Україна", "num_input_tokens": 9, "num_generated_tokens": 2}
    assert asdict(vllm_response(vllm_answer_row(engine_out))) == {
        "key": "k1",
        "text": "Україна",
        "finish_reason": "stop",
        "tokens_in": 9,
        "tokens_out": 2,
        "latency_ms": None,
        "error": None,
    }
    assert vllm_response(vllm_answer_row({**engine_out, "num_generated_tokens": 5})).finish_reason == "length"
    failed = vllm_response({**asked, "__inference_error__": "prompt too long"})
    assert (failed.text, failed.finish_reason, failed.error) == (None, "error", "vLLM failed: prompt too long")


# --- corpus scan ------------------------------------------------------------------------------------------------

# Each shard names borsch and varenyky with a country that is not their origin: more review samples than the
# three a dish keeps, so the budget across shards decides which ones stay.
DOCS = [
    "Борщу налили в тарілку. Це страва з України.",
    "Ми їли борщем і варениками у Польщі.",
    "Борщ готують у Польщі. Вареники люблять у Канаді.",
    "Кныш чи книш? Книші смачні.",
]
TABLES = {
    "core.corpora": "*",
    "core.corpus_shards": "corpus_id, path, checksum, status, reason, n_docs, n_bytes, patterns",
    "core.corpus_shard_dish_counts": "*",
    "core.corpus_shard_name_counts": "*",
    "core.corpus_samples": "*",
    "core.corpus_dish_counts": "*",
    "core.corpus_name_counts": "*",
}


def corpus_rows(con: duckdb.DuckDBPyConnection) -> dict[str, list]:
    return {
        table: sorted(map(repr, con.execute(f"SELECT {cols} FROM {table}").fetchall()))
        for table, cols in TABLES.items()
    }


def write_shards(folder: Path, names: range) -> Path:
    folder.mkdir(exist_ok=True)
    for k in names:
        lines = (json.dumps({"text": f"{doc} ({k})"}, ensure_ascii=False) for doc in DOCS)
        (folder / f"part-{k}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def two_copies(borsch_warehouse: Path, tmp_path: Path):
    """The working databases of two copies of a BORSch warehouse: one scanned locally, one on Ray."""
    other = copy_warehouse(borsch_warehouse, tmp_path / "ray" / "warehouse.duckdb")
    cons = [duckdb.connect(str(w.with_name("warehouse.work.duckdb"))) for w in (borsch_warehouse, other)]
    yield cons
    for con in cons:
        con.close()


def test_shards_scanned_on_ray_give_the_local_rows_and_a_rerun_skips_done_shards(
    local_ray: str, two_copies, tmp_path: Path
) -> None:
    local, on_ray = two_copies
    corpus = write_shards(tmp_path / "corpus", range(4))
    pq.write_table(pa.table({"text": DOCS}), corpus / "part-5.parquet")
    (corpus / "part-6.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00 not gzip")  # corrupt: reported, retried next time
    work = tmp_path / "ray-work"
    options = RayOptions(workers=2)

    scanned = scan_corpus(local, "uk", str(corpus), run_id="r", skip_corrupt_shards=True)
    summary = scan_corpus_on_ray(
        on_ray, "uk", str(corpus), "text", run_id="r", options=options, work_dir=work, skip_corrupt_shards=True
    )
    assert (summary.shards_scanned, summary.n_docs, [Path(p).name for p, _ in summary.corrupt]) == (
        5,
        20,
        ["part-6.jsonl.gz"],
    )
    assert corpus_rows(on_ray) == corpus_rows(local)
    assert query_samples(on_ray) == 6 and list(work.iterdir()) == []  # 3 per dish; each shard's files removed

    write_shards(corpus, range(7, 8))
    scan_corpus(local, "uk", str(corpus), run_id="r", skip_corrupt_shards=True)
    again = scan_corpus_on_ray(
        on_ray, "uk", str(corpus), "text", run_id="r", options=options, work_dir=work, skip_corrupt_shards=True
    )
    assert (again.shards_scanned, again.shards_skipped, len(again.corrupt)) == (1, 5, 1)
    assert corpus_rows(on_ray) == corpus_rows(local) and scanned.corpus_id == again.corpus_id
    with pytest.raises(CorruptShardRefused, match=r"part-6\.jsonl\.gz"):  # the default, as the local scan's
        scan_corpus_on_ray(on_ray, "uk", str(corpus), "text", run_id="r", options=options, work_dir=work)


def query_samples(con: duckdb.DuckDBPyConnection) -> int:
    return con.execute("SELECT count(*) FROM core.corpus_samples").fetchone()[0]


def test_a_shard_a_killed_job_scanned_but_never_merged_is_merged_from_its_files(
    local_ray: str, two_copies, tmp_path: Path
) -> None:
    import ray

    local, on_ray = two_copies
    corpus = write_shards(tmp_path / "corpus", range(2))
    work = tmp_path / "ray-work"
    work.mkdir()
    plan = plan_scan(on_ray, "uk", str(corpus))
    shipped = {"corpus_id": plan.corpus_id, "lang": "uk", "source": plan.source, "text_field": "text",
               "inputs": {"ref": ray.put(plan.inputs)}, "budget": plan.budget}  # fmt: skip
    left = ShardScanner(shipped, plan.done, str(work)).scan(plan.shards[1], checksum_file(plan.shards[1]))
    assert Path(left["marker"]).is_file()  # what the worker wrote before the job died

    scan_corpus(local, "uk", str(corpus), run_id="r")
    summary = scan_corpus_on_ray(
        on_ray, "uk", str(corpus), "text", run_id="r", options=RayOptions(workers=1), work_dir=work
    )
    assert summary.shards_scanned == 2 and list(work.iterdir()) == []
    assert corpus_rows(on_ray) == corpus_rows(local)


def test_the_command_joins_a_running_cluster(local_ray: str, borsch_warehouse: Path, tmp_path: Path) -> None:
    corpus = write_shards(tmp_path / "corpus", range(3))
    on_ray = copy_warehouse(borsch_warehouse, tmp_path / "ray" / "warehouse.duckdb")
    args = ("corpus", "scan", "--lang", "uk", "--source", str(corpus))
    run_cli(borsch_warehouse, *args)
    ray = ("--executor", "ray", "--ray-address", local_ray, "--ray-workers", "1", "--ray-work", str(tmp_path / "w"))
    result = run_cli(on_ray, *args, *ray)  # one scanner: the command joining the cluster is what is tested here
    assert "3 shards scanned, 0 skipped (unchanged), 12 documents" in " ".join(result.stderr.split())
    rows = [corpus_rows(duckdb.connect(str(w), read_only=True)) for w in (borsch_warehouse, on_ray)]
    assert rows[0] == rows[1] and rows[0]["core.corpus_samples"] and list((tmp_path / "w").iterdir()) == []


# --- score ------------------------------------------------------------------------------------------------------

SCORED_TABLES = (
    "core.extractions",
    "core.extraction_spans",
    "core.scores",
    "core.choice_extractions",
    "core.name_matches",
    "core.score_models",
    "core.gold_text_checks",
    "core.answer_classes",
)


def scored_rows(warehouse: Path) -> dict[str, list[tuple]]:
    """Every row the score step wrote, but its clock (TIMESTAMP columns), in a fixed order."""
    rows = {}
    for table in SCORED_TABLES:
        schema, name = table.split(".")
        columns = [c for c, kind in query(work(warehouse), f"""SELECT column_name, data_type
            FROM information_schema.columns WHERE table_schema = '{schema}' AND table_name = '{name}'""")
            if not kind.startswith("TIMESTAMP")]  # fmt: skip
        rows[table] = query(work(warehouse), f"SELECT {', '.join(columns)} FROM {table} ORDER BY ALL")
    return rows


def test_answers_scored_on_ray_give_the_local_tables_and_a_rerun_scores_only_what_a_killed_job_left(
    local_ray: str, worldcuisines_warehouse: Path, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.score import stage

    # 150 real answers of one model to each kind of question: open-ended origin (countries), multiple choice, and
    # the dish's name (task 1): every path of the stage, in chunks of 40 spread over the two actors
    predictions = data_dir / "worldcuisines" / "predictions"
    files = []
    for source in ("task2_oe_molmo-7b-d.jsonl", "mc/task2_mc_molmo-7b-d.jsonl", "small/task1_oe_molmo-7b-d.jsonl"):
        target = tmp_path / "answers" / Path(source).name
        target.parent.mkdir(exist_ok=True)
        target.write_text("".join((predictions / source).read_text(encoding="utf-8").splitlines(True)[:150]))
        files.append(target)
    run_pipeline("import", Warehouse(worldcuisines_warehouse), Options(responses=tuple(files)))
    on_ray = copy_warehouse(worldcuisines_warehouse, tmp_path / "ray" / "warehouse.duckdb")
    monkeypatch.setattr(stage, "CHUNK", 40)

    run_pipeline("score", Warehouse(worldcuisines_warehouse), Options(), steps=("score",), publish=False)
    local = scored_rows(worldcuisines_warehouse)
    assert len(local["core.extractions"]) == 300 and len(local["core.choice_extractions"]) == 150
    assert local["core.name_matches"] and local["core.extraction_spans"]
    ray_options = Options(executor="ray", ray=RayOptions(workers=2))
    run_pipeline("score", Warehouse(on_ray), ray_options, steps=("score",), publish=False)
    assert scored_rows(on_ray) == local

    # what a killed job leaves: some chunks committed, the rest never written; the rerun scores only the rest
    with duckdb.connect(str(work(on_ray))) as con:
        con.execute("CREATE TEMP TABLE gone AS SELECT generation_id FROM core.extractions ORDER BY generation_id "
                    "LIMIT 100")  # fmt: skip
        for table in ("core.extractions", "core.extraction_spans", "core.scores", "core.name_matches"):
            con.execute(f"DELETE FROM {table} WHERE generation_id IN (SELECT generation_id FROM gone)")
    with Warehouse(on_ray).writer() as con:
        assert stage.score(con, elsewhere=score_on_ray(RayOptions(workers=2))).scored == 100
    assert scored_rows(on_ray) == local
