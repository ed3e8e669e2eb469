"""The tiny models are real Hugging Face folders: reproducible, small, and loadable with from_pretrained."""

from __future__ import annotations

from pathlib import Path

import pytest
from transformers import AutoModelForCausalLM, AutoModelForImageTextToText, AutoProcessor, AutoTokenizer

from pipeline.backends.base import local_weights_hash
from pipeline.tiny.build import build_tiny_model


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


@pytest.mark.parametrize("kind", ["text", "vision"])
def test_building_twice_gives_identical_weights(kind: str, tmp_path: Path) -> None:
    first = build_tiny_model(kind, tmp_path / "a")
    second = build_tiny_model(kind, tmp_path / "b")
    assert local_weights_hash(first) is not None
    assert local_weights_hash(first) == local_weights_hash(second)


def test_unknown_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="kind"):
        build_tiny_model("audio", tmp_path)


def test_models_stay_small(tiny_text_model: Path, tiny_vision_model: Path) -> None:
    assert folder_size(tiny_text_model) < 5 << 20
    assert folder_size(tiny_vision_model) < 5 << 20


def test_text_model_loads_with_a_chatml_template_and_left_padding(tiny_text_model: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_text_model)
    model = AutoModelForCausalLM.from_pretrained(tiny_text_model)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Из какой страны борщ?"}], tokenize=False, add_generation_prompt=True
    )
    assert prompt == "<|im_start|>user\nИз какой страны борщ?<|im_end|>\n<|im_start|>assistant\n"
    assert tokenizer.padding_side == "left"
    assert tokenizer.pad_token is not None
    assert model.config.vocab_size == len(tokenizer)


def test_tokenizer_round_trips_cyrillic_and_latin(tiny_text_model: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_text_model)
    text = "Відповідь: Україна. Ответ: Россия. Answer: Ukraine."
    assert tokenizer.decode(tokenizer(text).input_ids) == text


def test_vision_model_loads_and_its_template_places_image_tokens(tiny_vision_model: Path) -> None:
    processor = AutoProcessor.from_pretrained(tiny_vision_model)
    model = AutoModelForImageTextToText.from_pretrained(tiny_vision_model)
    conversation = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Which country?"}]}]
    prompt = processor.apply_chat_template(conversation, tokenize=False, add_generation_prompt=True)
    assert prompt == "<|im_start|>user\n<image>Which country?<|im_end|>\n<|im_start|>assistant\n"
    assert model.config.image_token_index == processor.tokenizer.convert_tokens_to_ids("<image>")
