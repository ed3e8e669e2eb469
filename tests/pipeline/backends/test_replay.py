"""The replay backend: recorded answers through the generate path, keyed by Request.key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.backends import BackendError, Message, Request, create_backend
from pipeline.backends.replay import NO_ANSWER, ReplayBackend


def request(key: str) -> Request:
    return Request(key, (Message("user", "Откуда родом этот суп?"),))


def test_answers_from_a_dict() -> None:
    backend = create_backend("replay", "recorded-gpt", answers={"a": "Украина", "b": "Россия"})
    assert isinstance(backend, ReplayBackend)
    responses = list(backend.generate([request("b"), request("a")]))
    assert [(r.key, r.text, r.finish_reason, r.error) for r in responses] == [
        ("b", "Россия", "stop", None),
        ("a", "Украина", "stop", None),
    ]


def test_a_missing_key_is_a_failed_response_not_an_exception() -> None:
    backend = create_backend("replay", "recorded", answers={"a": "Польша"})
    [missing, found] = backend.generate([request("zzz"), request("a")])
    assert (missing.key, missing.text, missing.finish_reason, missing.error) == ("zzz", None, "error", NO_ANSWER)
    assert found.text == "Польша"


def test_answers_from_a_jsonl_file_newest_line_wins(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    lines = [
        {"key": "a", "text": "Italy"},
        {"key": "b", "text": "Japan", "finish_reason": "length", "tokens_in": 20, "tokens_out": 5},
        {"key": "a", "text": "France"},
        {"key": "c", "text": None},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    backend = create_backend("replay", "recorded", answers_file=str(path))
    a, b, c = backend.generate([request("a"), request("b"), request("c")])
    assert a.text == "France"
    assert (b.text, b.finish_reason, b.tokens_in, b.tokens_out) == ("Japan", "length", 20, 5)
    assert (c.text, c.error) == (None, None)
    assert list(backend.stream(request("a"))) == ["France"]
    assert list(backend.stream(request("nope"))) == []


def test_the_model_name_can_be_the_answer_file(tmp_path: Path) -> None:
    path = tmp_path / "task.jsonl"
    path.write_text('{"key": "k", "text": "Georgia"}\n', encoding="utf-8")
    [response] = create_backend("replay", str(path)).generate([request("k")])
    assert response.text == "Georgia"


def test_a_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"key": "a", "text": "x"}\n{"text": "no key"}\n', encoding="utf-8")
    with pytest.raises(BackendError, match=r"bad\.jsonl:2: missing \"key\""):
        create_backend("replay", "m", answers_file=path)
    path.write_text('{"key": "a", "text": 5}\n', encoding="utf-8")
    with pytest.raises(BackendError, match=r"bad\.jsonl:1: \"text\" must be a string or null"):
        create_backend("replay", "m", answers_file=path)
    path.write_text("not json\n", encoding="utf-8")
    with pytest.raises(BackendError, match=r"bad\.jsonl:1: not valid JSON"):
        create_backend("replay", "m", answers_file=path)


def test_no_recording_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="replay needs recorded answers"):
        create_backend("replay", "some-model")
    with pytest.raises(BackendError, match="cannot be read"):
        create_backend("replay", "m", answers_file=tmp_path / "absent.jsonl")


def test_a_different_recording_is_a_different_identity() -> None:
    first = create_backend("replay", "m", answers={"a": "x"}).identity()
    same = create_backend("replay", "m", answers={"a": "x"}).identity()
    other = create_backend("replay", "m", answers={"a": "y"}).identity()
    assert first == same
    assert first.weights_hash != other.weights_hash
    assert first.model_id == "m"
