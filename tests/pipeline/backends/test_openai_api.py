"""The `openai` backend against a real OpenAI-compatible server on 127.0.0.1 (tests.local_server).

Every server here is real HTTP on a free loopback port; faults (error statuses, slow answers, a closed
port) are injected by the server, not mocked in the client. Waits are in hundredths of a second.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest

from pipeline.backends import BackendError, Message, Request, create_backend
from pipeline.backends.openai_api import OpenAIBackend, chat_payload, image_data_url, parse_completion
from tests.local_server import (
    LocalServer,
    backend_responder,
    decode_data_url,
    message_text,
    serve,
    split_pieces,
)

KEY_ENV = "DISH_ATLAS_TEST_KEY"
SECRET = "sk-test-7f3a9c-never-shown"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def echo(messages: list[dict], max_tokens: int) -> str:
    """The served 'model': repeats the last message's text."""
    return f"you said {message_text(messages[-1])}"


def ask(key: str, text: str, images: tuple[Path, ...] = (), max_tokens: int = 16) -> Request:
    return Request(key, (Message("user", text, images),), max_tokens)


def backend(url: str, **settings) -> OpenAIBackend:
    return OpenAIBackend("local", base_url=url, **{"timeout": 5.0, **settings})


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- building requests and reading answers -----------------------------------------------------


def test_a_text_message_is_sent_as_plain_content_with_greedy_decoding():
    body = chat_payload("m", ask("k", "Which country?", max_tokens=7), temperature=0.0)
    assert body == {
        "model": "m",
        "messages": [{"role": "user", "content": "Which country?"}],
        "max_tokens": 7,
        "temperature": 0.0,
        "stream": False,
    }


def test_a_tasks_temperature_wins_over_the_backends():
    request = ask("k", "Which country?", max_tokens=300)
    sampled = Request(request.key, request.messages, request.max_tokens, temperature=1.0)  # ZNO-Vision §4
    assert chat_payload("m", sampled, temperature=0.0)["temperature"] == 1.0
    greedy = Request(request.key, request.messages, request.max_tokens, temperature=0.0)
    assert chat_payload("m", greedy, temperature=0.7)["temperature"] == 0.0


def test_images_are_sent_first_as_data_urls_with_the_files_mime_type(tmp_path: Path):
    photo = tmp_path / "borscht.png"
    photo.write_bytes(PNG)
    no_suffix = tmp_path / "photo"
    no_suffix.write_bytes(PNG)
    (message,) = chat_payload("m", ask("k", "Which country?", (photo,)), 0.0)["messages"]
    assert [part["type"] for part in message["content"]] == ["image_url", "text"]
    assert message["content"][0]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert image_data_url(no_suffix).startswith("data:image/png;base64,")  # sniffed from the bytes


def test_a_file_that_is_not_an_image_is_refused(tmp_path: Path):
    text = tmp_path / "notes"
    text.write_text("not an image")
    with pytest.raises(ValueError, match="not a recognised image"):
        image_data_url(text)


def test_an_answer_is_read_with_its_token_counts_and_finish_reason():
    payload = {
        "choices": [{"message": {"role": "assistant", "content": "Ukraine"}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3},
    }
    response = parse_completion("k", payload, 5.0)
    assert (response.text, response.finish_reason, response.tokens_in, response.tokens_out) == (
        "Ukraine",
        "length",
        12,
        3,
    )
    assert response.error is None
    assert parse_completion("k", {"choices": []}).error.startswith("server answered without choices")


def test_the_server_streams_pieces_that_join_back_to_the_answer():
    assert list(split_pieces("the dish is  borscht")) == ["the", " dish", " is", "  borscht"]
    assert decode_data_url("data:image/png;base64," + base64.b64encode(PNG).decode()) == ("image/png", PNG)


# --- against a real server -----------------------------------------------------------------------


def test_the_backend_is_registered_under_openai_and_settings_hold_only_what_changes_answers():
    made = create_backend("openai", "qwen", base_url="http://127.0.0.1:1/v1")
    assert isinstance(made, OpenAIBackend)
    assert made.settings() == {"temperature": 0.0}


def test_a_batch_of_ten_is_answered_with_at_most_three_requests_in_flight():
    in_flight, peak, lock = 0, 0, threading.Lock()

    def slow_echo(messages: list[dict], max_tokens: int) -> str:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.05)
        with lock:
            in_flight -= 1
        return echo(messages, max_tokens)

    with serve(slow_echo) as url:
        responses = list(backend(url, concurrency=3).generate([ask(f"k{i}", f"dish {i}") for i in range(10)]))
    assert sorted(r.key for r in responses) == sorted(f"k{i}" for i in range(10))
    assert all(r.error is None and r.text == f"you said dish {r.key[1:]}" for r in responses)
    assert all(r.finish_reason == "stop" and r.tokens_out == 4 and r.latency_ms > 0 for r in responses)
    assert 2 <= peak <= 3


