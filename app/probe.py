"""Helpers for the Live probe page (app/views/probe.py): the model config, input checks, the prompt,
the fuzzy dish match, the streamed answer and map colours.

Everything here is pure or a one-SELECT query, so tests call it directly; the answer itself comes
from `pipeline.answers.probe.ask` through the server's shared queue (pipeline/answers/probe_queue.py). The
models are declared in a TOML file (`DISH_ATLAS_PROBE_CONFIG`, default assets/probe.toml), one
`[models.<name>]` table each: `backend` and `model`, optional `max_tokens`, and every other key
passed on to the backend (`pipeline.backends.create_backend(backend, model, **settings)`); an optional
`[limits]` table sets what the shared queue allows (`ProbeLimits`' fields).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tomllib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from pipeline.answers.probe import (  # noqa: F401 (re-exported for the page: shared with `python -m pipeline probe`)
    LANGS,
    MATCH_THRESHOLD,
    MAX_DISH_CHARS,
    Match,
    ProbeInputError,
    build_request,
    match_dish,
    prompt_text,
    task_id,
)
from pipeline.answers.probe_queue import ProbeLimits
from pipeline.backends import BACKEND_MODULES
from pipeline.backends.embedded import embedded_model, is_embedded
from pipeline.tasks import get_task

ROOT = Path(__file__).resolve().parent.parent
CONFIG_ENV = "DISH_ATLAS_PROBE_CONFIG"
DEFAULT_CONFIG = ROOT / "assets" / "probe.toml"

MAX_IMAGE_BYTES = 5 * 1024 * 1024
IMAGE_FORMATS = {"PNG": ".png", "JPEG": ".jpg", "WEBP": ".webp"}  # PIL format -> file suffix
UPLOAD_TYPES = ["png", "jpg", "jpeg", "webp"]

# RGBA on the map; the marks in the answer (app.widgets.PROBE_PALETTE) use the same hues.
GOLD_RGBA = [46, 160, 67, 210]
NAMED_RGBA = [230, 120, 20, 210]
BOTH_RGBA = [111, 66, 193, 210]

_TIMEOUT = re.compile(r"timed out|no answer within|timeout", re.I)


# --- the model config ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelEntry:
    """One `[models.<name>]` table of the probe config."""

    name: str
    backend: str
    model: str
    settings: tuple[tuple[str, Any], ...] = ()  # passed to create_backend; hashable for st.cache_resource
    max_tokens: int | None = None  # None: the task's max_tokens
    note: str | None = None  # shown under the model picker (the config's `note`)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.backend}: {self.model})"

    @property
    def about(self) -> str | None:
        """What the user should know about this model: the config's note, else for an embedded model
        how small it is, so nobody takes its answers for a large model's."""
        if self.note:
            return self.note
        if is_embedded(self.model):
            entry = embedded_model(self.model)
            return (
                f"{entry.title} ({entry.parameters} parameters, {entry.licence}) ships with Dish Atlas and runs on "
                "this machine's CPU: a real but very small model, so expect confident mistakes."
            )
        return None


@dataclass(frozen=True)
class ProbeConfig:
    path: Path
    models: tuple[ModelEntry, ...] = ()
    problems: tuple[str, ...] = ()  # why the file or an entry was not usable
    limits: ProbeLimits = field(default_factory=ProbeLimits)  # the `[limits]` table over the defaults


def config_path() -> Path:
    """$DISH_ATLAS_PROBE_CONFIG, else assets/probe.toml."""
    raw = os.environ.get(CONFIG_ENV)
    return Path(raw).expanduser() if raw else DEFAULT_CONFIG


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def parse_config(text: str, path: Path) -> ProbeConfig:
    """The model entries of a probe config's text; bad entries become problems, never exceptions."""
    try:
        declaration = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return ProbeConfig(path, problems=(f"The probe config `{path}` is not valid TOML: {exc}",))
    tables = declaration.get("models", {})
    if not isinstance(tables, dict):
        return ProbeConfig(path, problems=(f"`models` in `{path}` must be a table of `[models.<name>]` tables.",))
    models, problems = [], []
    for name, spec in tables.items():
        if not isinstance(spec, dict):
            problems.append(f"`models.{name}` in `{path}` must be a table.")
            continue
        backend, model = spec.get("backend"), spec.get("model")
        if backend not in BACKEND_MODULES:
            problems.append(
                f"`models.{name}`: backend must be one of {', '.join(sorted(BACKEND_MODULES))} (got {backend!r})."
            )
            continue
        if not isinstance(model, str) or not model.strip():
            problems.append(f"`models.{name}`: `model` must be a model folder, hub id or served model name.")
            continue
        max_tokens = spec.get("max_tokens")
        if max_tokens is not None and (not isinstance(max_tokens, int) or not 1 <= max_tokens <= 4096):
            problems.append(f"`models.{name}`: `max_tokens` must be a whole number from 1 to 4096.")
            continue
        note = spec.get("note")
        if note is not None and not isinstance(note, str):
            problems.append(f"`models.{name}`: `note` must be text.")
            continue
        settings = {k: v for k, v in spec.items() if k not in ("backend", "model", "max_tokens", "note")}
        models.append(ModelEntry(str(name), backend, model.strip(), _hashable(settings), max_tokens, note))
    limits = parse_limits(declaration.get("limits", {}), path, problems)
    return ProbeConfig(path, tuple(models), tuple(problems), limits)


