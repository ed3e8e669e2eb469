"""Recorded answers served through the generate path: re-running the pipeline without a model.

Two ways answers produced elsewhere reach the warehouse:
- `python -m pipeline import-responses task2_oe_MODEL.jsonl` (pipeline/responses.py) loads
  WorldCuisines answer files straight into core.generations, one transaction per file; that is how
  the published WorldCuisines predictions are replayed into the warehouse.
- this backend answers `Request`s from a table of recorded answers keyed by `Request.key` (the
  generation's cache key), so any task can run end to end (build requests, "generate", parse,
  score) exactly as with a live model, e.g. to re-score old outputs or to test the pipeline.

Answers come from `answers={key: text}` or from a JSONL file (`answers_file=`, or the model name
itself when it is a path to one), one `{"key": ..., "text": ...}` object per line; a line may also
carry `finish_reason`, `tokens_in` and `tokens_out`. A later line for the same key wins, so a file
that a re-run appended to serves its newest answers. A key with no recorded answer yields a
Response with error "no recorded answer".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.backends.base import BackendError, ModelIdentity, Request, Response, register

NO_ANSWER = "no recorded answer"


@dataclass(frozen=True)
class Recorded:
    text: str | None
    finish_reason: str | None = "stop"
    tokens_in: int | None = None
    tokens_out: int | None = None


def parse_answer_line(line: str) -> tuple[str, Recorded] | str:
    """One JSONL line as (key, answer), or the reason it is malformed."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    key, text = record.get("key"), record.get("text")
    if not isinstance(key, str) or not key:
        return 'missing "key" (a non-empty string)'
    if text is not None and not isinstance(text, str):
        return f'"text" must be a string or null, got {type(text).__name__}'
    counts = {name: record.get(name) for name in ("tokens_in", "tokens_out")}
    for name, value in counts.items():
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            return f'"{name}" must be an integer or null'
    reason = record.get("finish_reason", "stop")
    return key, Recorded(text, reason, counts["tokens_in"], counts["tokens_out"])


def load_answers(path: Path) -> dict[str, Recorded]:
    """All answers in a JSONL file; a malformed line stops the load with FILE:LINE and the reason."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BackendError(f"recorded answers {path} cannot be read: {exc.strerror or exc}") from exc
    answers: dict[str, Recorded] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parsed = parse_answer_line(line)
        if isinstance(parsed, str):
            raise BackendError(f"{path}:{number}: {parsed}")
        key, recorded = parsed
        answers[key] = recorded
    return answers


def answers_digest(answers: Mapping[str, Recorded]) -> str:
    """Content hash of the answer table: a different recording is a different 'model' in cache keys."""
    digest = hashlib.sha256()
    for key in sorted(answers):
        digest.update(json.dumps([key, answers[key].text], ensure_ascii=False).encode())
    return digest.hexdigest()[:16]


@register("replay")
class ReplayBackend:
    """Answers from a recording instead of a model."""

    def __init__(
        self, model: str, answers: Mapping[str, str | None] | None = None, answers_file: str | Path | None = None
    ) -> None:
        self.model = model
        if answers is not None and answers_file is not None:
            raise BackendError("replay: pass answers= or answers_file=, not both")
        if answers is not None:
            self.answers = {str(key): Recorded(text) for key, text in answers.items()}
        elif answers_file is not None:
            self.answers = load_answers(Path(answers_file))
        elif Path(model).is_file():
            self.answers = load_answers(Path(model))
        else:
            raise BackendError(
                "replay needs recorded answers: answers={key: text}, answers_file=, "
                f"or a JSONL path as the model (got {model!r})"
            )
        self._digest = answers_digest(self.answers)

    def identity(self) -> ModelIdentity:
        return ModelIdentity(model_id=self.model, weights_hash=self._digest)

    def settings(self) -> dict:
        return {}

    def answer(self, request: Request) -> Response:
        recorded = self.answers.get(request.key)
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
