"""The replay backend: recorded answers through the generate path, keyed by what was asked (model,
item, prompt language, variant, messages), never by anything that depends on the recording."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from pipeline.backends import BackendError, Message, Request, create_backend
from pipeline.backends.replay import NO_ANSWER, ReplayBackend, asked_key, record_answers
from tests.helpers import query, run_cli

QUESTION = "Откуда родом этот суп?"


def ask(item: str, variant: str = "1", text: str = QUESTION, key: str = "") -> Request:
    return Request(key or f"cache-{item}-{variant}", (Message("user", text),), item_id=item, lang="ru", variant=variant)


def recorded(model: str, item: str, variant: str = "1", text: str = QUESTION) -> str:
    return asked_key(model, item, "ru", variant, [("user", text)])


def test_answers_come_by_the_question_asked_in_request_order() -> None:
    answers = {recorded("gpt", "a"): "Украина", recorded("gpt", "b"): "Россия"}
    backend = create_backend("replay", "recorded-gpt", answers=answers, recorded_model="gpt")
    assert isinstance(backend, ReplayBackend)
    responses = list(backend.generate([ask("b"), ask("a")]))
    assert [(r.key, r.text, r.finish_reason, r.error) for r in responses] == [
        ("cache-b-1", "Россия", "stop", None),
        ("cache-a-1", "Украина", "stop", None),
    ]


def test_another_variant_item_or_wording_is_another_question() -> None:
    backend = create_backend("replay", "gpt", answers={recorded("gpt", "a"): "Польша"})
    same, variant, item, wording = backend.generate(
        [ask("a"), ask("a", variant="2"), ask("z"), ask("a", text="Из какой страны этот суп?")]
    )
    assert same.text == "Польша"
    for missing in (variant, item, wording):
        assert (missing.text, missing.finish_reason, missing.error) == (None, "error", NO_ANSWER)


def test_a_recording_of_what_was_asked_newest_line_wins(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"

    def line(item: str, text: str | None, **more) -> dict:
        asked = {"model": "m", "item_id": item, "lang": "ru", "variant": "1"}
        return {**asked, "messages": [{"role": "user", "text": QUESTION}], "text": text, **more}

    lines = [
        line("a", "Italy"),
        line("b", "Japan", finish_reason="length", tokens_in=20, tokens_out=5),
        line("a", "France"),
        line("c", None),
        {"key": recorded("m", "d"), "text": "Peru"},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    backend = create_backend("replay", "recorded", answers_file=str(path))
    a, b, c, d = backend.generate([ask("a"), ask("b"), ask("c"), ask("d")])
    assert a.text == "France"
    assert (b.text, b.finish_reason, b.tokens_in, b.tokens_out) == ("Japan", "length", 20, 5)
    assert (c.text, c.error) == (None, None)
    assert d.text == "Peru"
    assert list(backend.stream(ask("a"))) == ["France"]
    assert list(backend.stream(ask("nope"))) == []


def test_a_recording_of_several_models_needs_one_picked(tmp_path: Path) -> None:
    path = tmp_path / "two.jsonl"
    rows = [
        {"model": model, "item_id": "a", "lang": "ru", "variant": "1", "messages": [], "text": model}
        for model in ("m1", "m2")
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(BackendError, match=r"2 models \(m1, m2\).*recorded_model"):
        create_backend("replay", str(path))
    [answer] = create_backend("replay", str(path), recorded_model="m2").generate(
        [Request("k", (), item_id="a", lang="ru", variant="1")]
    )
    assert answer.text == "m2"


def test_a_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"key": "a", "text": "x"}) + '\n{"text": "no key"}\n', encoding="utf-8")
    with pytest.raises(BackendError, match=r"bad\.jsonl:2: missing \"key\", or what was asked: model"):
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


def test_the_identity_does_not_depend_on_what_is_recorded() -> None:
    """The old replay hashed the recording into the model identity, so recording an answer changed
    the cache key of the very question it answered."""
    few = create_backend("replay", "m", answers={recorded("m", "a"): "x"})
    more = create_backend("replay", "m", answers={recorded("m", "a"): "x", recorded("m", "b"): "y"})
    assert few.identity() == more.identity()
    assert few.settings() == more.settings()


def test_record_then_generate_with_replay_answers_every_question(
    borsch_warehouse: Path, tiny_text_model: Path, tmp_path: Path
) -> None:
    """End to end through `generate`: a tiny model answers 2 dishes x 5 variants; its answers are
    recorded; `generate --backend replay` on the same task answers all 10 with the same texts."""
    common = ["generate", "--task", "borsch.origin_qa", "--lang", "ru", "--limit", "2", "--max-tokens", "6"]
    run_cli(borsch_warehouse, "--no-publish", *common, "--backend", "transformers", "--model", str(tiny_text_model))
    recording = tmp_path / "recording.jsonl"
    work = borsch_warehouse.with_name("warehouse.work.duckdb")
    con = duckdb.connect(str(work))
    try:
        assert record_answers(con, str(tiny_text_model), recording) == 10
    finally:
        con.close()
    replayed = run_cli(borsch_warehouse, *common, "--backend", "replay", "--model", str(recording))
    assert "10 answers (0 cached, 0 failed)" in replayed.stderr
    pairs = query(
        borsch_warehouse,
        """SELECT count(*), count(*) FILTER (WHERE live.response = replay.response)
           FROM core.generations live JOIN core.generations replay USING (item_id, lang, variant)
           WHERE live.model_id = ? AND replay.model_id = ?""",
        [str(tiny_text_model), str(recording)],
    )
    assert pairs == [(10, 10)]
    again = run_cli(borsch_warehouse, *common, "--backend", "replay", "--model", str(recording))
    assert "0 answers (10 cached, 0 failed)" in again.stderr
