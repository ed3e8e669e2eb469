"""Every third-party package the product code imports is pinned with `==` in a requirements file.

The imports are read from the source (ast) of pipeline/, warehouse/ and app/, at module level and
inside functions alike (the heavy engines are imported lazily, and vllm only in the GPU image); an
import name is mapped to its distribution by the installed packages' metadata, or taken as the
distribution's own name for a package not installed here (vllm on a CPU machine)."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIRST_PARTY = {"pipeline", "warehouse", "app", "tests"}
REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(==|>=|<=|~=|!=|<|>)?\s*([^\s;#]*)")


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them (ua_gec == ua-gec == UA.GEC)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(path: Path, seen: set[Path] | None = None) -> dict[str, str]:
    """Distribution -> the operator it is required with, following `-r other.txt`."""
    seen = seen if seen is not None else set()
    if path in seen:
        return {}
    seen.add(path)
    found: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith(("-r ", "--requirement ")):
            found |= requirements(path.parent / line.split(maxsplit=1)[1], seen)
            continue
        match = REQUIREMENT.match(line)
        assert match, f"{path.name}: cannot read the requirement {raw!r}"
        found[normalise(match.group(1))] = f"{match.group(3) or ''}{match.group(4)}"
    return found


@functools.cache
def installed() -> dict[str, list[str]]:
    """Import name -> installed distributions (read once: it walks every package's metadata)."""
    return dict(importlib.metadata.packages_distributions())


@functools.cache
def imported_modules() -> dict[str, list[str]]:
    """Top-level module name -> the files that import it (absolute imports only)."""
    found: dict[str, list[str]] = {}
    for root in ("pipeline", "warehouse", "app"):
        for path in sorted((REPO / root).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], []).append(str(path.relative_to(REPO)))
    return found


def third_party() -> dict[str, list[str]]:
    """Import name -> files, for every module neither in the standard library nor ours."""
    return {
        name: files
        for name, files in imported_modules().items()
        if name not in sys.stdlib_module_names and name not in FIRST_PARTY and name != "__future__"
    }


def distributions(module: str) -> list[str]:
    """The distributions that provide `module` (its own name when none installed here does)."""
    providers = installed().get(module)
    return [normalise(d) for d in providers] if providers else [normalise(module)]


def test_the_scan_sees_the_imports_it_must_check() -> None:
    modules = third_party()
    # a module-level import, a lazy one inside a function, and one not installed on this machine
    assert {"duckdb", "transformers", "vllm"} <= set(modules)
    assert "pathlib" not in modules and "pipeline" not in modules


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-dev.txt", "requirements-gpu.txt"])
def test_every_requirement_is_pinned_exactly(name: str) -> None:
    loose = {dist: spec for dist, spec in requirements(REPO / name).items() if not spec.startswith("==")}
    assert not loose, f"{name}: pin these with ==: {loose}"


def test_every_third_party_import_is_pinned() -> None:
    pinned = requirements(REPO / "requirements-gpu.txt") | requirements(REPO / "requirements-dev.txt")
    pinned |= requirements(REPO / "requirements-embedded.txt")
    missing = {
        module: files[0]
        for module, files in third_party().items()
        if not any(pinned.get(dist, "").startswith("==") for dist in distributions(module))
    }
    assert not missing, f"imported but not pinned with == in any requirements*.txt (module: first file): {missing}"
