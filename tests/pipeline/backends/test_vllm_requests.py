"""The vLLM backend's pure parts: chat messages, engine and sampling arguments, output mapping,
and the clear error where vLLM is missing. The engine itself runs in bench/gpu_smoke.sh on a GPU."""

from __future__ import annotations

import base64
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PIL import Image

from pipeline.backends import BackendError, Message, Request, create_backend
from pipeline.backends.vllm_engine import (
    INSTALL_HINT,
    ImageError,
    VLLMBackend,
    VLLMSettings,
    config_is_vision,
    engine_kwargs,
    output_to_response,
    sampling_kwargs,
    to_vllm_messages,
)


def image(folder: Path, name: str, color: str = "red") -> Path:
    path = folder / name
    Image.new("RGB", (4, 4), color).save(path)
    return path


def model_folder(tmp_path: Path, config: dict) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    return folder


TEXT_CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama"}
VISION_CONFIG = {"architectures": ["Qwen2VLForConditionalGeneration"], "vision_config": {"depth": 2}}


def test_a_text_only_conversation_is_plain_strings() -> None:
    messages = (Message("system", "Отвечай кратко."), Message("user", "Откуда родом борщ?"))
    assert to_vllm_messages(messages) == [
        {"role": "system", "content": "Отвечай кратко."},
        {"role": "user", "content": "Откуда родом борщ?"},
    ]


def test_three_images_come_before_the_text_as_data_urls_with_their_mime(tmp_path: Path) -> None:
    files = (image(tmp_path, "a.jpg"), image(tmp_path, "b.PNG", "blue"), image(tmp_path, "c.webp", "green"))
    [turn] = to_vllm_messages((Message("user", "Що це за страва?", files),))
    assert turn["role"] == "user"
    parts = turn["content"]
    assert [part["type"] for part in parts] == ["image_url", "image_url", "image_url", "text"]
    assert parts[-1] == {"type": "text", "text": "Що це за страва?"}
    for part, file, mime in zip(parts, files, ["image/jpeg", "image/png", "image/webp"], strict=False):
        url = part["image_url"]["url"]
        prefix = f"data:{mime};base64,"
        assert url.startswith(prefix)
        assert base64.b64decode(url.removeprefix(prefix)) == file.read_bytes()


def test_ten_images_are_allowed_and_eleven_are_refused_clearly(tmp_path: Path) -> None:
    files = tuple(image(tmp_path, f"{i}.png") for i in range(11))
    [turn] = to_vllm_messages((Message("user", "?", files[:10]),))
    assert len(turn["content"]) == 11
    with pytest.raises(ImageError, match="11 images in one prompt; at most 10"):
        to_vllm_messages((Message("user", "?", files),))


def test_images_are_counted_across_the_whole_conversation(tmp_path: Path) -> None:
    files = tuple(image(tmp_path, f"{i}.png") for i in range(6))
    with pytest.raises(ImageError, match="12 images"):
        to_vllm_messages((Message("user", "a", files), Message("assistant", "b"), Message("user", "c", files)))


def test_an_unreadable_or_unknown_image_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match=r"missing\.jpg cannot be read"):
        to_vllm_messages((Message("user", "?", (tmp_path / "missing.jpg",)),))
    (tmp_path / "dish.tiff").write_bytes(b"II*\x00")
    with pytest.raises(ImageError, match=r"unsupported type '\.tiff'"):
        to_vllm_messages((Message("user", "?", (tmp_path / "dish.tiff",)),))


def test_engine_kwargs_for_a_text_model() -> None:
    kwargs = engine_kwargs("/models/qwen", VLLMSettings(vision=False))
    assert kwargs == {
        "model": "/models/qwen",
        "tensor_parallel_size": 1,
        "max_model_len": 4096,
        "gpu_memory_utilization": 0.9,
        "dtype": "auto",
        "trust_remote_code": False,
        "enable_prefix_caching": True,
    }


def test_engine_kwargs_for_a_vision_model_allow_ten_images_per_prompt() -> None:
    settings = VLLMSettings(tensor_parallel_size=2, max_model_len=8192, vision=True, revision="abc123")
    kwargs = engine_kwargs("Qwen/Qwen2-VL-7B-Instruct", settings)
    assert kwargs["limit_mm_per_prompt"] == {"image": 10}
    assert kwargs["tensor_parallel_size"] == 2
    assert kwargs["max_model_len"] == 8192
    assert kwargs["enable_prefix_caching"] is True
    assert kwargs["revision"] == "abc123"


def test_sampling_is_greedy() -> None:
    assert sampling_kwargs(64) == {"temperature": 0.0, "max_tokens": 64}
    with pytest.raises(ValueError, match="positive"):
        sampling_kwargs(0)


@pytest.mark.parametrize(
    ("config", "vision"),
    [
        (TEXT_CONFIG, False),
        (VISION_CONFIG, True),
        ({"architectures": ["LlavaForConditionalGeneration"]}, True),
        ({"architectures": ["Gemma3ForConditionalGeneration"], "vision_config": {}}, True),
        ({}, False),
    ],
)
def test_vision_is_read_from_the_model_config(config: dict, vision: bool) -> None:
    assert config_is_vision(config) is vision


