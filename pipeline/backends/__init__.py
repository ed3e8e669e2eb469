"""Model backends behind one interface (see base.py). Heavy imports (torch, transformers, vllm,
httpx) happen inside each backend module, only when that backend is used."""

from __future__ import annotations

import importlib

from pipeline.backends.base import Backend, BackendError, Message, ModelIdentity, Request, Response

# name -> module that registers it; imported on demand so `import pipeline` stays light.
BACKEND_MODULES = {
    "transformers": "pipeline.backends.hf",
    "openai": "pipeline.backends.openai_api",
    "vllm": "pipeline.backends.vllm_engine",
    "replay": "pipeline.backends.replay",
}

__all__ = ["Backend", "BackendError", "Message", "ModelIdentity", "Request", "Response", "create_backend"]


def create_backend(name: str, model: str, **settings) -> Backend:
    """The backend `name` for `model` (a local path, a hub id or a served model name)."""
    if name not in BACKEND_MODULES:
        raise BackendError(f"unknown backend {name!r}; known: {', '.join(sorted(BACKEND_MODULES))}")
    importlib.import_module(BACKEND_MODULES[name])
    from pipeline.backends.base import REGISTRY

    return REGISTRY[name](model, **settings)
