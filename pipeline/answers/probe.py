"""Ask one model about one dish: the prompt, the fuzzy dish match against the warehouse, the answer,
the countries it names and the dish's gold origins. The Live probe page (app/probe.py) and the
`python -m pipeline probe` command both use it, so a script sees what the page shows."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from pipeline.answers.prompting import fill
from pipeline.backends import BackendError, Message, Request, create_backend
from pipeline.backends.embedded import DEFAULT
from pipeline.core.output import say
from pipeline.extract.countries import extract_countries
from pipeline.tasks import get_task

if TYPE_CHECKING:
    from warehouse.db import Warehouse

LANGS = {"ru": "Русский", "uk": "Українська", "en": "English"}
MATCH_THRESHOLD = 85.0  # rapidfuzz WRatio (0-100); below it the typed name matches no dish
VARIANT = "1"  # the first prompt variant of the task declarations
MAX_DISH_CHARS = 200  # the longest dish name a probe takes (the page and the command alike)
DEFAULT_BACKEND = "transformers"
DEFAULT_MODEL = DEFAULT.model_id  # the embedded real model: answers with no set-up


class ProbeInputError(ValueError):
    """Input that cannot be probed, with a message for the user."""


def task_id(has_name: bool, has_image: bool) -> str:
    """The task a probe is: a name (origin_qa), photos (origin_vqa) or both (origin_vqa_with_name)."""
    if has_image:
        return "borsch.origin_vqa_with_name" if has_name else "borsch.origin_vqa"
    return "borsch.origin_qa"


def prompt_text(lang: str, dish: str | None, has_image: bool = False) -> str:
    """Variant 1 of the task's prompt in `lang`, from the task declarations (pipeline/tasks/borsch.toml)."""
    if lang not in LANGS:
        raise ProbeInputError(f"unknown language {lang!r}; pick one of {', '.join(LANGS)}")
    template = get_task(task_id(bool(dish), has_image)).templates(lang)[VARIANT]
    return fill(template, dish)


def build_request(prompt: str, images: tuple[Path, ...] = (), limit: int = 64) -> Request:
    return Request(key=f"probe-{time.time_ns()}", messages=(Message("user", prompt, images),), max_tokens=limit)


@dataclass(frozen=True)
class Match:
    dish_key: str
    matched_name: str  # the name (any language) the typed text matched
    score: float

    @property
    def found(self) -> bool:
        return self.score >= MATCH_THRESHOLD


def match_dish(text: str, names: pd.DataFrame, lang: str | None = None) -> Match | None:
    """The dataset dish whose name is closest to `text` (rapidfuzz WRatio, case and punctuation
    ignored); names in `lang` win ties. None when there are no names at all."""
    from rapidfuzz import fuzz, process, utils

    if names.empty or not text.strip():
        return None
    # ties: a name in `lang` first, then a dish its dataset records in `lang` (BORSch's own Ukrainian борщ
    # before a Russian-set entry that also has a Ukrainian name)
    native = names["dish_lang"] != lang if "dish_lang" in names else False
    ordered = names.assign(_first=names["lang"] != lang, _native=native).sort_values(
        ["_first", "_native", "dish_key"], kind="stable"
    )
    choices = ordered["name"].astype(str).tolist()
    best = process.extractOne(text, choices, scorer=fuzz.WRatio, processor=utils.default_process)
    if best is None:
        return None
    _, score, index = best
    row = ordered.iloc[index]
    return Match(str(row["dish_key"]), str(row["name"]), round(float(score), 1))


def dish_names(con) -> pd.DataFrame:
    """Every dish name of the published warehouse (dish_key, lang, name, the dish's own language) with the
    dish's gold origins."""
    return con.execute(
        """
        SELECT n.dish_key, n.lang, n.name, d.lang AS dish_lang,
               coalesce((SELECT list(o.country ORDER BY o.position) FROM core.dish_origins o
                         WHERE o.dish_key = n.dish_key), []) AS origins
        FROM core.dish_names n JOIN core.dishes d USING (dish_key) ORDER BY n.dish_key, n.lang, n.name
        """
    ).df()


@dataclass
class ProbeAnswer:
    dish: str
    lang: str
    model: str
    prompt: str
    text: str = ""
    countries: tuple[str, ...] = ()
    status: str = "empty"  # the extractor's status, or `error`
    error: str | None = None
    match: Match | None = None
    gold: tuple[str, ...] = field(default_factory=tuple)
    latency_ms: float | None = None  # from the first request to the model to the answer's end
    stage: str = "answer"  # where a failure happened: load | check | answer


