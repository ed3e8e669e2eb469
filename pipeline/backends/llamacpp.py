"""The `llamacpp` backend: a GGUF model run in-process by llama.cpp on the CPU (the `xllamacpp` wheels).

Measured on this project's 2-core machine (busy) with the live probe's embedded model (SmolLM2-135M-Instruct,
bench/probe_engines.py, the same prompts through both backends, greedy, one thread each): llama.cpp 13.7
tokens/s against 2.4 for transformers on the converted weights (5.7x; 11.8x in a first, busier run), and it
reads the shipped Q4_1 file directly, with no conversion, loading in 2.4 s against 22.7 s. So the probe
config's embedded entry uses it; transformers stays the backend of `generate` and the `probe` command's default.

`model` is `embedded:<name>` (pipeline/backends/embedded.py), a `.gguf` file, or a folder holding one.
xllamacpp's engine also opens an HTTP listener on 127.0.0.1 (a random port); it is given a random
API key that is never shown, so nothing but this process can use it. Decoding is greedy
(temperature 0); a stream stops at its next token when its reader stops reading.
"""

from __future__ import annotations

import queue
import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from pipeline.backends.base import BackendError, ModelIdentity, Request, Response, local_weights_hash, register
from pipeline.backends.embedded import embedded_model, gguf_path, is_embedded

INSTALL = "pip install xllamacpp==2026.10.11549"
_DONE = object()


def model_file(model: str) -> Path:
    """The GGUF file `model` names; BackendError when there is none."""
    if is_embedded(model):
        return gguf_path(embedded_model(model))
    path = Path(model).expanduser()
    if path.is_dir():
        files = sorted(path.glob("*.gguf"))
        if len(files) != 1:
            raise BackendError(f"{path}: expected one .gguf file in the folder, found {len(files)}")
        return files[0]
    if path.suffix != ".gguf" or not path.is_file():
        raise BackendError(f"GGUF model file not found: {model} (give a .gguf file, a folder with one, or embedded:…)")
    return path


def chat_body(request: Request, max_tokens: int, stream: bool = False) -> dict:
    """The request as an OpenAI-style chat body for llama.cpp (text only)."""
    if any(message.images for message in request.messages):
        raise BackendError("the llamacpp backend runs text-only models and cannot take images")
    messages = [{"role": message.role, "content": message.text} for message in request.messages]
    return {"messages": messages, "max_tokens": max_tokens, "temperature": 0, "stream": stream}


@register("llamacpp")
class LlamaCppBackend:
    """In-process llama.cpp; the model loads on first use."""

    def __init__(self, model: str, threads: int | None = None, context: int = 2048, max_new_tokens: int | None = None):
        """`threads`: CPU threads for decoding (None: llama.cpp's default, one per core); `context`: the
        context window in tokens (prompt and answer)."""
        self.model_id = str(model)
        self.path = model_file(self.model_id)
        if threads is not None and int(threads) < 1:
            raise BackendError(f"threads must be at least 1, not {threads!r}")
        self.threads = None if threads is None else int(threads)
        self.context = int(context)
        self.max_new_tokens = max_new_tokens
        self._server = None
        self._lock = threading.Lock()  # one generation at a time on the one slot

    def identity(self) -> ModelIdentity:
        return ModelIdentity(self.model_id, weights_hash=local_weights_hash(self.path.parent), is_vision=False)

    def settings(self) -> dict:
        return {"engine": "llama.cpp", "do_sample": False, "max_new_tokens": self.max_new_tokens}

    def _load(self):
        if self._server is not None:
            return self._server
        try:
            import xllamacpp
        except ImportError as exc:
            raise BackendError(f"the llamacpp backend needs the xllamacpp package: {INSTALL}") from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(self.path)
        params.n_ctx = self.context
        params.n_parallel = 1
        params.verbosity = -1  # no per-request log lines on the dashboard's stderr (load errors still raise)
        params.api_keys = [secrets.token_urlsafe(32)]  # the engine's own HTTP listener answers nobody
        if self.threads is not None:
            params.cpuparams.n_threads = self.threads
            params.cpuparams_batch.n_threads = self.threads
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:
            raise BackendError(f"cannot load model {self.model_id!r} with llama.cpp: {exc}") from exc
        return self._server

    def _limit(self, request: Request) -> int:
        return self.max_new_tokens or request.max_tokens

    def generate(self, requests: Sequence[Request]) -> Iterator[Response]:
        """One request after another; a failed request yields an error Response."""
        server = self._load()
        for request in requests:
            started = time.perf_counter()
            try:
                body = chat_body(request, self._limit(request))
                with self._lock:
                    result = server.handle_chat_completions(body)
            except Exception as exc:
                error = str(exc) if isinstance(exc, BackendError) else f"generation failed: {type(exc).__name__}: {exc}"
                yield Response(key=request.key, text=None, finish_reason="error", error=error)
                continue
            choices = result.get("choices") if isinstance(result, dict) else None
            if not choices:
                yield Response(request.key, None, "error", error=f"llama.cpp answered {str(result)[:200]}")
                continue
            usage = result.get("usage") or {}
            yield Response(
                key=request.key,
                text=(choices[0].get("message") or {}).get("content") or None,
                finish_reason=choices[0].get("finish_reason"),
                tokens_in=usage.get("prompt_tokens"),
                tokens_out=usage.get("completion_tokens"),
                latency_ms=(time.perf_counter() - started) * 1000,
            )

    def stream(self, request: Request) -> Iterator[str]:
        """Text pieces as llama.cpp decodes them (its streaming call runs in a thread); a reader that
        stops early stops the decoding at its next token."""
        server = self._load()
        body = chat_body(request, self._limit(request), stream=True)
        pieces: queue.Queue = queue.Queue()
        abandoned = threading.Event()
        failure: list[str] = []

        def on_chunk(chunk) -> bool:
            if isinstance(chunk, dict) and "error" in chunk:
                failure.append(str(chunk["error"].get("message", chunk["error"])))
            else:
                for choice in chunk.get("choices", ()) if isinstance(chunk, dict) else ():
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        pieces.put(text)
            return abandoned.is_set()  # True stops the decoding

        def run() -> None:
            try:
                with self._lock:
                    server.handle_chat_completions(body, on_chunk)
            except Exception as exc:
                failure.append(f"{type(exc).__name__}: {exc}")
            finally:
                pieces.put(_DONE)

        thread = threading.Thread(target=run, name="llamacpp-stream", daemon=True)
        thread.start()
        try:
            while (piece := pieces.get()) is not _DONE:
                yield piece
        finally:
            abandoned.set()
            thread.join()
        if failure:
            raise BackendError(f"generation failed: {failure[0]}")

    def close(self) -> None:
        self._server = None
