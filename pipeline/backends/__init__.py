"""Model backends behind one interface (see base.py), registered in `BACKENDS` (warehouse/registry.py).
Heavy imports (torch, transformers, vllm, httpx) happen inside each backend module, only when that
backend is used: the registry imports a backend's module on first use."""

from __future__ import annotations

from pipeline.backends.base import (
    BACKEND_MODULES,
    BACKENDS,
    Backend,
    BackendError,
    Message,
    ModelIdentity,
    Request,
    Response,
)
from warehouse.registry import UnknownName

__all__ = [
    "BACKENDS",
    "BACKEND_MODULES",
    "Backend",
    "BackendError",
    "Message",
    "ModelIdentity",
    "Request",
    "Response",
    "create_backend",
    "endpoint_settings",
]


def create_backend(name: str, model: str, **settings) -> Backend:
    """The backend `name` for `model` (a local path, a hub id or a served model name)."""
    try:
        backend_class = BACKENDS.get(name)
    except UnknownName as exc:
        raise BackendError(str(exc)) from None
    return backend_class(model, **settings)


def endpoint_settings(backend: str, settings: dict) -> list[dict]:
    """The backend settings once per endpoint: an `openai` backend's `base_url` may list several OpenAI-compatible
    servers of one model, comma-separated (the Ray executor fans out over them); anything else is one endpoint."""
    url = settings.get("base_url")
    if backend != "openai" or not isinstance(url, str) or "," not in url:
        return [dict(settings)]
    urls = [u.strip() for u in url.split(",") if u.strip()]
    return [{**settings, "base_url": u} for u in urls]
