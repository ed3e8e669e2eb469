"""Offline vLLM: the whole task goes to one engine, which schedules and batches it on the GPU.

`vllm` is imported only when the engine is first needed, so this module (and its pure helpers,
which the unit tests cover) import on a CPU machine without it. Requests are sent as OpenAI-style
chat conversations through `LLM.chat`, images as base64 data URLs placed before the text, in
chunks of `chunk_size` requests: vLLM schedules each chunk internally, and the caller can commit
the answers of one chunk before the next starts.
"""

from __future__ import annotations

import base64
import gc
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from pipeline.backends.base import (
    BackendError,
    Message,
    ModelIdentity,
    Request,
    Response,
    local_weights_hash,
    register,
)

INSTALL_HINT = "vLLM is not installed: install requirements-gpu.txt on a GPU machine"
MAX_IMAGES_PER_PROMPT = 10
IMAGE_MIME = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".bmp": "image/bmp",
}


class ImageError(ValueError):
    """An image a request cannot send: unreadable, unknown type, or one too many."""


@dataclass(frozen=True)
class VLLMSettings:
    """Everything the backend can be told; `settings()` reports the part that changes outputs."""

    tensor_parallel_size: int = 1
    max_model_len: int = 4096
    max_tokens: int | None = None  # when set, replaces every request's own max_tokens
    temperature: float = 0.0  # greedy
    max_images: int = MAX_IMAGES_PER_PROMPT  # limit_mm_per_prompt for vision models
    gpu_memory_utilization: float = 0.9
    dtype: str = "auto"
    trust_remote_code: bool = False
    enable_prefix_caching: bool = True
    chunk_size: int = 1024  # requests per LLM.chat call: the caller commits after each
    vision: bool | None = None  # None: read from the model's config (vision_config / architecture)
    revision: str | None = None

    @classmethod
    def from_kwargs(cls, **settings: Any) -> VLLMSettings:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise BackendError(f"unknown vllm settings: {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        made = cls(**settings)
        if made.chunk_size < 1 or made.tensor_parallel_size < 1 or made.max_model_len < 1:
            raise BackendError("vllm settings chunk_size, tensor_parallel_size and max_model_len must be positive")
        if not 0 < made.gpu_memory_utilization <= 1:
            raise BackendError(f"gpu_memory_utilization must be in (0, 1], got {made.gpu_memory_utilization}")
        return made


def image_data_url(path: Path) -> str:
    """A local image as a data URL (vLLM decodes these itself; no local-path permission needed)."""
    mime = IMAGE_MIME.get(Path(path).suffix.lower())
    if mime is None:
        raise ImageError(f"image {path}: unsupported type {Path(path).suffix!r}; use {', '.join(sorted(IMAGE_MIME))}")
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ImageError(f"image {path} cannot be read: {exc.strerror or exc}") from exc
    if not data:
        raise ImageError(f"image {path} is empty")
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def to_vllm_messages(messages: tuple[Message, ...], max_images: int = MAX_IMAGES_PER_PROMPT) -> list[dict]:
    """OpenAI-style chat: a text-only turn is a plain string; a turn with images is a list of
    image_url parts (in order) followed by the text part, as the model sees images before text."""
    count = sum(len(message.images) for message in messages)
    if count > max_images:
        raise ImageError(f"{count} images in one prompt; at most {max_images} are allowed (limit_mm_per_prompt)")
    converted = []
    for message in messages:
        if not message.images:
            converted.append({"role": message.role, "content": message.text})
            continue
        parts: list[dict] = [{"type": "image_url", "image_url": {"url": image_data_url(p)}} for p in message.images]
        parts.append({"type": "text", "text": message.text})
        converted.append({"role": message.role, "content": parts})
    return converted


def engine_kwargs(model: str, settings: VLLMSettings) -> dict:
    """The exact keyword arguments given to `vllm.LLM`. vLLM refuses `limit_mm_per_prompt` for a
    text-only model, so it is passed only when the model is a vision model."""
    kwargs: dict[str, Any] = {
        "model": model,
        "tensor_parallel_size": settings.tensor_parallel_size,
        "max_model_len": settings.max_model_len,
        "gpu_memory_utilization": settings.gpu_memory_utilization,
        "dtype": settings.dtype,
        "trust_remote_code": settings.trust_remote_code,
        "enable_prefix_caching": settings.enable_prefix_caching,
    }
    if settings.revision is not None:
        kwargs["revision"] = settings.revision
    if settings.vision:
        kwargs["limit_mm_per_prompt"] = {"image": settings.max_images}
    return kwargs


def sampling_kwargs(max_tokens: int, temperature: float = 0.0) -> dict:
    """Keyword arguments for `vllm.SamplingParams`: greedy unless told otherwise."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    return {"temperature": temperature, "max_tokens": max_tokens}


def config_is_vision(config: dict) -> bool:
    """Whether a Hugging Face config describes an image-text model."""
    if "vision_config" in config or "visual" in config:
        return True
    architectures = config.get("architectures") or []
    return any(word in arch for arch in architectures for word in ("VL", "Vision", "Llava", "ImageText"))


def detect_vision(model: str, revision: str | None = None, trust_remote_code: bool = False) -> bool:
    """Read the model's config (local folder, else the Hugging Face cache/hub through transformers)."""
    config_file = Path(model).expanduser() / "config.json"
    if config_file.is_file():
        return config_is_vision(json.loads(config_file.read_text(encoding="utf-8")))
    try:
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(model, revision=revision, trust_remote_code=trust_remote_code)
    except Exception:  # unknown: treat as text; pass vision=True to force images on
        return False
    return config_is_vision(config.to_dict())


def output_to_response(key: str, output: Any, latency_ms: float | None = None) -> Response:
    """One vLLM RequestOutput (prompt_token_ids, outputs[0].text/token_ids/finish_reason) as a Response."""
    tokens_in = len(output.prompt_token_ids) if getattr(output, "prompt_token_ids", None) is not None else None
    if not output.outputs:
        return Response(key, None, "error", tokens_in, 0, latency_ms, error="vLLM returned no completion")
    completion = output.outputs[0]
    tokens_out = len(completion.token_ids)
    reason = completion.finish_reason
    if reason not in ("stop", "length"):
        return Response(key, None, "error", tokens_in, tokens_out, latency_ms, error=f"vLLM finished with {reason!r}")
    return Response(key, completion.text or None, reason, tokens_in, tokens_out, latency_ms)


def error_response(key: str, error: str) -> Response:
    return Response(key, None, "error", error=error)


def looks_like_path(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~")) or Path(model).expanduser().exists()


def _import_vllm() -> Any:
    try:
        import vllm
    except ImportError as exc:
        raise BackendError(INSTALL_HINT) from exc
    return vllm


@register("vllm")
class VLLMBackend:
    """`vllm.LLM` in this process; the engine starts on the first `generate`, not on construction,
    so identity and settings (the cache keys) never need a GPU."""

    def __init__(self, model: str, **settings: Any) -> None:
        self.model = model
        config = VLLMSettings.from_kwargs(**settings)
        if looks_like_path(model) and not Path(model).expanduser().is_dir():
            raise BackendError(f"model folder {model} does not exist")
        if config.vision is None:
            vision = detect_vision(model, config.revision, config.trust_remote_code)
            config = VLLMSettings(**{**asdict(config), "vision": vision})
        self.config = config
        self._llm: Any = None
        self._identity: ModelIdentity | None = None

    def identity(self) -> ModelIdentity:
        if self._identity is None:
            folder = Path(self.model).expanduser()
            weights = local_weights_hash(folder) if folder.is_dir() else None
            self._identity = ModelIdentity(self.model, self.config.revision, weights, self.config.vision)
        return self._identity

    def settings(self) -> dict:
        c = self.config
        return {
            "temperature": c.temperature,
            "max_tokens": c.max_tokens,
            "dtype": c.dtype,
            "max_model_len": c.max_model_len,
            "tensor_parallel_size": c.tensor_parallel_size,
            "max_images": c.max_images if c.vision else 0,
        }

    def engine(self) -> Any:
        """The vLLM engine, created once (loading weights and reserving GPU memory takes a while)."""
        if self._llm is None:
            vllm = _import_vllm()
            try:
                self._llm = vllm.LLM(**engine_kwargs(self.model, self.config))
            except Exception as exc:
                raise BackendError(f"vLLM could not load {self.model}: {exc}") from exc
        return self._llm

    def conversation(self, request: Request) -> list[dict]:
        """The chat for one request; raises ImageError for images a text model or the limit refuses."""
        if not self.config.vision and any(message.images for message in request.messages):
            raise ImageError(f"{self.model} is not a vision model; the request has images")
        return to_vllm_messages(request.messages, self.config.max_images)

    def generate(self, requests: Sequence[Request]) -> Iterator[Response]:
        """Chunk by chunk, one `LLM.chat` per chunk; yields each chunk's answers once it is done."""
        llm = self.engine()
        size = self.config.chunk_size
        for start in range(0, len(requests), size):
            ready: list[tuple[Request, list[dict]]] = []
            for request in requests[start : start + size]:
                try:
                    ready.append((request, self.conversation(request)))
                except ImageError as exc:
                    yield error_response(request.key, str(exc))
            yield from self._chat(llm, ready)

    def params_key(self, request: Request) -> tuple[int, float]:
        """The request's token limit and temperature: its sampling parameters."""
        temperature = self.config.temperature if request.temperature is None else request.temperature
        return self.config.max_tokens or request.max_tokens, float(temperature)

    def _chat(self, llm: Any, ready: list[tuple[Request, list[dict]]]) -> Iterator[Response]:
        """One chat call; if vLLM rejects the batch for a bad prompt (too long, bad image), the
        batch is halved until the bad requests are alone, and only those fail."""
        if not ready:
            return
        vllm = _import_vllm()
        params = {}
        for request, _ in ready:  # the task's temperature, where it declares one (ZNO-Vision §4: 1), wins
            if self.params_key(request) not in params:
                limit, temperature = self.params_key(request)
                params[limit, temperature] = vllm.SamplingParams(**sampling_kwargs(limit, temperature))
        started = time.perf_counter()
        try:
            outputs = llm.chat(
                [conversation for _, conversation in ready],
                sampling_params=[params[self.params_key(request)] for request, _ in ready],
                use_tqdm=True,
            )
        except (ValueError, TypeError, KeyError, OSError) as exc:
            if len(ready) == 1:
                yield error_response(ready[0][0].key, f"vLLM refused the request: {exc}")
                return
            half = len(ready) // 2
            yield from self._chat(llm, ready[:half])
            yield from self._chat(llm, ready[half:])
            return
        except Exception as exc:
            raise BackendError(f"vLLM failed: {type(exc).__name__}: {exc}") from exc
        # Offline batching has no per-request clock: each answer gets its share of the call.
        latency_ms = (time.perf_counter() - started) * 1000 / len(ready)
        for (request, _), output in zip(ready, outputs, strict=True):
            yield output_to_response(request.key, output, latency_ms)

    def stream(self, request: Request) -> Iterator[str]:
        """vLLM's offline engine does not stream: the whole answer comes as one piece."""
        for response in self.generate([request]):
            if response.error:
                raise BackendError(response.error)
            if response.text:
                yield response.text

    def close(self) -> None:
        """Drop the engine and give its GPU memory back (the engine core process ends with it)."""
        if self._llm is None:
            return
        llm, self._llm = self._llm, None
        shutdown = getattr(getattr(llm, "llm_engine", None), "shutdown", None)
        if callable(shutdown):
            shutdown()
        del llm
        gc.collect()
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except ImportError:
            pass
