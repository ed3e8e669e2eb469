"""Recorded answers served through the generate path: re-running the pipeline without a model.

Two ways answers produced elsewhere reach the warehouse:
- `python -m pipeline import-responses task2_oe_MODEL.jsonl` (pipeline/answers/responses.py) loads
  WorldCuisines answer files straight into core.generations, one transaction per file; that is how
  the published WorldCuisines predictions are replayed into the warehouse.
- this backend answers a task's requests from a recording, keyed by **what was asked**: the
  recorded model, the item, the prompt language, the prompt variant and the messages' text
  (`asked_key`). The key does not depend on the recording itself, so recording more answers never
  changes which question an answer belongs to, and `generate --backend replay` answers exactly the
  questions a recorded run asked (`record_answers` writes such a recording from the warehouse).

A recording is a JSONL file (`answers_file=`, or the model name itself when it is a path to one),
one object per line: either what was asked — `{"model", "item_id", "lang", "variant", "messages":
[{"role", "text"}…], "text"}` — or a precomputed `{"key": asked_key(...), "text"}`; a line may also
carry `finish_reason`, `tokens_in` and `tokens_out`. A later line for the same question wins, so a
file that a re-run appended to serves its newest answers. The recorded model is the one the lines
name (`--setting recorded_model=NAME` picks one when a file holds several); a question with no
recorded answer yields a Response with error "no recorded answer".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipeline.backends.base import BackendError, Message, ModelIdentity, Request, Response, register

NO_ANSWER = "no recorded answer"


def asked_key(model: str, item_id: str, lang: str, variant: str, messages: Sequence[tuple[str, str]]) -> str:
    """What was asked, as one key: the model, the item, the prompt language and variant, and the
    (role, text) of every message (the item stands for its images)."""
    payload = [model, item_id, lang, variant, [[role, text] for role, text in messages]]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:32]


def request_key(model: str, request: Request) -> str:
    return asked_key(model, request.item_id, request.lang, request.variant, _pairs(request.messages))


def _pairs(messages: Sequence[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages]


@dataclass(frozen=True)
class Recorded:
    text: str | None
    finish_reason: str | None = "stop"
    tokens_in: int | None = None
    tokens_out: int | None = None


def parse_answer_line(line: str) -> tuple[str, str | None, Recorded] | str:
    """One JSONL line as (key, recorded model or None, answer), or the reason it is malformed."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    text, model = record.get("text"), None
    if "key" in record:
        key = record["key"]
        if not isinstance(key, str) or not key:
            return '"key" must be a non-empty string'
    else:
        asked = _asked(record)
        if isinstance(asked, str):
            return asked
        key, model = asked
    if text is not None and not isinstance(text, str):
        return f'"text" must be a string or null, got {type(text).__name__}'
    counts = {name: record.get(name) for name in ("tokens_in", "tokens_out")}
    for name, value in counts.items():
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            return f'"{name}" must be an integer or null'
    reason = record.get("finish_reason", "stop")
    return key, model, Recorded(text, reason, counts["tokens_in"], counts["tokens_out"])


ASKED_FIELDS = ("model", "item_id", "lang", "variant")


def _asked(record: dict) -> tuple[str, str] | str:
    """(asked_key, model) of a line that says what was asked, or what is missing."""
    missing = [name for name in ASKED_FIELDS if not isinstance(record.get(name), str) or not record[name]]
    messages = record.get("messages")
    if missing:
        return f'missing "key", or what was asked: {", ".join(missing)} (non-empty strings)'
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("text"), str) for m in messages
    ):
        return '"messages" must be a list of {"role": ..., "text": ...} objects'
    pairs = [(m["role"], m["text"]) for m in messages]
    return asked_key(record["model"], record["item_id"], record["lang"], record["variant"], pairs), record["model"]


def load_answers(path: Path) -> tuple[dict[str, Recorded], set[str]]:
    """All answers in a JSONL file and the models they name; a malformed line stops the load with
    FILE:LINE and the reason."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BackendError(f"recorded answers {path} cannot be read: {exc.strerror or exc}") from exc
    answers: dict[str, Recorded] = {}
    models: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parsed = parse_answer_line(line)
        if isinstance(parsed, str):
            raise BackendError(f"{path}:{number}: {parsed}")
        key, model, recorded = parsed
        answers[key] = recorded
        if model is not None:
            models.add(model)
    return answers, models


def record_answers(con: duckdb.DuckDBPyConnection, model_id: str, path: Path) -> int:
    """Write every stored answer of `model_id` as a recording (what was asked + the answer), the
    file `generate --backend replay --model PATH` answers from. Returns the number of answers."""
    rows = con.execute(
        "SELECT item_id, lang, variant, messages, response, finish_reason, tokens_in, tokens_out "
        "FROM core.generations WHERE model_id = ? ORDER BY created_at, generation_id",
        [model_id],
    ).fetchall()
    with open(path, "w", encoding="utf-8") as out:
        for item_id, lang, variant, messages, text, finish_reason, tokens_in, tokens_out in rows:
            asked = [{"role": m["role"], "text": m["text"]} for m in json.loads(messages or "[]")]
            line = {
                "model": model_id,
                "item_id": item_id,
                "lang": lang,
                "variant": variant,
                "messages": asked,
                "text": text,
                "finish_reason": finish_reason,
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
            }
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(rows)


@register("replay")
class ReplayBackend:
    """Answers from a recording instead of a model."""

    def __init__(
        self,
        model: str,
        answers: Mapping[str, str | None] | None = None,
        answers_file: str | Path | None = None,
        recorded_model: str | None = None,
    ) -> None:
        """`answers` maps `asked_key(...)` to the text; `recorded_model` is the model whose questions
        are answered (default: the one the recording names, else `model`)."""
        self.model = model
        models: set[str] = set()
        if answers is not None and answers_file is not None:
            raise BackendError("replay: pass answers= or answers_file=, not both")
        if answers is not None:
            self.answers = {str(key): Recorded(text) for key, text in answers.items()}
        elif answers_file is not None:
            self.answers, models = load_answers(Path(answers_file))
        elif Path(model).is_file():
            self.answers, models = load_answers(Path(model))
        else:
            raise BackendError(
                "replay needs recorded answers: answers={asked_key: text}, answers_file=, "
                f"or a JSONL path as the model (got {model!r})"
            )
        if recorded_model is None and len(models) > 1:
            raise BackendError(
                f"replay: the recording holds answers of {len(models)} models ({', '.join(sorted(models))}): "
                "pick one with --setting recorded_model=NAME"
            )
        self.recorded_model = recorded_model or (next(iter(models)) if models else model)

    def identity(self) -> ModelIdentity:
        """The recording's name; no weights hash, so the cache key of a question never depends on
        which answers happen to be recorded."""
        return ModelIdentity(model_id=self.model)

    def settings(self) -> dict:
        return {"recorded_model": self.recorded_model}

    def answer(self, request: Request) -> Response:
        recorded = self.answers.get(request_key(self.recorded_model, request))
        if recorded is None:
            return Response(request.key, None, "error", error=NO_ANSWER)
        return Response(
            request.key, recorded.text, recorded.finish_reason, recorded.tokens_in, recorded.tokens_out, latency_ms=0.0
        )

    def generate(self, requests: Sequence[Request]) -> Iterator[Response]:
        for request in requests:
            yield self.answer(request)

    def stream(self, request: Request) -> Iterator[str]:
        """The recorded answer in one piece; nothing when there is none."""
        text = self.answer(request).text
        if text:
            yield text

    def close(self) -> None:
        pass
