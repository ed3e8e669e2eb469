"""The tiny text-to-image and image-encoder models: built in code, loaded through from_pretrained,
the right shapes, deterministic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pipeline.backends.base import local_weights_hash
from pipeline.imagine.embed import ImageEncoder
from pipeline.imagine.render import TextToImage, png_bytes, store_image
from pipeline.tiny.build import build_tiny_model
from pipeline.tiny.marker import is_tiny_random
from tests.helpers import run_cli


def test_the_tiny_model_command_builds_both_kinds(tmp_path: Path) -> None:
    for kind in ("text-to-image", "image-encoder"):
        result = run_cli(tmp_path / "wh.duckdb", "tiny-model", "--kind", kind, "--out", str(tmp_path / kind))
        assert f"tiny {kind} model saved" in result.stderr
        assert is_tiny_random(tmp_path / kind)
        assert sum(p.stat().st_size for p in (tmp_path / kind).rglob("*") if p.is_file()) < 5_000_000
    assert (tmp_path / "text-to-image" / "model_index.json").is_file()


def test_building_twice_gives_identical_weights(tmp_path: Path) -> None:
    for kind in ("text-to-image", "image-encoder"):
        first, second = build_tiny_model(kind, tmp_path / f"{kind}-1"), build_tiny_model(kind, tmp_path / f"{kind}-2")
        assert local_weights_hash(first) == local_weights_hash(second) is not None


def test_the_tiny_flux_pipeline_draws_seeded_images(tiny_text_to_image_model: Path) -> None:
    engine = TextToImage(str(tiny_text_to_image_model), batch_size=2, max_sequence_length=32)
    assert engine.pipeline_class == "FluxPipeline"
    prompts = ["A deep red soup with a spoon of sour cream", "Golden dumplings on a white plate"]
    first = engine.draw(prompts, [0, 0], steps=2, guidance=3.5, width=32, height=32)
    again = engine.draw(prompts, [0, 0], steps=2, guidance=3.5, width=32, height=32)
    other_seed = engine.draw(prompts[:1], [1], steps=2, guidance=3.5, width=32, height=32)
    assert [image.size for image in first] == [(32, 32), (32, 32)]
    assert [png_bytes(i) for i in first] == [png_bytes(i) for i in again]
    assert png_bytes(first[0]) != png_bytes(other_seed[0])
    assert png_bytes(first[0]) != png_bytes(first[1])  # the prompt matters


def test_images_are_stored_under_their_content_hash(tmp_path: Path) -> None:
    data = png_bytes(Image.new("RGB", (4, 4), (1, 2, 3)))
    digest, path = store_image(tmp_path, data)
    assert path == tmp_path / digest[:2] / f"{digest}.png" and path.read_bytes() == data
    assert store_image(tmp_path, data) == (digest, path)
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [path.name]  # no temporary file left


def test_the_encoder_embeds_the_cls_token(tiny_image_encoder: Path) -> None:
    import torch
    from transformers import AutoImageProcessor, AutoModel

    images = [Image.new("RGB", (40, 30), (200, 40, 40)), Image.new("RGB", (64, 64), (20, 160, 40))]
    encoder = ImageEncoder(str(tiny_image_encoder), batch_size=2)
    vectors = encoder.embed(images)
    assert np.array(vectors).shape == (2, 32)  # hidden size of the tiny DINOv2
    assert vectors == encoder.embed(images)
    model, processor = (
        AutoModel.from_pretrained(tiny_image_encoder),
        AutoImageProcessor.from_pretrained(tiny_image_encoder),
    )
    with torch.inference_mode():
        expected = model(**processor(images=images, return_tensors="pt")).last_hidden_state[:, 0]
    assert np.allclose(vectors, expected.numpy(), atol=1e-5)
    assert not np.allclose(vectors[0], vectors[1])


def test_a_missing_generator_is_one_clear_error(tmp_path: Path) -> None:
    from pipeline.backends.base import BackendError

    with pytest.raises(BackendError, match="cannot load text-to-image pipeline"):
        TextToImage(str(tmp_path / "nothing")).draw(["x"], [0], 1, 1.0, 32, 32)
