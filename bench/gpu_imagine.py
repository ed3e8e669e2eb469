"""Imagine steps on a GPU: images/s of the text-to-image step and of the [CLS] embedding step at
real size (1024 px, 28 denoising steps by default), through the pipeline's own classes.

With no --generator / --encoder the tiny random FLUX and DINOv2 (pipeline/tiny/images.py) are built
and run at the real image size and step count, which exercises the real code path and the GPU
transfers without any download; pass local folders or hub ids (e.g. black-forest-labs/FLUX.1-dev,
facebook/dinov2-giant, when cached) to measure the real models. Checks: every image has the asked
size, every embedding one finite vector of the encoder's width, the intra/inter arithmetic runs on
them, and a redraw with the same seed is reported as identical or not (GPU kernels may differ).
Prints one line per step and `gpu imagine: OK|FAILED`; exits non-zero on any failure.

    python bench/gpu_imagine.py                      # CUDA, tiny models, 8 images of 1024 px, 28 steps
    python bench/gpu_imagine.py --device cpu --images 2 --size 32 --steps 2     # the CPU check (tests)
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

PROMPTS = [
    "A deep red beetroot soup in a white bowl with a spoon of sour cream and dill",
    "Golden fried dumplings on a wooden board with melted butter",
    "Thin pancakes rolled around cottage cheese, dusted with sugar",
    "Skewers of grilled lamb with onion rings on a metal plate",
]


def log(message: str) -> None:
    print(f"[gpu-imagine {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def models(args: argparse.Namespace, scratch: Path) -> tuple[str, str]:
    from pipeline.tiny import images as tiny

    generator = args.generator or str(tiny.build_text_to_image(scratch / "tiny-flux"))
    encoder = args.encoder or str(tiny.build_image_encoder(scratch / "tiny-dinov2"))
    return generator, encoder


def check(args: argparse.Namespace) -> list[str]:
    """Run both steps; returns the failures (empty: all good)."""
    import numpy as np

    from pipeline.imagine.embed import ImageEncoder
    from pipeline.imagine.render import TextToImage, png_bytes
    from pipeline.imagine.similarity import intra_inter

    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        generator_id, encoder_id = models(args, Path(scratch))
        log(f"generator {generator_id}, encoder {encoder_id}, device {args.device}")
        generator = TextToImage(generator_id, device=args.device, batch_size=args.batch_size)
        prompts = [PROMPTS[i % len(PROMPTS)] for i in range(args.images)]
        seeds = list(range(args.images))
        generator.draw(prompts[:1], seeds[:1], args.steps, args.guidance, args.size, args.size)  # load + warm up
        started = time.perf_counter()
        images = []
        for start in range(0, len(prompts), args.batch_size):
            images += generator.draw(
                prompts[start : start + args.batch_size], seeds[start : start + args.batch_size], args.steps,
                args.guidance, args.size, args.size,
            )  # fmt: skip
        draw_seconds = time.perf_counter() - started
        print(
            f"imagine: {len(images)} images of {args.size}px, {args.steps} steps, in {draw_seconds:.2f}s: "
            f"{len(images) / draw_seconds:.3f} images/s ({generator.pipeline_class})",
            flush=True,
        )
        if [image.size for image in images] != [(args.size, args.size)] * args.images:
            failures.append(f"image sizes {sorted({image.size for image in images})}, expected {args.size}px")
        again = generator.draw(prompts[:1], seeds[:1], args.steps, args.guidance, args.size, args.size)
        print(f"same seed redrawn identical: {png_bytes(again[0]) == png_bytes(images[0])}", flush=True)
        generator.close()

        encoder = ImageEncoder(encoder_id, device=args.device, batch_size=args.batch_size)
        encoder.embed(images[:1])  # load + warm up
        started = time.perf_counter()
        vectors = []
        for start in range(0, len(images), args.batch_size):
            vectors += encoder.embed(images[start : start + args.batch_size])
        embed_seconds = time.perf_counter() - started
        print(
            f"embed: {len(vectors)} images in {embed_seconds:.2f}s: {len(vectors) / embed_seconds:.2f} images/s",
            flush=True,
        )
        matrix = np.array(vectors)
        if matrix.ndim != 2 or matrix.shape[0] != args.images or not np.isfinite(matrix).all():
            failures.append(f"embeddings of shape {matrix.shape}, expected ({args.images}, width), all finite")
        else:
            half = max(1, args.images // 2)
            dishes = ["a" if i < half else "b" for i in range(args.images)]
            results = intra_inter(matrix[:1], ["a"], matrix[1:], dishes[1:])
            values = [v for r in results for v in (r.intra, r.inter) if v is not None]
            if not values or not all(math.isfinite(v) and -1.0001 <= v <= 1.0001 for v in values):
                failures.append(f"intra/inter cosines out of range: {values}")
            print(f"intra/inter on the drawn images: {[round(v, 3) for v in values]}", flush=True)
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generator", default="", help="diffusers pipeline id or folder (default: tiny FLUX)")
    parser.add_argument("--encoder", default="", help="image encoder id or folder (default: tiny DINOv2)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--images", type=int, default=8)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=28)
    parser.add_argument("--guidance", type=float, default=3.5)
    parser.add_argument("--batch-size", type=int, default=4)
    args = parser.parse_args(argv)
    if args.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            print("FAIL torch sees no CUDA device\ngpu imagine: FAILED", flush=True)
            return 1
    started = time.perf_counter()
    try:
        failures = check(args)
    except Exception as exc:  # a smoke test reports, it does not hide
        failures = [f"{type(exc).__name__}: {exc}"]
    log(f"total {time.perf_counter() - started:.0f}s")
    for failure in failures:
        print(f"FAIL {failure}", flush=True)
    print("gpu imagine: " + ("FAILED" if failures else "OK"), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
