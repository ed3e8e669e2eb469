"""GPU smoke test and throughput check: the same prompts through vLLM and transformers, side by side.

Builds the tiny text model (random Qwen2, pipeline.tiny.language) unless --model names another,
then runs N short chat prompts (Russian, Ukrainian, English) through each backend in its own
process (so one backend's GPU memory never constrains the other) and prints items/s, tokens/s and
the vLLM/transformers ratio. Exits non-zero when a backend fails to start, loses or fails any
request, or takes longer than --timeout. Run it on a CUDA machine through bench/gpu_smoke.sh.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

RESULT_PREFIX = "SMOKE-RESULT "
BACKENDS = ("vllm", "transformers")
QUESTIONS = {
    "ru": "Из какой страны это блюдо: {dish}? Ответь только названием страны.",
    "uk": "З якої країни ця страва: {dish}? Відповідай лише назвою країни.",
    "en": "Which country is this dish from: {dish}? Answer with the name of the country only.",
}
DISHES = {
    "ru": ["борщ", "пельмени", "блины", "плов", "шашлык", "каша", "суши", "паэлья"],
    "uk": ["борщ", "вареники", "млинці", "голубці", "сало", "каша", "піца", "паста"],
    "en": ["borscht", "dumplings", "pancakes", "pilaf", "kebab", "sushi", "pizza", "tacos"],
}


def log(message: str) -> None:
    print(f"[gpu-smoke {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def smoke_requests(n: int, max_tokens: int) -> list:
    """N distinct short chat requests, cycling ru/uk/en and the dishes; key = smoke-<i>."""
    from pipeline.backends import Message, Request

    langs = list(QUESTIONS)
    requests = []
    for i in range(n):
        lang = langs[i % len(langs)]
        dish = DISHES[lang][(i // len(langs)) % len(DISHES[lang])]
        text = f"{QUESTIONS[lang].format(dish=dish)} (#{i})"
        requests.append(Request(f"smoke-{i}", (Message("user", text),), max_tokens=max_tokens))
    return requests


def max_model_len_for(model: Path, wanted: int = 4096) -> int:
    """vLLM refuses a max_model_len above the model's max_position_embeddings (512 for the tiny model)."""
    config_file = model / "config.json"
    if not config_file.is_file():
        return wanted
    config = json.loads(config_file.read_text(encoding="utf-8"))
    limit = config.get("max_position_embeddings") or config.get("text_config", {}).get("max_position_embeddings")
    return min(wanted, int(limit)) if limit else wanted


def head_dim(model: Path) -> int | None:
    """Attention head size; vLLM's FlashAttention builds may reject sizes that are not multiples of 32."""
    config_file = model / "config.json"
    if not config_file.is_file():
        return None
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config = config.get("text_config", config)
    if config.get("head_dim"):
        return int(config["head_dim"])
    if config.get("hidden_size") and config.get("num_attention_heads"):
        return config["hidden_size"] // config["num_attention_heads"]
    return None