def test_a_503_is_retried_and_the_success_after_it_is_the_response():
    with LocalServer(echo, faults=["503", "503"]) as server:
        (response,) = backend(server.url).generate([ask("k", "borscht")])
        assert len(server.chat_requests) == 3
    assert response.error is None
    assert response.text == "you said borscht"


def test_a_server_that_keeps_failing_gives_an_error_after_the_last_try():
    with LocalServer(echo, faults=["503"] * 3) as server:
        (response,) = backend(server.url, max_retries=3).generate([ask("k", "borscht")])
        assert len(server.chat_requests) == 3
    assert response.text is None and response.finish_reason == "error"
    assert "returned 503" in response.error and "after 3 tries" in response.error


def test_retry_after_is_honoured():
    with LocalServer(echo, faults=[429], retry_after="0.3") as server:
        started = time.monotonic()
        (response,) = backend(server.url).generate([ask("k", "borscht")])
    assert response.text == "you said borscht"
    assert time.monotonic() - started >= 0.3


def test_a_server_asking_to_wait_longer_than_two_minutes_is_not_waited_for():
    with LocalServer(echo, faults=[429], retry_after="600") as server:
        started = time.monotonic()
        (response,) = backend(server.url).generate([ask("k", "borscht")])
        assert len(server.chat_requests) == 1
    assert "returned 429" in response.error
    assert time.monotonic() - started < 2


def test_a_client_error_is_not_retried():
    with LocalServer(echo, faults=["400"]) as server:
        (response,) = backend(server.url).generate([ask("k", "borscht")])
        assert len(server.chat_requests) == 1
    assert "returned 400" in response.error


def test_a_dropped_connection_is_retried():
    with LocalServer(echo, faults=["disconnect"]) as server:
        (response,) = backend(server.url).generate([ask("k", "borscht")])
        assert len(server.chat_requests) == 2
    assert response.text == "you said borscht"


def test_a_slow_server_times_out_in_bounded_time():
    with serve(echo, delay_s=1.5) as url:
        started = time.monotonic()
        (response,) = backend(url, timeout=0.3, max_retries=1).generate([ask("k", "borscht")])
        elapsed = time.monotonic() - started
    assert response.text is None
    assert "timeout" in response.error
    assert elapsed < 1.2


def test_a_server_that_is_down_fails_the_check_fast_and_every_request_without_hanging():
    down = OpenAIBackend("local", base_url=f"http://127.0.0.1:{closed_port()}/v1", max_retries=3)
    started = time.monotonic()
    with pytest.raises(BackendError, match=re.escape("cannot reach the model server at http://127.0.0.1")):
        down.check()
    responses = list(down.generate([ask(f"k{i}", "borscht") for i in range(20)]))
    assert time.monotonic() - started < 5
    assert len(responses) == 20
    assert all(r.text is None and "cannot reach the model server" in r.error for r in responses)
    assert down.identity().model_id == "local" and down.identity().revision is None


def test_the_check_passes_for_a_served_model_and_names_what_is_served_otherwise():
    with serve(echo, model_name="qwen-7b") as url:
        OpenAIBackend("qwen-7b", base_url=url).check()
        with pytest.raises(BackendError, match="does not serve 'llama'; it serves: qwen-7b"):
            OpenAIBackend("llama", base_url=url).check()


