"""`tiny-model`: one entry point for every tiny random model the tests and demos build offline."""

from __future__ import annotations

from pathlib import Path

KINDS = ("text", "vision", "text-to-image", "image-encoder", "image-edit")


def build_tiny_model(kind: str, out: Path) -> Path:
    """A tiny random `text` (Qwen2) or `vision` (LLaVA) model with its tokenizer/processor, a
    `text-to-image` pipeline (FLUX), an `image-encoder` (DINOv2) or an `image-edit` pipeline (FLUX.1-Kontext),
    saved in `out`."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if kind in ("text", "vision"):
        from pipeline.tiny.language import build_language_model

        return build_language_model(kind, out)
    from pipeline.tiny import images

    builders = {
        "text-to-image": images.build_text_to_image,
        "image-encoder": images.build_image_encoder,
        "image-edit": images.build_image_edit,
    }
    return builders[kind](out)