def ask(
    dish: str | None,
    lang: str,
    *,
    backend: str = DEFAULT_BACKEND,
    model: str = DEFAULT_MODEL,
    settings: dict | None = None,
    names: pd.DataFrame | None = None,
    max_tokens: int | None = None,
    on_piece=None,
    engine=None,
    images: tuple[Path, ...] = (),
) -> ProbeAnswer:
    """Stream one answer; a backend failure ends it with `error` set (already scrubbed of keys by
    the backend), never an exception, so a caller prints one line.

    `engine`: a loaded backend to answer with, left open (the dashboard's shared model,
    pipeline/answers/probe_queue.py); without it one is created from `backend`/`model` and closed.
    `images`: photos of the dish (the prompt is then the photo task's)."""
    dish = " ".join((dish or "").split())
    if not dish and not images:
        raise ProbeInputError("the dish name is empty")
    if len(dish) > MAX_DISH_CHARS:
        raise ProbeInputError(f"The dish name is {len(dish)} characters long; at most {MAX_DISH_CHARS} are allowed.")
    prompt = prompt_text(lang, dish or None, has_image=bool(images))
    answer = ProbeAnswer(dish, lang, model, prompt)
    if dish and names is not None and not names.empty:
        answer.match = match_dish(dish, names, lang)
        if answer.match is not None and answer.match.found:
            origins = names.loc[names["dish_key"] == answer.match.dish_key, "origins"].iloc[0]
            answer.gold = tuple(origins)
    owned = engine is None
    if owned:
        engine = create_backend(backend, model, **(settings or {}))
    started = time.perf_counter()
    try:
        if hasattr(engine, "check"):  # a model server: fail fast when it is down
            answer.stage = "check"
            engine.check()
        answer.stage = "answer"
        limit = max_tokens or get_task(task_id(bool(dish), bool(images))).max_tokens
        pieces = []
        for piece in _stream(engine, build_request(prompt, images, limit=limit)):
            pieces.append(piece)
            if on_piece is not None:
                on_piece(piece)
        answer.text = "".join(pieces)
    except BackendError as exc:
        answer.error = str(exc) or type(exc).__name__
        answer.status = "error"
        return answer
    finally:
        answer.latency_ms = (time.perf_counter() - started) * 1000
        if owned:
            engine.close()
    result = extract_countries(answer.text, lang)
    answer.countries, answer.status = tuple(result.countries), result.status
    return answer


def _stream(engine, request: Request) -> Iterator[str]:
    yield from (piece for piece in engine.stream(request) if piece)


def probe_command(
    warehouse: Warehouse,
    dish: str,
    lang: str,
    *,
    backend: str,
    model: str,
    settings: dict,
    max_tokens: int | None,
    as_json: bool,
) -> None:
    """`python -m pipeline probe`: ask, with the published warehouse's dish names when there is one, and print the
    answer, its countries and the dish's gold origins as lines (or one JSON object with `as_json`). A model that
    fails is a `BackendError`, which the command line turns into one error line."""
    names = None
    if warehouse.is_published:
        con = warehouse.reader()
        try:
            names = dish_names(con)
        finally:
            con.close()
    answer = ask(dish, lang, backend=backend, model=model, settings=settings, names=names, max_tokens=max_tokens)
    if answer.error is not None:
        raise BackendError(f"{model}: {answer.error}")
    if as_json:
        match = answer.match if answer.match is not None and answer.match.found else None
        record = {
            "dish": answer.dish,
            "lang": answer.lang,
            "model": answer.model,
            "prompt": answer.prompt,
            "answer": answer.text,
            "countries": list(answer.countries),
            "status": answer.status,
            "matched_dish": match.dish_key if match else None,
            "matched_name": match.matched_name if match else None,
            "gold": list(answer.gold),
        }
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    say("[bold]answer[/] ({}): {}", answer.model, answer.text.strip() or "(empty)", result=True)
    say("[bold]countries named[/]: {}", ", ".join(answer.countries) or f"none ({answer.status})", result=True)
    if answer.match is not None and answer.match.found:
        gold = ", ".join(answer.gold) or "none"
        say("[bold]gold origins[/] of {}: {}", answer.match.matched_name, gold, result=True)
    elif names is None:
        say("[dim]no published warehouse: gold origins unknown (run `python -m pipeline demo`)[/]")
    else:
        say("[dim]no dish in the warehouse matches {}: gold origins unknown[/]", answer.dish)
