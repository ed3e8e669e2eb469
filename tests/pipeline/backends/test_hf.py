"""The transformers backend on real tiny models: batched chat generation, images, failures, streaming."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from PIL import Image

from pipeline.backends import BackendError, Message, Request, Response, create_backend
from pipeline.backends.base import local_weights_hash
from pipeline.backends.hf import chat_messages, cut_at_stop

QUESTIONS = {
    "ru-1": "Из какой страны борщ? Ответь только названием страны.",
    "ru-2": "Из какой страны пельмени?",
    "uk-1": "З якої країни вареники? Відповідай лише назвою країни.",
    "uk-2": "З якої країни борщ?",
    "en-1": "Which country is paella from? Answer with the country name only.",
}


@pytest.fixture(scope="module")
def text_backend(tiny_text_model: Path) -> Iterator:
    backend = create_backend("transformers", str(tiny_text_model), device="cpu", batch_size=2)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def vision_backend(tiny_vision_model: Path) -> Iterator:
    backend = create_backend("transformers", str(tiny_vision_model), device="cpu")
    yield backend
    backend.close()


def png(path: Path, color: tuple[int, int, int], size: tuple[int, int] = (40, 24)) -> Path:
    Image.new("RGB", size, color).save(path)
    return path


def by_key(responses: Iterator[Response]) -> dict[str, Response]:
    out: dict[str, Response] = {}
    for response in responses:
        assert response.key not in out, f"two responses for {response.key}"
        out[response.key] = response
    return out


def test_a_batch_of_chat_requests_gets_one_answer_per_key(text_backend) -> None:
    requests = [
        Request(key, (Message("system", "You are a food expert."), Message("user", text)), max_tokens=6)
        for key, text in QUESTIONS.items()
    ]
    responses = by_key(text_backend.generate(requests))
    assert set(responses) == set(QUESTIONS)
    for response in responses.values():
        assert response.error is None
        assert response.text is not None
        assert 1 <= response.tokens_out <= 6
        assert response.tokens_in > 10
        assert response.finish_reason in ("stop", "length")
        assert response.finish_reason == "stop" or response.tokens_out == 6
        assert response.latency_ms > 0


def test_batched_greedy_answers_equal_answers_one_at_a_time(text_backend) -> None:
    requests = [Request(key, (Message("user", text),), max_tokens=5) for key, text in QUESTIONS.items()]
    batched = by_key(text_backend.generate(requests))
    alone = {r.key: next(iter(text_backend.generate([r]))) for r in requests}
    assert {k: r.text for k, r in batched.items()} == {k: r.text for k, r in alone.items()}


def test_each_request_is_cut_at_its_own_max_tokens(text_backend) -> None:
    long = Request("long", (Message("user", QUESTIONS["en-1"]),), max_tokens=8)
    short = Request("short", (Message("user", QUESTIONS["en-1"]),), max_tokens=2)
    responses = by_key(text_backend.generate([long, short]))
    assert responses["short"].tokens_out <= 2
    assert responses["long"].tokens_out <= 8
    if responses["short"].finish_reason == "length":
        assert responses["short"].tokens_out == 2


def test_identity_names_the_folder_and_hashes_its_weights(text_backend, tiny_text_model: Path) -> None:
    identity = text_backend.identity()
    assert identity.model_id == str(tiny_text_model)
    assert identity.weights_hash == local_weights_hash(tiny_text_model)
    assert identity.is_vision is False
    assert text_backend.settings()["do_sample"] is False


def test_vision_requests_with_one_and_three_images(vision_backend, tmp_path: Path) -> None:
    red, green, blue = (
        png(tmp_path / f"{n}.png", c) for n, c in [("r", (255, 0, 0)), ("g", (0, 255, 0)), ("b", (0, 0, 255))]
    )
    requests = [
        Request("one", (Message("user", "Из какой страны это блюдо?", images=(red,)),), max_tokens=5),
        Request(
            "three", (Message("user", "Which country are these dishes from?", images=(red, green, blue)),), max_tokens=5
        ),
        Request("none", (Message("user", "З якої країни борщ?"),), max_tokens=5),
    ]
    responses = by_key(vision_backend.generate(requests))
    assert set(responses) == {"one", "three", "none"}
    for response in responses.values():
        assert response.error is None
        assert response.text is not None
        assert response.tokens_out <= 5
        assert response.finish_reason in ("stop", "length")
    # every image becomes 16 patch tokens (32x32 image, 8x8 patches) in the prompt
    assert responses["three"].tokens_in - responses["one"].tokens_in >= 2 * 16
    assert vision_backend.identity().is_vision is True


def test_an_unreadable_image_fails_only_its_own_request(vision_backend, tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    good = png(tmp_path / "good.png", (200, 120, 40))
    requests = [
        Request("bad", (Message("user", "Which country?", images=(broken,)),), max_tokens=4),
        Request("missing", (Message("user", "Which country?", images=(tmp_path / "nowhere.jpg",)),), max_tokens=4),
        Request("good", (Message("user", "Which country?", images=(good,)),), max_tokens=4),
    ]
    responses = by_key(vision_backend.generate(requests))
    for key, path in [("bad", broken), ("missing", tmp_path / "nowhere.jpg")]:
        assert responses[key].text is None
        assert responses[key].finish_reason == "error"
        assert responses[key].error.startswith(f"cannot read image {path}")
    assert responses["good"].error is None
    assert responses["good"].text is not None


def test_a_text_model_refuses_images_per_request(text_backend, tmp_path: Path) -> None:
    image = png(tmp_path / "dish.png", (10, 20, 30))
    requests = [
        Request("with-image", (Message("user", "Which country?", images=(image,)),), max_tokens=3),
        Request("plain", (Message("user", "Which country?"),), max_tokens=3),
    ]
    responses = by_key(text_backend.generate(requests))
    assert "text-only" in responses["with-image"].error
    assert responses["plain"].error is None


def test_a_missing_model_folder_is_a_backend_error(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="model folder not found"):
        create_backend("transformers", str(tmp_path / "no-such-model"))


def test_a_folder_without_a_model_is_a_backend_error(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="cannot load model config"):
        create_backend("transformers", str(tmp_path))


@pytest.mark.parametrize("fixture", ["text_backend", "vision_backend"])
def test_stream_yields_pieces_of_the_answer(fixture: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    backend = request.getfixturevalue(fixture)
    images = (png(tmp_path / "dish.png", (90, 60, 30)),) if fixture == "vision_backend" else ()
    prompt = Request("probe", (Message("user", "Из какой страны борщ?", images=images),), max_tokens=8)
    pieces = list(backend.stream(prompt))
    assert pieces
    assert all(isinstance(piece, str) for piece in pieces)
    assert "".join(pieces).strip()
    assert "".join(pieces) == next(iter(backend.generate([prompt]))).text


def test_chat_messages_put_images_before_the_text_for_vision_models() -> None:
    messages = (
        Message("system", "Be brief."),
        Message("user", "Which country?", images=(Path("a.png"), Path("b.png"))),
    )
    assert chat_messages(messages, vision=False) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Which country?"},
    ]
    assert chat_messages(messages, vision=True)[1]["content"] == [
        {"type": "image"},
        {"type": "image"},
        {"type": "text", "text": "Which country?"},
    ]


def test_cut_at_stop_keeps_the_stop_token_and_respects_the_limit() -> None:
    assert cut_at_stop([5, 6, 2, 0, 0], {2}, max_tokens=10) == ([5, 6, 2], "stop")
    assert cut_at_stop([5, 6, 7, 8], {2}, max_tokens=3) == ([5, 6, 7], "length")
    assert cut_at_stop([5, 6, 2], {2}, max_tokens=2) == ([5, 6], "length")


def test_stream_of_an_unreadable_image_says_which_file(vision_backend, tmp_path: Path) -> None:
    missing = tmp_path / "gone.png"
    with pytest.raises(BackendError, match=f"cannot read image {missing}"):
        list(vision_backend.stream(Request("probe", (Message("user", "Which country?", images=(missing,)),))))


def test_the_max_new_tokens_setting_caps_every_request(tiny_text_model: Path) -> None:
    backend = create_backend("transformers", str(tiny_text_model), device="cpu", max_new_tokens=2)
    try:
        (response,) = backend.generate([Request("k", (Message("user", "Which country?"),), max_tokens=50)])
    finally:
        backend.close()
    assert response.tokens_out <= 2
    assert backend.settings()["max_new_tokens"] == 2


def test_the_threads_setting_runs_torch_on_that_many_threads_with_the_same_answers_and_cache_key(
    tiny_text_model: Path, text_backend
) -> None:
    request = Request("k", (Message("user", QUESTIONS["en-1"]),), max_tokens=6)
    before = torch.get_num_threads()
    torch.set_num_threads(2)  # as on a 2-core machine (the test session itself runs torch on one thread)
    backend = create_backend("transformers", str(tiny_text_model), device="cpu", batch_size=2, threads=1)
    try:
        (answer,) = backend.generate([request])
        assert torch.get_num_threads() == 1
    finally:
        backend.close()
        torch.set_num_threads(before)
    (expected,) = text_backend.generate([request])
    assert answer.text == expected.text
    assert backend.settings() == text_backend.settings()  # threads never change an answer: not in the cache key
    with pytest.raises(BackendError, match="threads must be at least 1"):
        create_backend("transformers", str(tiny_text_model), device="cpu", threads=0)


def _texts(backend, requests: list[Request]) -> dict[str, str | None]:
    return {key: response.text for key, response in by_key(backend.generate(requests)).items()}


def test_a_temperature_samples_seeded_and_a_request_for_greedy_stays_greedy(
    tiny_text_model: Path, text_backend
) -> None:
    """ZNO-Vision §4 generates at temperature 1: the backend samples then, the same seed giving the same answers,
    another seed others; a task asking for temperature 0 stays greedy on a sampling backend."""
    asked = [Request(key, (Message("user", text),), max_tokens=12) for key, text in QUESTIONS.items()]
    greedy = _texts(text_backend, asked)
    assert text_backend.settings() == {"dtype": "float32", "do_sample": False, "max_new_tokens": None}  # keys kept
    sampler = create_backend("transformers", str(tiny_text_model), device="cpu", batch_size=2, temperature=1.0, seed=7)
    other_seed = create_backend("transformers", str(tiny_text_model), device="cpu", batch_size=2, temperature=1.0)
    try:
        sampled = _texts(sampler, asked)
        assert _texts(sampler, asked) == sampled  # seeded: a rerun gives the same answers
        assert _texts(other_seed, asked) != sampled
        assert sampled != greedy
        as_greedy = [Request(r.key, r.messages, r.max_tokens, temperature=0.0) for r in asked]
        assert _texts(sampler, as_greedy) == greedy
        assert sampler.settings() == {
            "dtype": "float32", "do_sample": True, "max_new_tokens": None, "temperature": 1.0, "seed": 7,
        }  # fmt: skip
    finally:
        sampler.close()
        other_seed.close()
    # a task's own temperature is honoured by a greedy backend too
    as_task = [Request(r.key, r.messages, r.max_tokens, temperature=1.0) for r in asked]
    assert _texts(text_backend, as_task) != greedy
    with pytest.raises(BackendError, match="temperature must be 0"):
        create_backend("transformers", str(tiny_text_model), device="cpu", temperature=-1)