LIMIT_FIELDS = {
    "max_question_chars": int, "max_new_tokens": int, "max_waiting": int, "max_wait_s": float,
    "asks_per_window": int, "window_s": float,
}  # fmt: skip


def parse_limits(table: Any, path: Path, problems: list[str]) -> ProbeLimits:
    """The `[limits]` table over ProbeLimits' defaults; a bad value is a problem and keeps the default."""
    if not isinstance(table, dict):
        problems.append(f"`limits` in `{path}` must be a table.")
        return ProbeLimits()
    values: dict[str, Any] = {}
    for key, value in table.items():
        kind = LIMIT_FIELDS.get(key)
        if kind is None:
            problems.append(f"`limits.{key}` is not a limit; known: {', '.join(LIMIT_FIELDS)}.")
        elif isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and value != int(value)):
            problems.append(f"`limits.{key}` must be a number, not {value!r}.")
        else:
            values[key] = kind(value)
    try:
        return ProbeLimits(**values)
    except ValueError as exc:
        problems.append(f"`limits` in `{path}`: {exc}.")
        return ProbeLimits()


def load_config(path: Path | None = None) -> ProbeConfig:
    """The probe config at `path` (default: config_path()); a missing file is a config without models."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ProbeConfig(path)
    except (OSError, UnicodeDecodeError) as exc:
        return ProbeConfig(path, problems=(f"Cannot read the probe config `{path}`: {exc}",))
    return parse_config(text, path)


# --- inputs ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckedImage:
    data: bytes
    suffix: str  # .png / .jpg / .webp, from the decoded format (not the uploaded name)
    sha256: str


def check_dish(text: str | None, *, required: bool) -> str | None:
    """The dish name, stripped; ProbeInputError when too long or missing where required."""
    dish = " ".join((text or "").split())
    if len(dish) > MAX_DISH_CHARS:
        raise ProbeInputError(f"The dish name is {len(dish)} characters long; at most {MAX_DISH_CHARS} are allowed.")
    if not dish and required:
        raise ProbeInputError("Type a dish name (or upload a photo of the dish).")
    return dish or None


def check_image(data: bytes) -> CheckedImage:
    """An uploaded photo, decoded with PIL: at most MAX_IMAGE_BYTES, and really a PNG, JPEG or WebP."""
    from PIL import Image

    if len(data) > MAX_IMAGE_BYTES:
        raise ProbeInputError(
            f"The photo is {len(data) / 1024 / 1024:.1f} MB; at most {MAX_IMAGE_BYTES // 1024 // 1024} MB is allowed."
        )
    if not data:
        raise ProbeInputError("The uploaded photo is empty.")
    try:
        with Image.open(io.BytesIO(data)) as image:
            kind = image.format
            image.verify()
    except Exception:  # PIL raises many types for broken files; the user needs one message
        raise ProbeInputError("The uploaded file is not a readable PNG, JPEG or WebP image.") from None
    if kind not in IMAGE_FORMATS:
        raise ProbeInputError(f"The photo is a {kind} image; upload a PNG, JPEG or WebP image.")
    return CheckedImage(data, IMAGE_FORMATS[kind], hashlib.sha256(data).hexdigest())


# --- the prompt ----------------------------------------------------------------------------------------


def max_tokens(entry: ModelEntry, has_name: bool, has_image: bool) -> int:
    return entry.max_tokens or get_task(task_id(has_name, has_image)).max_tokens


# --- the answer ----------------------------------------------------------------------------------------


def failure_status(error: str) -> str:
    """`timeout` for an error that says the server took too long, else `error`."""
    return "timeout" if _TIMEOUT.search(error) else "error"


def answer_status(text: str | None, error: str | None, extraction_status: str) -> str:
    """The probe's status: error/timeout, empty (nothing but whitespace), else the extractor's."""
    if error:
        return failure_status(error)
    if not (text or "").strip():
        return "empty"
    return extraction_status


def map_colours(gold: Iterable[str], named: Iterable[str]) -> dict[str, list[int]]:
    """Country -> RGBA for `app.maps.origins_map`: gold green, named orange, both violet."""
    gold, named = list(dict.fromkeys(gold)), list(dict.fromkeys(named))
    colours = {code: list(GOLD_RGBA) for code in gold}
    for code in named:
        colours[code] = list(BOTH_RGBA if code in colours else NAMED_RGBA)
    return colours


def split_codes(value: Any) -> list[str]:
    """'UA,RU' -> ['UA', 'RU'] (None/NaN/'' -> [])."""
    if not isinstance(value, str):
        return []
    return [code for code in value.split(",") if code]


def agreement(stored: pd.DataFrame, named: Collection[str]) -> int:
    """How many stored answers named exactly the countries this probe named."""
    target = set(named)
    return sum(set(split_codes(value)) == target for value in stored["predicted"])


@dataclass
class ProbeResult:
    """What the page shows after a probe, kept in session_state (plain values) across reruns."""

    model: str
    backend: str
    lang: str
    prompt: str
    dish_text: str | None = None
    image_sha256: str | None = None
    match_key: str | None = None
    match_name: str | None = None
    match_score: float | None = None
    answer: str | None = None
    countries: list[str] = field(default_factory=list)
    status: str = "error"
    error: str | None = None
    latency_ms: float | None = None
    stage: str = "answer"  # where a failure happened: load | check | answer
    queue_position: int | None = None  # the question's place in the shared queue when asked (1: at once)
    waited_s: float | None = None  # how long it waited for the model

    @property
    def matched(self) -> bool:
        return self.match_score is not None and self.match_score >= MATCH_THRESHOLD