def build_model(out: Path) -> Path:
    """The tiny text model: through the CLI when it has `tiny-model`, else straight from Python."""
    if (out / "config.json").is_file():
        log(f"tiny model already at {out}")
        return out
    log(f"building the tiny text model in {out}")
    command = [sys.executable, "-m", "pipeline", "tiny-model", "--kind", "text", "--out", str(out)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0 or not (out / "config.json").is_file():
        log("CLI `tiny-model` unavailable or failed; building with pipeline.tiny.build.build_tiny_model")
        from pipeline.tiny.build import build_tiny_model

        build_tiny_model("text", out)
    return out


def run_backend(name: str, model: Path, n: int, max_tokens: int, settings: dict) -> dict:
    """In this (child) process: load, warm up on one request, then time the whole batch."""
    from pipeline.backends import create_backend

    started = time.perf_counter()
    backend = create_backend(name, str(model), **settings)
    requests = smoke_requests(n, max_tokens)
    log(f"{name}: warming up (engine load + one request)")
    list(backend.generate(requests[:1]))
    load_s = time.perf_counter() - started
    log(f"{name}: loaded in {load_s:.1f}s; generating {n} requests")
    started = time.perf_counter()
    responses = []
    for response in backend.generate(requests):
        responses.append(response)
        if len(responses) % max(1, n // 4) == 0:
            log(f"{name}: {len(responses)}/{n} done")
    seconds = time.perf_counter() - started
    backend.close()
    failed = [r for r in responses if r.error]
    return {
        "backend": name,
        "settings": settings,
        "requests": n,
        "responses": len(responses),
        "distinct_keys": len({r.key for r in responses}),
        "failed": len(failed),
        "first_error": failed[0].error if failed else None,
        "tokens_out": sum(r.tokens_out or 0 for r in responses),
        "tokens_known": all(r.tokens_out is not None for r in responses if not r.error),
        "seconds": seconds,
        "load_seconds": load_s,
        "answers": {r.key: r.text for r in responses},
    }


def problems(result: dict) -> list[str]:
    """What makes a backend's run a failure."""
    found = []
    if result["responses"] != result["requests"] or result["distinct_keys"] != result["requests"]:
        found.append(f"{result['responses']} responses ({result['distinct_keys']} keys) for {result['requests']}")
    if result["failed"]:
        found.append(f"{result['failed']} failed requests, first: {result['first_error']}")
    if result["tokens_out"] == 0 and result["tokens_known"]:
        found.append("no tokens generated")
    return found


def table(results: dict[str, dict]) -> str:
    """Side-by-side throughput and the vLLM/transformers ratio."""
    lines = [f"{'backend':<14}{'items':>8}{'seconds':>10}{'items/s':>12}{'tokens/s':>12}{'load s':>9}"]
    rates = {}
    for name, r in results.items():
        items = r["responses"] / r["seconds"] if r["seconds"] else 0.0
        tokens = r["tokens_out"] / r["seconds"] if r["seconds"] and r["tokens_known"] else None
        rates[name] = (items, tokens)
        shown = f"{tokens:>12,.0f}" if tokens is not None else f"{'n/a':>12}"
        lines.append(
            f"{name:<14}{r['responses']:>8}{r['seconds']:>10.2f}{items:>12,.1f}{shown}{r['load_seconds']:>9.1f}"
        )
    if "vllm" in rates and "transformers" in rates and rates["transformers"][0]:
        (vi, vt), (hi, ht) = rates["vllm"], rates["transformers"]
        ratio = f"ratio vLLM/transformers: items/s {vi / hi:.1f}x"
        if vt is not None and ht:
            ratio += f", tokens/s {vt / ht:.1f}x"
        lines.append(ratio)
        same = sum(results["vllm"]["answers"][k] == a for k, a in results["transformers"]["answers"].items())
        total = len(results["transformers"]["answers"])
        lines.append(f"identical answers (informational: dtypes and kernels differ): {same}/{total}")
    return "\n".join(lines)


def child(args: argparse.Namespace) -> int:
    settings = json.loads(args.settings)
    try:
        result = run_backend(args.child, Path(args.model), args.prompts, args.max_tokens, settings)
    except Exception as exc:
        traceback.print_exc()
        log(f"{args.child}: FAILED: {type(exc).__name__}: {exc}")
        return 1
    print(RESULT_PREFIX + json.dumps(result, ensure_ascii=False), flush=True)
    return 0


def backend_settings(name: str, model: Path, args: argparse.Namespace) -> dict:
    if name == "vllm":
        # bfloat16 on both sides: the transformers backend's "auto" on CUDA is bfloat16 too.
        base = {
            "max_model_len": max_model_len_for(model),
            "gpu_memory_utilization": args.gpu_memory_utilization,
            "dtype": "bfloat16",
        }
        return base | json.loads(args.vllm_settings)
    # A fair baseline: transformers batched 64 at a time (its default is 8).
    return {"device": "cuda", "batch_size": 64} | json.loads(args.hf_settings)


def parent(args: argparse.Namespace) -> int:
    overall = time.perf_counter()
    model = build_model(Path(args.model))
    size = head_dim(model)
    log(f"model {model}: head size {size}")
    if size is not None and size % 32 and not args.attention_backend:
        log(f"note: head size {size} is not a multiple of 32; if vLLM's FlashAttention refuses it, rerun with")
        log("      --attention-backend FLEX_ATTENTION (or TRITON_ATTN)")
    results: dict[str, dict] = {}
    failures: list[str] = []
    names = args.backends.split(",")
    if unknown := [name for name in names if name not in BACKENDS]:
        print(f"unknown backends {unknown}; known: {', '.join(BACKENDS)}", file=sys.stderr)
        return 2
    for name in names:
        settings = backend_settings(name, model, args)
        log(f"{name}: starting a child process, settings {settings}")
        command = [sys.executable, __file__, "--child", name, "--model", str(model), "--prompts", str(args.prompts)]
        command += ["--max-tokens", str(args.max_tokens), "--settings", json.dumps(settings)]
        env = dict(os.environ)
        if name == "vllm" and args.attention_backend:
            env["VLLM_ATTENTION_BACKEND"] = args.attention_backend
        try:
            # stderr (progress, vLLM's logs and tqdm bars) goes straight to ours; stdout carries the result.
            done = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, text=True, timeout=args.timeout, env=env)
        except subprocess.TimeoutExpired:
            failures.append(f"{name}: no result within {args.timeout}s")
            continue
        lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT_PREFIX)]
        if done.returncode != 0 or not lines:
            failures.append(f"{name}: exited {done.returncode} without a result")
            continue
        result = json.loads(lines[-1].removeprefix(RESULT_PREFIX))
        results[name] = result
        failures += [f"{name}: {problem}" for problem in problems(result)]
        log(f"{name}: {result['responses']} answers in {result['seconds']:.2f}s")
    if results:
        print(table(results), flush=True)
    log(f"total {time.perf_counter() - overall:.0f}s")
    for failure in failures:
        print(f"FAIL {failure}", flush=True)
    print("gpu smoke: " + ("FAILED" if failures else "OK"), flush=True)
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="/tmp/tiny-text", help="model folder (built if it has no config.json)")
    parser.add_argument("--prompts", type=int, default=512)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--timeout", type=int, default=420, help="seconds per backend")
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.5)
    parser.add_argument("--attention-backend", default="", help="VLLM_ATTENTION_BACKEND for the vLLM run")
    parser.add_argument("--vllm-settings", default="{}", help="JSON merged into the vLLM backend settings")
    parser.add_argument("--hf-settings", default="{}", help="JSON merged into the transformers backend settings")
    parser.add_argument("--child", choices=BACKENDS, help=argparse.SUPPRESS)
    parser.add_argument("--settings", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    return child(args) if args.child else parent(args)


if __name__ == "__main__":
    sys.exit(main())
