"""Imagined dishes (BORSch §5): a model describes a dish in Russian or Ukrainian, the description is
translated to English, a text-to-image model draws it, an image encoder embeds the drawings and
the dish's real photos, and the cosine between them is compared with the model's QA score.

Five steps, each cached and resumable like generation (a rerun skips what is done; each chunk is
one transaction, so a killed run resumes with no duplicates):

    dish_description (pipeline.imagine.describe)  -> core.generations (task borsch.dish_description)
    translate        (pipeline.imagine.translate) -> core.generations (task borsch.translate_description)
    imagine          (pipeline.imagine.render)    -> core.generated_images + PNG files by content hash
    embed            (pipeline.imagine.embed)     -> core.image_embeddings ([CLS] of generated and real images)
    similarity       (pipeline.imagine.similarity)-> core.image_similarities (intra / inter cosine) and
                                                     core.real_image_similarities (real photos among themselves)

The Spearman correlation with QA (and its bootstrap interval) is computed at publish
(warehouse/marts/105_imagined_correlations.py), so QA answers scored later are picked up.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.core.errors import DataError
from pipeline.core.run_settings import DEFAULT_ENCODER, DEFAULT_GENERATOR, ImagineSpec

STEPS = ("dish_description", "translate", "imagine", "embed", "similarity")


def device_and_dtype(device: str, dtype: str, gpu_default: str):
    """("cuda" or "cpu", torch dtype) for settings `device` / `dtype` ("auto": the GPU when there is
    one, at `gpu_default` precision there and float32 on CPU)."""
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    name = (gpu_default if device.startswith("cuda") else "float32") if dtype == "auto" else dtype
    if name not in ("bfloat16", "float16", "float32"):
        raise ValueError(f"dtype must be auto, bfloat16, float16 or float32, not {dtype!r}")
    return device, getattr(torch, name)


def specs_from_config(path: Path, tables: list[dict], models: dict) -> list[ImagineSpec]:
    """`[[imagine]]` tables of a run configuration (see pipeline/flow/runconfig.py) as specs, one per
    describer and language; describers and the translator are names under `[models]`."""
    specs = []
    for index, table in enumerate(tables, start=1):
        for key in ("dataset", "langs", "describers"):
            if key not in table:
                raise DataError(path, f"[[imagine]] number {index} needs `{key}`")
        names = [*table["describers"], *([table["translator"]] if table.get("translator") else [])]
        for name in names:
            if name not in models:
                raise DataError(path, f"[[imagine]] number {index} names model {name!r}, not defined under [models]")
        translator = models[table["translator"]] if table.get("translator") else None
        size = int(table.get("size", 1024))
        for name in table["describers"]:
            model = models[name]
            for lang in table["langs"]:
                specs.append(
                    ImagineSpec(
                        dataset=table["dataset"], lang=lang, describer=str(model["model"]), backend=model["backend"],
                        settings=dict(model.get("settings", {})),
                        translator=str(translator["model"]) if translator else None,
                        translator_backend=translator["backend"] if translator else None,
                        vqa_model=_vqa_model(table.get("vqa_models", {}), name, models),
                        translator_settings=dict(translator.get("settings", {})) if translator else {},
                        generator=str(table.get("generator", DEFAULT_GENERATOR)),
                        encoder=str(table.get("encoder", DEFAULT_ENCODER)),
                        limit=table.get("limit"), images=Path(table["images"]) if table.get("images") else None,
                        variants=tuple(str(v) for v in table.get("variants", ("1",))),
                        seeds=tuple(int(s) for s in table.get("seeds", (0,))), steps=int(table.get("steps", 28)),
                        guidance=float(table.get("guidance", 3.5)), width=size, height=size,
                        generator_settings=dict(table.get("generator_settings", {})),
                        encoder_settings=dict(table.get("encoder_settings", {})),
                        chunk_size=int(table.get("chunk_size", 16)),
                    )
                )  # fmt: skip
    return specs


def _vqa_model(pairs: dict, describer: str, models: dict) -> str | None:
    """`vqa_models = { DESCRIBER = "VISION" }`: the vision model whose VQA answers Table 4 pairs with a describer,
    a name under `[models]` or a model id; None keeps the paper's pairing (BORSch §4.1)."""
    vision = pairs.get(describer)
    if vision is None:
        return None
    return str(models[vision]["model"]) if vision in models else str(vision)