def test_a_local_model_sets_vision_identity_and_settings_without_a_gpu(tmp_path: Path) -> None:
    folder = model_folder(tmp_path, VISION_CONFIG)
    (folder / "model.safetensors").write_bytes(b"weights")
    backend = create_backend("vllm", str(folder), max_tokens=32)
    assert isinstance(backend, VLLMBackend)
    identity = backend.identity()
    assert identity.model_id == str(folder)
    assert identity.is_vision is True
    assert identity.weights_hash is not None and len(identity.weights_hash) == 16
    assert backend.settings() == {
        "temperature": 0.0,
        "max_tokens": 32,
        "dtype": "auto",
        "max_model_len": 4096,
        "tensor_parallel_size": 1,
        "max_images": 10,
    }
    assert engine_kwargs(backend.model, backend.config)["limit_mm_per_prompt"] == {"image": 10}


def test_a_tasks_temperature_wins_over_the_backends_in_the_sampling_parameters(tmp_path: Path) -> None:
    backend = create_backend("vllm", str(model_folder(tmp_path, TEXT_CONFIG)), max_tokens=32)
    messages = (Message("user", "Which country?"),)
    assert backend.params_key(Request("a", messages, 300)) == (32, 0.0)  # the backend's: greedy
    assert backend.params_key(Request("b", messages, 300, temperature=1.0)) == (32, 1.0)  # ZNO-Vision §4


def test_a_text_model_gets_no_image_limit(tmp_path: Path) -> None:
    backend = create_backend("vllm", str(model_folder(tmp_path, TEXT_CONFIG)))
    assert "limit_mm_per_prompt" not in engine_kwargs(backend.model, backend.config)
    assert backend.settings()["max_images"] == 0


def test_a_missing_model_folder_or_unknown_setting_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="does not exist"):
        create_backend("vllm", str(tmp_path / "nowhere"))
    with pytest.raises(BackendError, match="unknown vllm settings: temprature"):
        create_backend("vllm", str(model_folder(tmp_path, TEXT_CONFIG)), temprature=0.7)


def test_missing_vllm_is_a_backend_error_with_the_install_hint(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # as on a machine without requirements-gpu.txt
    backend = create_backend("vllm", str(model_folder(tmp_path, TEXT_CONFIG)))
    request = Request("k1", (Message("user", "hi"),))
    with pytest.raises(BackendError, match=r"install requirements-gpu\.txt on a GPU machine") as caught:
        list(backend.generate([request]))
    assert str(caught.value) == INSTALL_HINT


# Stand-ins shaped like vllm.outputs.RequestOutput / CompletionOutput (vLLM cannot run here).
@dataclass
class Completion:
    text: str
    token_ids: list[int]
    finish_reason: str | None


@dataclass
class Output:
    prompt_token_ids: list[int]
    outputs: list[Completion] = field(default_factory=list)


def test_an_output_becomes_a_response_with_token_counts() -> None:
    response = output_to_response("k", Output([1, 2, 3, 4], [Completion("Россия", [7, 8], "stop")]), 12.5)
    assert (response.key, response.text, response.finish_reason) == ("k", "Россия", "stop")
    assert (response.tokens_in, response.tokens_out, response.latency_ms, response.error) == (4, 2, 12.5, None)
    cut = output_to_response("k", Output([1], [Completion("Ukr", [5] * 8, "length")]))
    assert (cut.finish_reason, cut.tokens_out) == ("length", 8)


def test_an_aborted_or_empty_output_is_a_failed_response() -> None:
    aborted = output_to_response("k", Output([1], [Completion("", [], "abort")]))
    assert (aborted.text, aborted.finish_reason, aborted.error) == (None, "error", "vLLM finished with 'abort'")
    empty = output_to_response("k", Output([1], []))
    assert empty.error == "vLLM returned no completion"


def test_a_text_model_refuses_a_request_with_images(tmp_path: Path) -> None:
    backend = create_backend("vllm", str(model_folder(tmp_path, TEXT_CONFIG)))
    request = Request("k", (Message("user", "?", (image(tmp_path, "dish.jpg"),)),))
    with pytest.raises(ImageError, match="is not a vision model"):
        backend.conversation(request)


def load_gpu_smoke():
    """bench/gpu_smoke.py is a script, not a package module."""
    import importlib.util

    path = Path(__file__).resolve().parents[3] / "bench" / "gpu_smoke.py"
    spec = importlib.util.spec_from_file_location("gpu_smoke", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_gpu_smoke_prompts_are_distinct_and_trilingual(tmp_path: Path) -> None:
    smoke = load_gpu_smoke()
    requests = smoke.smoke_requests(512, max_tokens=32)
    assert len({r.key for r in requests}) == len({r.messages[0].text for r in requests}) == 512
    assert {r.max_tokens for r in requests} == {32}
    texts = [r.messages[0].text for r in requests[:3]]
    assert "страны" in texts[0] and "країни" in texts[1] and "country" in texts[2]
    folder = model_folder(tmp_path, {**TEXT_CONFIG, "max_position_embeddings": 512, "hidden_size": 64})
    assert smoke.max_model_len_for(folder) == 512
    assert smoke.max_model_len_for(tmp_path / "hub-id") == 4096


def test_the_tiny_models_are_told_apart(tiny_text_model: Path, tiny_vision_model: Path) -> None:
    text = create_backend("vllm", str(tiny_text_model))
    vision = create_backend("vllm", str(tiny_vision_model))
    assert (text.identity().is_vision, vision.identity().is_vision) == (False, True)
    assert "limit_mm_per_prompt" not in engine_kwargs(text.model, text.config)
    assert engine_kwargs(vision.model, vision.config)["limit_mm_per_prompt"] == {"image": 10}
    assert text.identity().weights_hash is not None
