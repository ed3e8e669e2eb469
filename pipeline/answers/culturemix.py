"""CultureMix answers: importing answers produced elsewhere, and reading the food name out of each.

Import (`import-responses --format culturemix FILE…`): JSON lines
`{"model", "image", "prompt", "response"}` where `image` is the path as written in the dataset's
table and `prompt` is `base`, `direct` or `cot`; an optional `sample` (0, 1, 2, ...; 0 when absent)
numbers repeated samples of the same question, which the paper's entropy is computed over (§4:
"entropy for prediction confidence and consistency"; marts/culturemix.py). A bad line stops the
file with FILE:LINE and the reason (or, with --skip-bad-lines, is recorded and left out); one file is
one transaction; the same bytes imported again are a no-op.

Food parsing (the culturemix parse step, after the shared countries extraction): the food is the
longest known dish name (WorldCuisines English names and the dataset's own food names) that occurs
in the answer as whole words, preferring the phrase after "Food:" when the answer has one; failing
that, the leading noun phrase ("This is X, a …") matched to the closest known name when similar
enough. Reads core.generations of culturemix tasks; writes only core.culturemix_food_parses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.answers.formats import IMPORTERS
from pipeline.answers.responses import generation_id
from pipeline.answers.store import IMPORTED_GENERATION_SCHEMA, register_imported_model, store_answers
from pipeline.core import limits
from pipeline.core.errors import DataError
from pipeline.core.output import say
from pipeline.core.run_settings import Options
from pipeline.core.text import norm_name
from pipeline.datasets.common import Quirk, already_loaded, record_quirks, record_source, sha256_files
from pipeline.datasets.culturemix import TASK_OF
from pipeline.score.culturemix import food_similarity, words
from warehouse.io import insert, transaction

PARSER = "culturemix_food@1"
PROMPTS = ("base", "direct", "cot")
IMPORT_KIND = "culturemix_responses"
MATCH_THRESHOLD = 85  # rapidfuzz ratio for reading a leading phrase as a known name

_LABELLED = re.compile(r"\bfood\s*(?:name)?\s*[:：]\s*\**\s*(?P<name>[^\n.;*]+)", re.IGNORECASE)
_LEAD = re.compile(
    r"^\s*(?:the\s+(?:name\s+of\s+the\s+)?(?:left\s+)?(?:food|dish)(?:\s+in\s+the\s+red\s+bounding\s+box)?\s+"
    r"(?:is|appears\s+to\s+be|looks\s+like)|this\s+(?:is|looks\s+like|appears\s+to\s+be)|it\s+is|it's|"
    r"(?:this|the)\s+(?:food|dish)\s+is)?\s*(?:an?\s+|the\s+)?",
    re.IGNORECASE,
)
_PHRASE_END = re.compile(r"[,.;:()\n—–!?]| - | from | which | associated | originat| is a | is an | and it ")


@dataclass(frozen=True)
class FoodParse:
    food_text: str | None  # the phrase read as the food name
    food_name: str | None  # the known name it matches, if any
    similarity: float | None


def food_phrase(response: str | None) -> str | None:
    """The phrase an answer gives as the food's name: after "Food:", else the leading phrase."""
    if not response or not response.strip():
        return None
    labelled = _LABELLED.findall(response)
    if labelled:
        return labelled[-1].strip() or None  # chain of thought: the final "Food:" line counts
    first = response.strip().splitlines()[0]
    lead = _LEAD.sub("", first, count=1)
    phrase = _PHRASE_END.split(lead, maxsplit=1)[0].strip(" *\"'")
    return phrase or None


@dataclass(frozen=True)
class KnownNames:
    """Known dish names (longest first) with the forms a parse compares, computed once per run: every answer is
    compared with every name, and computing each name's forms per answer cost 80 ms an answer on the demo's names
    (29 of 30 CPU-s of its 360 CultureMix answers in a rescore)."""

    names: list[str]
    words: list[str]  # words(name): the whole-word search form
    normed: list[str]  # norm_name(name): what the fuzzy match compares

    @classmethod
    def of(cls, names: list[str]) -> KnownNames:
        return cls(list(names), [words(name) for name in names], [norm_name(name) for name in names])


def parse_food(response: str | None, names: list[str] | KnownNames) -> FoodParse:
    """The food of an answer, against `names` (known dish names, longest first)."""
    from rapidfuzz import fuzz, process

    known = names if isinstance(names, KnownNames) else KnownNames.of(names)
    phrase = food_phrase(response)
    for text in (phrase, response):
        if not text:
            continue
        haystack = words(text)
        for name, name_words in zip(known.names, known.words, strict=True):
            if name_words in haystack:
                return FoodParse(phrase or name, name, 1.0)
    if phrase and known.names:
        # the names' norm_name forms made once; the phrase normalised twice, as `processor=norm_name` did to it
        best = process.extractOne(norm_name(norm_name(phrase)), known.normed, scorer=fuzz.ratio, processor=None)
        if best is not None and best[1] >= MATCH_THRESHOLD:
            return FoodParse(phrase, known.names[best[2]], best[1] / 100)
    return FoodParse(phrase, None, None)


