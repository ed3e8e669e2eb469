"""`generate --executor ray`: the uncached requests as a Ray Data dataset, answered on Ray workers.

The driver plans the requests and drops every cache key already answered before the dataset exists
(pipeline/answers/generate.py `run`), then commits what comes back, unit by unit, in its own transactions: a killed job
loses at most the units in flight and the rerun asks only for the rest.

* `transformers`, `openai`, `replay`: one row per chunk of requests (the local executor's chunks, so a batched
  model sees the same batches); `map_batches` runs `ModelWorker` actors, each building its backend once (a model
  loads once per worker). An `openai` `base_url` listing several servers fans the chunks out over them in turn;
  the project's own backend class answers, so its retries, timeouts and key scrubbing hold on the workers.
* `vllm`: Ray Data LLM's vLLM engine processor (`build_processor` + `vLLMEngineProcessorConfig`) on GPU workers,
  one row per request, with the engine arguments the local vLLM backend uses.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pipeline.answers.generate import Answers
from pipeline.backends.base import Backend, Message, Request, Response
from pipeline.core.run_settings import GenerationSpec, RayOptions
from pipeline.executors.ray_cluster import (
    EXPECTED,
    actor_pool,
    cluster_cpus,
    cluster_gpus,
    failure_text,
    raise_failure,
    ray_cluster,
)

# CPU share of one worker that mostly waits on a server (openai) or a file (replay).
WAITING_CPUS = 0.25


# --- rows: requests and responses as plain JSON text (what crosses to the workers and back) ------------------------


def request_to_dict(request: Request) -> dict:
    return {
        "key": request.key,
        "messages": [{"role": m.role, "text": m.text, "images": [str(p) for p in m.images]} for m in request.messages],
        "max_tokens": request.max_tokens,
        "item_id": request.item_id,
        "lang": request.lang,
        "variant": request.variant,
    }


def request_from_dict(row: dict) -> Request:
    messages = tuple(Message(m["role"], m["text"], tuple(Path(p) for p in m["images"])) for m in row["messages"])
    return Request(row["key"], messages, row["max_tokens"], row["item_id"], row["lang"], row["variant"])


def responses_to_json(responses: list[Response]) -> str:
    return json.dumps([asdict(r) for r in responses], ensure_ascii=False)


def responses_from_json(text: str) -> list[Response]:
    return [Response(**row) for row in json.loads(text)]


# --- transformers, openai, replay: chunks answered by actors that build their backend once ------------------------


class ModelWorker:
    """A Ray Data actor: the backend is built on first use per endpoint and kept for every later chunk."""

    def __init__(self, backend: str, model: str, endpoints: list[dict]) -> None:
        self.backend, self.model, self.endpoints = backend, model, endpoints
        self.built: dict[int, Backend] = {}

    def engine(self, endpoint: int) -> Backend:
        if endpoint not in self.built:
            from pipeline.backends import create_backend

            self.built[endpoint] = create_backend(self.backend, self.model, **self.endpoints[endpoint])
        return self.built[endpoint]

    def __call__(self, batch: dict[str, Any]) -> dict[str, list]:
        answers, failures = [], []
        for endpoint, requests in zip(batch["endpoint"], batch["requests"], strict=True):
            asked = [request_from_dict(row) for row in json.loads(requests)]
            try:
                answers.append(responses_to_json(list(self.engine(int(endpoint)).generate(asked))))
                failures.append("")
            except EXPECTED as exc:  # a model that cannot load, a server refusing the key: the driver stops
                answers.append("[]")
                failures.append(failure_text(exc))
        return {"chunk": list(batch["chunk"]), "responses": answers, "failure": failures}


def worker_resources(spec: GenerationSpec, gpus: int) -> dict:
    """What one model worker asks Ray for: a GPU for a transformers model when the cluster has them (unless told
    `device=cpu`), a whole CPU otherwise; a fraction of one for workers that wait on a server."""
    if spec.backend != "transformers":
        return {"num_cpus": WAITING_CPUS}
    if gpus and str(spec.settings.get("device", "auto")) != "cpu":
        return {"num_cpus": 1, "num_gpus": 1}
    return {"num_cpus": 1}


def default_workers(spec: GenerationSpec, endpoints: int, cpus: int, gpus: int) -> int:
    if spec.backend == "openai":
        return endpoints
    resources = worker_resources(spec, gpus)
    return gpus if resources.get("num_gpus") else max(1, int(cpus // resources["num_cpus"]))


def answer_on_ray(spec: GenerationSpec, backend: Backend, endpoints: list[dict], options: RayOptions) -> Answers:
    """The Ray executor for `generate.run`: Ray starts (or is joined) only when there is something to ask."""

    def answers(chunks: list[list[Request]]) -> Iterator[tuple[list[Request], list[Response]]]:
        with ray_cluster(options):
            if spec.backend == "vllm":
                yield from _vllm_answers(spec, backend, chunks, options)
            else:
                yield from _worker_answers(spec, endpoints, chunks, options)

    return answers


def _worker_answers(
    spec: GenerationSpec, endpoints: list[dict], chunks: list[list[Request]], options: RayOptions
) -> Iterator[tuple[list[Request], list[Response]]]:
    import ray.data

    gpus = cluster_gpus()
    workers = options.workers or default_workers(spec, len(endpoints), cluster_cpus(), gpus)
    rows = [
        {
            "chunk": index,
            "endpoint": index % len(endpoints),
            "requests": json.dumps([request_to_dict(r) for r in chunk], ensure_ascii=False),
        }
        for index, chunk in enumerate(chunks)
    ]
    dataset = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
        ModelWorker,
        fn_constructor_kwargs={"backend": spec.backend, "model": spec.model, "endpoints": endpoints},
        batch_size=1,
        compute=actor_pool(min(workers, len(rows))),
        **worker_resources(spec, gpus),
    )
    for row in dataset.iter_rows():
        raise_failure(row["failure"])
        yield chunks[int(row["chunk"])], responses_from_json(row["responses"])


# --- vllm: Ray Data LLM's engine processor ----------------------------------------------------------------------


def vllm_processor_config(backend: Any, workers: int, batch_size: int) -> Any:
    """The `vLLMEngineProcessorConfig` of a local `VLLMBackend`: the same engine arguments (pipeline/backends/
    vllm_engine.py `engine_kwargs`), images prepared for vision models, a failed row kept as an error answer."""
    from ray.data.llm import vLLMEngineProcessorConfig

    from pipeline.backends.vllm_engine import engine_kwargs

    kwargs = engine_kwargs(backend.model, backend.config)
    model = kwargs.pop("model")
    return vLLMEngineProcessorConfig(
        model_source=model,
        engine_kwargs=kwargs,
        batch_size=batch_size,
        concurrency=workers,
        prepare_multimodal_stage=bool(backend.config.vision),
        should_continue_on_error=True,
        log_engine_metrics=False,
    )


def vllm_request_row(row: dict, max_images: int, temperature: float) -> dict:
    """Preprocess: one request as the chat messages and sampling parameters the vLLM stages read."""
    from pipeline.backends.vllm_engine import sampling_kwargs, to_vllm_messages

    request = request_from_dict(json.loads(row["request"]))
    return {
        "key": row["key"],
        "limit": row["limit"],
        "messages": to_vllm_messages(request.messages, max_images),
        "sampling_params": sampling_kwargs(int(row["limit"]), temperature),
    }


def vllm_answer_row(row: dict) -> dict:
    """Postprocess: what a Response needs from the engine's output row."""
    return {
        "key": row["key"],
        "limit": row["limit"],
        "text": row.get("generated_text") or "",
        "tokens_in": row.get("num_input_tokens"),
        "tokens_out": row.get("num_generated_tokens"),
    }


