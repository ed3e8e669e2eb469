"""The one interface every backend implements, and the typed records that cross it.

A backend turns `Request`s (chat messages, possibly with images) into `Response`s. It is batched:
`generate` takes the whole list and yields responses as they finish, in any order, keyed by
`Request.key`. Building requests and parsing answers are pure and live outside the backends; the
engine call in between is thin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Protocol

from warehouse.registry import Registry


class BackendError(RuntimeError):
    """A backend that cannot run: missing model, dead server, bad settings (a clear message)."""


@dataclass(frozen=True)
class Message:
    """One chat turn. `images` are local files, shown to the model before the text."""

    role: str  # system | user | assistant
    text: str
    images: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Request:
    key: str  # the generation's cache key (core.generations.generation_id)
    messages: tuple[Message, ...]
    max_tokens: int = 128
    # what was asked, for backends that answer by question (replay): the item, prompt language, variant
    item_id: str = ""
    lang: str = ""
    variant: str = ""
    # the task's decoding temperature (ZNO-Vision §4: 1); None: the backend's own setting. A backend that
    # samples (> 0) does so seeded, so a rerun with the same seed gives the same answers.
    temperature: float | None = None


@dataclass(frozen=True)
class Response:
    key: str
    text: str | None  # None when the model produced nothing or the request failed
    finish_reason: str | None = None  # stop | length | error
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: float | None = None
    error: str | None = None  # why the request failed (the generation is then recorded as failed)


@dataclass(frozen=True)
class ModelIdentity:
    """What makes two runs the same model: part of every cache key."""

    model_id: str  # as the user named it (path, hub id, served name)
    revision: str | None = None  # hub revision / server-reported model version
    weights_hash: str | None = None  # content hash of local weight files, when local
    is_vision: bool | None = None


class Backend(Protocol):
    name: ClassVar[str]

    def identity(self) -> ModelIdentity: ...

    def settings(self) -> dict:
        """Decoding and engine settings that change outputs (part of the cache key)."""
        ...

    def generate(self, requests: Sequence[Request]) -> Iterator[Response]: ...

    def stream(self, request: Request) -> Iterator[str]:
        """Text pieces as the model produces them (the live probe page)."""
        ...

    def close(self) -> None: ...


# name -> the module whose import registers it; imported on demand so `import pipeline` stays light.
BACKEND_MODULES = {
    "transformers": "pipeline.backends.hf",
    "openai": "pipeline.backends.openai_api",
    "vllm": "pipeline.backends.vllm_engine",
    "replay": "pipeline.backends.replay",
    "llamacpp": "pipeline.backends.llamacpp",
}
BACKENDS: Registry[type] = Registry("backend", modules=BACKEND_MODULES)


def register(name: str) -> Callable[[type], type]:
    """Class decorator: a backend under an explicit name; a second class with that name is refused."""

    def decorate(cls: type) -> type:
        BACKENDS.add(name, cls)
        cls.name = name
        return cls

    return decorate


@dataclass
class GenerationStats:
    """Throughput of one backend call, for progress bars and the run summary."""

    requests: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)


def local_weights_hash(path: Path) -> str | None:
    """Content hash of a local model folder's weight files (None for a hub id or server name).

    Small models are hashed whole; for weights over 1 GiB each file contributes its name, size and
    first and last MiB, which changes whenever the weights do, without reading 15 GB per run."""
    import hashlib

    folder = Path(path)
    if not folder.is_dir():
        return None
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".safetensors", ".bin", ".pt", ".gguf"))
    if not files:
        return None
    digest = hashlib.sha256()
    whole = sum(p.stat().st_size for p in files) <= 1 << 30
    for file in files:
        size = file.stat().st_size
        digest.update(f"{file.relative_to(folder)}:{size}".encode())
        with open(file, "rb") as handle:
            if whole:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            else:
                digest.update(handle.read(1 << 20))
                handle.seek(max(0, size - (1 << 20)))
                digest.update(handle.read(1 << 20))
    return digest.hexdigest()[:16]