def known_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """WorldCuisines English names and CultureMix food names, longest first (most specific wins)."""
    rows = con.execute(
        """
        SELECT DISTINCT name FROM (
            SELECT n.name FROM core.dish_names n JOIN core.dishes d USING (dish_key)
            WHERE d.dataset IN ('worldcuisines', 'culturemix') AND n.lang = 'en'
            UNION ALL SELECT distractor_food_name FROM core.culturemix_images WHERE distractor_food_name IS NOT NULL
        ) WHERE length(trim(name)) >= 3
        """
    ).fetchall()
    return sorted((row[0] for row in rows), key=lambda n: (-len(n), n))


def parse_answers(con: duckdb.DuckDBPyConnection, reparse: bool = False) -> int:
    """Parse the food of every culturemix answer not parsed yet (or all, with `reparse`)."""
    stale = (
        ""
        if reparse
        else (
            "AND NOT EXISTS (SELECT 1 FROM core.culturemix_food_parses p WHERE p.generation_id = g.generation_id "
            "AND p.parser = ? AND p.parsed_at >= g.created_at)"
        )
    )
    rows = con.execute(
        f"""
        SELECT g.generation_id, g.response, c.target_food_name
        FROM core.generations g JOIN core.items i USING (item_id)
        JOIN core.culturemix_images c ON c.image = i.source_ref
        WHERE i.task_id LIKE 'culturemix.%' {stale}
        """,
        [] if reparse else [PARSER],
    ).fetchall()
    if not rows:
        return 0
    names = KnownNames.of(known_names(con))
    now = datetime.now(UTC).replace(tzinfo=None)
    out = []
    for answer_id, response, target in rows:
        parsed = parse_food(response, names)
        target_similarity = max(
            food_similarity(parsed.food_name or parsed.food_text, target), food_similarity(response, target)
        )
        out.append(
            {
                "generation_id": answer_id,
                "parser": PARSER,
                "food_text": parsed.food_text,
                "food_name": parsed.food_name,
                "food_dish_key": None,
                "similarity": parsed.similarity,
                "target_similarity": target_similarity if response else 0.0,
                "parsed_at": now,
            }
        )
    frame = pl.DataFrame(out, schema=_PARSE_SCHEMA)
    with transaction(con):
        con.execute(
            "DELETE FROM core.culturemix_food_parses WHERE generation_id IN (SELECT unnest(?))",
            [[r["generation_id"] for r in out]],
        )
        insert(con, "core.culturemix_food_parses", frame)
    return len(out)


_PARSE_SCHEMA = {
    "generation_id": pl.String,
    "parser": pl.String,
    "food_text": pl.String,
    "food_name": pl.String,
    "food_dish_key": pl.String,
    "similarity": pl.Float64,
    "target_similarity": pl.Float64,
    "parsed_at": pl.Datetime("us"),
}


# --- import ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    line_number: int
    model: str
    image: str
    prompt: str
    response: str | None
    sample: int = 0  # the repeated sample's number (the same question asked again, §4's entropy)


@dataclass
class FileImport:
    path: Path
    model: str = "culturemix"
    skipped: bool = False
    accepted: list[Answer] = field(default_factory=list)
    quirks: list[Quirk] = field(default_factory=list)

    @property
    def rejected(self) -> list[Quirk]:
        return [q for q in self.quirks if q.severity == "rejected"]


