"""One registry form for every pluggable kind: datasets, tasks, backends, executors, extractors, metrics, steps,
marts, exports and pages.

A registry maps a name to a thing, refuses a second thing under the same name (a silent overwrite
would change every score of a task), and answers an unknown name with the names it knows, so a
typo in a task file or a command line is obvious. One behaviour for every kind: a thing is registered by a
decorator or an `add` next to the code it registers; a registry that must not import its things up front names,
in `modules`, the module whose import registers each one, and imports it at the first look-up (never a
"module:function" string, never an import made elsewhere for its side effect); things declared as data (the task
files) are read on first use through `load`. So `import pipeline` stays light (torch, vllm, Ray and the answer
readers' libraries load only when used). Kinds whose order matters
(marts build in order, pages are listed in order) keep their registration order.

It lives in the lowest layer, the warehouse, because marts and exports are registered there and the
warehouse imports nothing from the pipeline or the app.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

T = TypeVar("T")


class DuplicateName(ValueError):
    """Two things claimed one name in the same registry."""


class UnknownName(KeyError):
    """A name no registered thing has; the message lists the known names."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0]) if self.args else ""


class Registry(Generic[T], Mapping[str, T]):
    """`kind` names what is registered ("dataset", "backend", …) for error messages.

    `modules` maps a name to the module whose import registers it, for lazily loaded entries
    (e.g. the vllm backend); entries registered directly need no module."""

    def __init__(
        self,
        kind: str,
        modules: Mapping[str, str] | None = None,
        *,
        ordered: bool = False,
        load: Callable[[Registry[T]], None] | None = None,
    ) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}
        self._modules = dict(modules or {})
        self._ordered = ordered  # iterate in registration order (marts, pages) instead of by name
        self._load = load  # registers what is declared as data, once, at the first look-up

    def register(self, *names: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under each of `names` (aliases allowed)."""
        if not names:
            raise ValueError(f"{self.kind} registration needs at least one name")

        def decorate(thing: T) -> T:
            for name in names:  # all names checked first: a refused registration leaves nothing behind
                self._refuse_taken(name, thing)
            for name in names:
                self.add(name, thing)
            return thing

        return decorate

    def add(self, name: str, thing: T) -> None:
        self._refuse_taken(name, thing)
        self._entries[name] = thing

    def _refuse_taken(self, name: str, thing: T) -> None:
        if name in self._entries and self._entries[name] is not thing:
            raise DuplicateName(f"{self.kind} {name!r} is already registered ({_describe(self._entries[name])})")

    def _loaded(self) -> None:
        if self._load is not None:
            load, self._load = self._load, None
            try:
                load(self)
            except BaseException:
                self._load = load  # a failed read (a broken task file) is retried, and reported, next time
                raise

    def get(self, name: str, default: T | None = None) -> T:  # type: ignore[override]
        """The thing registered as `name`; `UnknownName` (listing the known names) when none is."""
        self._loaded()
        if name not in self._entries and name in self._modules:
            importlib.import_module(self._modules[name])
        if name not in self._entries:
            if default is not None:
                return default
            raise UnknownName(f"unknown {self.kind} {name!r}; known: {', '.join(self.names()) or '(none)'}")
        return self._entries[name]

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        self._loaded()
        return name in self._entries or name in self._modules

    def names(self) -> list[str]:
        self._loaded()
        if self._ordered:
            return [*self._entries, *(name for name in self._modules if name not in self._entries)]
        return sorted({*self._entries, *self._modules})

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())


def _describe(thing: object) -> str:
    return getattr(thing, "__qualname__", None) or type(thing).__name__
