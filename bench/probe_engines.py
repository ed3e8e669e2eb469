"""Tokens per second of the live probe's embedded model (SmolLM2-135M-Instruct) on this machine's CPU,
run two ways on the same prompts, each through its backend: transformers (the shipped GGUF converted
once to safetensors, pipeline/backends/embedded.py; the first run converts it, and that is in its load
time) and llama.cpp on the GGUF file itself (pipeline/backends/llamacpp.py, the `xllamacpp` wheel).

    python bench/probe_engines.py [--threads 1] [--max-tokens 48] [--rounds 2]

Both decode greedily, one question at a time (as the shared probe queue runs them), with the same
thread count; the rounds alternate the engines so that a busy machine slows both alike. Prints one row
per engine: load seconds, questions, tokens out, generation seconds and tokens/s, and the ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.answers.probe import prompt_text
from pipeline.backends import BackendError, Message, Request, create_backend
from pipeline.backends.embedded import DEFAULT

DISHES = (("ru", "Борщ"), ("uk", "Вареники"), ("en", "Paella"), ("en", "Pierogi"))


def prompts() -> list[str]:
    """The probe's own prompts (variant 1 of the origin task) for a few dishes and languages."""
    return [prompt_text(lang, dish) for lang, dish in DISHES]


class Transformers:
    name = "transformers"

    def __init__(self, threads: int) -> None:
        self.backend = create_backend("transformers", DEFAULT.model_id, device="cpu", threads=threads, batch_size=1)
        self.backend._load()  # the load is timed apart from generation

    def answer(self, prompt: str, max_tokens: int) -> tuple[str, int]:
        request = Request(key="bench", messages=(Message("user", prompt),), max_tokens=max_tokens)
        (response,) = self.backend.generate([request])
        return response.text or "", response.tokens_out or 0


class LlamaCpp(Transformers):
    name = "llama.cpp"

    def __init__(self, threads: int) -> None:
        self.backend = create_backend("llamacpp", DEFAULT.model_id, threads=threads)
        self.backend._load()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    engines, loads = [], {}
    for kind in (Transformers, LlamaCpp):
        started = time.perf_counter()
        try:
            engine = kind(args.threads)
        except BackendError as exc:
            print(f"{kind.name}: cannot run ({exc}); skipped")
            continue
        loads[kind.name] = time.perf_counter() - started
        engine.answer(prompts()[0], 4)  # warm-up, not counted
        engines.append(engine)
    totals = {engine.name: [0, 0, 0.0] for engine in engines}  # questions, tokens, seconds
    samples = {}
    for _ in range(args.rounds):
        for engine in engines:
            for prompt in prompts():
                started = time.perf_counter()
                text, tokens = engine.answer(prompt, args.max_tokens)
                seconds = time.perf_counter() - started
                total = totals[engine.name]
                total[0], total[1], total[2] = total[0] + 1, total[1] + tokens, total[2] + seconds
                samples.setdefault(engine.name, text)
    print(f"threads={args.threads} max_tokens={args.max_tokens} rounds={args.rounds}")
    print(f"{'engine':<14}{'load s':>8}{'questions':>11}{'tokens':>8}{'gen s':>8}{'tokens/s':>10}")
    rates = {}
    for name, (questions, tokens, seconds) in totals.items():
        rates[name] = tokens / seconds if seconds else 0.0
        print(f"{name:<14}{loads[name]:>8.1f}{questions:>11}{tokens:>8}{seconds:>8.1f}{rates[name]:>10.1f}")
    if len(rates) == 2 and rates["transformers"]:
        print(f"llama.cpp / transformers: {rates['llama.cpp'] / rates['transformers']:.2f}x")
    for name, text in samples.items():
        print(f"{name} first answer: {text[:80]!r}")


if __name__ == "__main__":
    main()