def parse_line(text: str, items: dict[str, str]) -> Answer | str:
    """An answer, or why the line is malformed. `items`: image path -> item_id."""
    try:
        record = json.loads(text)
    except RecursionError:
        return "not valid JSON (nested too deeply)"
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        return f"not readable JSON ({exc})"
    if limits.not_text(text, record):
        return limits.not_text(text, record)
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    for key in ("model", "image", "prompt"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            return f"{key} must be a non-empty string, got {record.get(key)!r}"
    if record["prompt"] not in PROMPTS:
        return f"prompt must be one of {', '.join(PROMPTS)}, got {record['prompt']!r}"
    response = record.get("response")
    if response is not None and not isinstance(response, str):
        return f"response must be text or null, got a JSON {type(response).__name__}"
    sample = record.get("sample", 0)
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        return f"sample must be a whole number from 0, got {sample!r}"
    image = record["image"].strip()
    if image not in items:
        return f"image {image!r} is not a CultureMix image of the warehouse (paths as in the dataset's table)"
    return Answer(0, record["model"].strip(), image, record["prompt"], response, sample)


def import_file(con: duckdb.DuckDBPyConnection, path: Path, run_id: str, skip_bad_lines: bool = False) -> FileImport:
    if not path.is_file():
        raise DataError(path, "file not found")
    sha = sha256_files([path])
    if already_loaded(con, sha, IMPORT_KIND, scope=sha):
        return FileImport(path, skipped=True)
    items = dict(con.execute("SELECT source_ref, item_id FROM core.items WHERE task_id LIKE 'culturemix.%'").fetchall())
    if not items:
        raise DataError(path, "no CultureMix images in the warehouse: run `python -m pipeline ingest culturemix` first")
    result = FileImport(path)
    seen: dict[tuple[str, str, str, int], int] = {}
    try:
        with open(path, "rb") as handle:  # a line over the cap is refused, not read whole
            lines = [line.decode("utf-8").rstrip("\r\n") for line in limits.lines(handle)]
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start + 1} of a line)") from exc
    except limits.LimitExceeded as exc:
        raise DataError(path, str(exc), line=exc.line) from exc
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        parsed = parse_line(text, items)
        if isinstance(parsed, Answer):
            key = (parsed.model, parsed.image, parsed.prompt, parsed.sample)
            if key in seen:
                parsed = (
                    f"second answer of {key[0]} for {key[1]} with prompt {key[2]} and sample {key[3]} "
                    f"(first on line {seen[key]})"
                )
            else:
                seen[key] = number
                parsed = Answer(number, *key[:3], parsed.response, parsed.sample)
        if isinstance(parsed, str):
            if not skip_bad_lines:
                raise DataError(path, parsed + " (use --skip-bad-lines to import the other lines)", line=number)
            result.quirks.append(Quirk("culturemix", path.name, number, "bad_line", parsed, "rejected", text))
            continue
        result.accepted.append(parsed)
    models = sorted({a.model for a in result.accepted})
    result.model = ", ".join(models)
    now = datetime.now(UTC).replace(tzinfo=None)
    rows = [
        {
            # the prompt is its variant; each repeated sample its own answer
            "generation_id": generation_id(a.model, items[a.image], "en", a.prompt, a.sample),
            "run_id": f"{run_id}:{a.model}",
            "model_id": a.model,
            "item_id": items[a.image],
            "lang": "en",
            "variant": a.prompt,
            "response": a.response,
            "origin": "import",
            "created_at": now,
            "sample": a.sample,
        }
        for a in result.accepted
    ]
    with transaction(con):
        for model in models:
            register_imported_model(con, model)
            n = sum(1 for a in result.accepted if a.model == model)
            con.execute(
                "INSERT OR REPLACE INTO core.generation_runs (run_id, model_id, task_id, backend, settings, "
                "n_requested, n_generated, n_skipped, n_failed, started_at, finished_at) "
                "VALUES (?, ?, 'culturemix', 'replay', ?, ?, ?, 0, 0, ?, ?)",
                [f"{run_id}:{model}", model, json.dumps({"file": str(path), "sha256": sha}), n, n, now, now],
            )
        store_answers(con, pl.DataFrame(rows, schema=IMPORTED_GENERATION_SCHEMA | {"sample": pl.Int32}))
        record_quirks(con, result.quirks, run_id, replace_files=[path.name])
        record_source(
            con,
            sha256=sha,
            kind=IMPORT_KIND,
            path=path,
            rows_loaded=len(rows),
            rows_rejected=len(result.rejected),
            run_id=run_id,
            scope=sha,
        )
    return result


def import_files(con: duckdb.DuckDBPyConnection, files: tuple[Path, ...], run_id: str, skip_bad_lines: bool) -> int:
    """Import each file (one transaction each), saying what each one brought; returns how many were new."""
    imported = 0
    for path in files:
        result = import_file(con, path, run_id, skip_bad_lines=skip_bad_lines)
        if result.skipped:
            say("[dim]{}: already imported[/]", path.name)
            continue
        imported += 1
        rejected = f", [yellow]{len(result.rejected)} lines rejected[/]" if result.rejected else ""
        say("imported {}: {} answers of {}" + rejected, path.name, len(result.accepted), result.model)
    return imported


SUBTASK_OF_TASK = {task: subtask for subtask, task in TASK_OF.items()}


@IMPORTERS.register("culturemix")
def import_answers(con: duckdb.DuckDBPyConnection, options: Options, run_id: str, failures: list) -> None:
    """`import-responses --format culturemix` (pipeline/answers/formats.py)."""
    import_files(con, options.responses, run_id, options.skip_bad_lines)