def test_the_api_key_comes_from_the_environment_and_is_never_shown(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with LocalServer(echo, api_key=SECRET) as server:
        client = backend(server.url, api_key_env=KEY_ENV)
        client.check()
        (response,) = client.generate([ask("k", "borscht")])
        assert response.text == "you said borscht"
        assert server.chat_requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert (
        SECRET not in repr(client) and SECRET not in json.dumps(client.settings()) and SECRET not in str(vars(client))
    )

    errors = []
    with LocalServer(echo, api_key="another-key") as server:
        refused = backend(server.url, api_key_env=KEY_ENV)
        with pytest.raises(BackendError, match="refused the API key") as raised:
            refused.check()
        errors.append(str(raised.value))
        errors += [r.error for r in refused.generate([ask("k", "borscht")])]
    down = backend(f"http://127.0.0.1:{closed_port()}/v1", api_key_env=KEY_ENV, max_retries=1)
    errors += [r.error for r in down.generate([ask("k", "borscht")])]
    with pytest.raises(BackendError) as raised:
        list(down.stream(ask("k", "borscht")))
    errors.append(str(raised.value))
    assert "returned 401" in errors[1]
    assert all(error and SECRET not in error for error in errors)


def test_images_reach_the_server_as_data_urls_and_an_unreadable_one_fails_only_its_request(tmp_path: Path):
    photo = tmp_path / "dish.png"
    photo.write_bytes(PNG)
    requests = [ask("ok", "Which country?", (photo,)), ask("bad", "Which country?", (tmp_path / "missing.jpg",))]
    with LocalServer(echo) as server:
        responses = {r.key: r for r in backend(server.url).generate(requests)}
        (sent,) = server.chat_requests
    assert responses["ok"].text == "you said Which country?"
    assert "cannot read image" in responses["bad"].error and "missing.jpg" in responses["bad"].error
    url = sent.body["messages"][0]["content"][0]["image_url"]["url"]
    assert decode_data_url(url) == ("image/png", PNG)


def test_stopping_early_leaves_no_request_hanging():
    with serve(echo) as url:
        generator = backend(url, concurrency=2).generate([ask(f"k{i}", "borscht") for i in range(50)])
        first = next(generator)
        generator.close()
    assert first.text == "you said borscht"


def test_streaming_yields_the_answer_in_pieces():
    with serve(echo) as url:
        pieces = list(backend(url).stream(ask("k", "a sour beetroot soup")))
    assert len(pieces) > 1
    assert "".join(pieces) == "you said a sour beetroot soup"


def test_streaming_errors_say_what_went_wrong():
    with pytest.raises(BackendError, match="cannot reach the model server"):
        list(backend(f"http://127.0.0.1:{closed_port()}/v1").stream(ask("k", "borscht")))
    with serve(echo, faults=["503"]) as url, pytest.raises(BackendError, match="returned 503"):
        list(backend(url).stream(ask("k", "borscht")))
    with serve(echo, delay_s=1.0) as url, pytest.raises(BackendError, match=re.escape("timed out after 0.2 s")):
        list(backend(url, timeout=0.2).stream(ask("k", "borscht")))

    def broken(messages: list[dict], max_tokens: int) -> str:
        raise RuntimeError("model crashed")

    with serve(broken) as url, pytest.raises(BackendError, match="model crashed"):
        list(backend(url).stream(ask("k", "borscht")))


def test_the_local_server_serves_the_tiny_transformers_model(tiny_text_model: Path):
    local = create_backend("transformers", str(tiny_text_model))
    respond, respond_stream = backend_responder(local)
    try:
        with LocalServer(respond, model_name="tiny", respond_stream=respond_stream) as server:
            client = OpenAIBackend("tiny", base_url=server.url, timeout=30.0)
            client.check()
            responses = list(
                client.generate([ask("uk", "Which country is borscht from?", max_tokens=8), ask("ru", "Борщ")])
            )
            pieces = list(client.stream(ask("k", "Which country?", max_tokens=8)))
    finally:
        local.close()
    assert sorted(r.key for r in responses) == ["ru", "uk"]
    assert all(r.error is None and r.text and r.tokens_out > 0 for r in responses)
    assert pieces and "".join(pieces)
