"""`generate --executor ray` writes exactly the rows the local executor writes, and resumes like it."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import duckdb
import pytest

from pipeline.backends import Message, Request
from pipeline.backends.vllm_engine import VLLMBackend, engine_kwargs
from pipeline.executors import RayOptions, endpoint_settings
from pipeline.executors.ray_generate import (
    request_from_dict,
    request_to_dict,
    vllm_answer_row,
    vllm_processor_config,
    vllm_request_row,
    vllm_response,
)
from pipeline.runconfig import GenerationSpec
from pipeline.steps import Options, run_pipeline
from tests.conftest import copy_warehouse
from tests.helpers import query
from tests.local_server import LocalServer, message_text
from warehouse.db import Warehouse

# Everything a generation row holds but its run, clock and latency.
ROWS = """SELECT generation_id, model_id, item_id, lang, variant, messages, response, finish_reason, tokens_in,
                 tokens_out, origin FROM core.generations ORDER BY generation_id"""


def work(warehouse: Path) -> Path:
    return warehouse.with_name("warehouse.work.duckdb")


def generate(warehouse: Path, spec: GenerationSpec, executor: str = "local") -> None:
    run_pipeline("generate", Warehouse(warehouse), Options(generations=(spec,), executor=executor, ray=RayOptions()))


def last_run(warehouse: Path) -> tuple:
    return query(
        work(warehouse), "SELECT n_requested, n_generated, n_skipped FROM core.generation_runs ORDER BY started_at DESC"
    )[0]


def test_the_tiny_transformers_model_answers_on_ray_exactly_as_locally_and_a_rerun_asks_only_what_is_missing(
    local_ray: str, borsch_warehouse: Path, tiny_text_model: Path, tmp_path: Path
) -> None:
    on_ray = copy_warehouse(borsch_warehouse, tmp_path / "ray" / "warehouse.duckdb")
    spec = GenerationSpec(
        "borsch.origin_qa", "ru", "transformers", str(tiny_text_model), limit=3, max_tokens=8, chunk_size=4
    )
    generate(borsch_warehouse, spec)
    generate(on_ray, spec, "ray")
    local = query(work(borsch_warehouse), ROWS)
    assert len(local) == 15 and query(work(on_ray), ROWS) == local
    assert last_run(on_ray) == (15, 15, 0)

    # A killed job leaves some answers committed: the rerun drops those keys before Ray sees anything.
    with duckdb.connect(str(work(on_ray))) as con:
        con.execute("DELETE FROM core.generations WHERE generation_id IN (SELECT generation_id FROM core.generations "
                    "ORDER BY generation_id LIMIT 6)")  # fmt: skip
    generate(on_ray, spec, "ray")
    assert last_run(on_ray) == (15, 6, 9)
    assert query(work(on_ray), ROWS) == local
    runs = query(work(on_ray), "SELECT count(*) FROM core.generation_runs")
    generate(on_ray, spec, "ray")  # nothing left to ask: no run is recorded
    assert query(work(on_ray), "SELECT count(*) FROM core.generation_runs") == runs


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
