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
]


def create_backend(name: str, model: str, **settings) -> Backend:
    """The backend `name` for `model` (a local path, a hub id or a served model name)."""
    try:
        backend_class = BACKENDS.get(name)
    except UnknownName as exc:
        raise BackendError(str(exc)) from None
    return backend_class(model, **settings)