def vllm_response(row: dict) -> Response:
    """A processed row as a Response; a row the engine failed on (`__inference_error__`) as a failed answer. The
    engine reports no finish reason: an answer as long as its limit stopped for length."""
    error = row.get("__inference_error__")
    if error:
        return Response(row["key"], None, "error", error=f"vLLM failed: {error}")
    tokens_out = int(row["tokens_out"] or 0)
    reason = "length" if tokens_out >= int(row["limit"]) else "stop"
    return Response(row["key"], row["text"] or None, reason, row["tokens_in"], tokens_out)


def _vllm_answers(
    spec: GenerationSpec, backend: Any, chunks: list[list[Request]], options: RayOptions
) -> Iterator[tuple[list[Request], list[Response]]]:
    import ray.data
    from ray.data.llm import build_processor

    from pipeline.backends.vllm_engine import ImageError

    config = backend.config
    by_key, rows, refused = {}, [], []
    for request in (r for chunk in chunks for r in chunk):
        try:
            backend.conversation(request)  # images a text model or the limit refuses fail here, as locally
        except ImageError as exc:
            refused.append((request, Response(request.key, None, "error", error=str(exc))))
            continue
        by_key[request.key] = request
        limit = config.max_tokens or request.max_tokens
        rows.append({"key": request.key, "limit": limit, "request": json.dumps(request_to_dict(request))})
    if refused:
        yield [r for r, _ in refused], [response for _, response in refused]
    if not rows:
        return
    batch = max(1, max(len(chunk) for chunk in chunks))
    processor = build_processor(
        vllm_processor_config(backend, options.workers or max(1, cluster_gpus()), min(batch, config.chunk_size)),
        preprocess=functools.partial(vllm_request_row, max_images=config.max_images, temperature=config.temperature),
        postprocess=vllm_answer_row,
    )
    for answered in processor(ray.data.from_items(rows)).iter_batches(batch_size=batch, batch_format="pandas"):
        responses = [vllm_response(row) for row in answered.to_dict("records")]
        yield [by_key[r.key] for r in responses], responses
