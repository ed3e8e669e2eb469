"""Fine-tuning on a GPU through the pipeline's own trainer (pipeline/finetune/train.py): a toy set of
dish -> country questions, trained with a recipe's settings (bf16 mixed precision on CUDA), killed with
SIGKILL after its second checkpoint and run again (it must resume from a checkpoint), then the tuned folder
loaded by the transformers backend and asked the questions, before/after answers side by side.

With no --model the tiny random text model (pipeline/tiny/language.py) is built: the real code path and GPU
transfers, no download. Checks: the rerun resumed, the mean loss of the last epoch is below the first's,
every epoch folder loads and answers every question. Prints one line per phase and `gpu finetune: OK|FAILED`;
exits non-zero on any failure.

    python bench/gpu_finetune.py                              # CUDA, tiny model, zno_paligemma, lr 1e-3
    python bench/gpu_finetune.py --device cpu --epochs 4      # the CPU check (tests)
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DISHES = {
    "borscht": "Ukraine", "pelmeni": "Russia", "pierogi": "Poland", "khachapuri": "Georgia", "plov": "Uzbekistan",
    "sushi": "Japan", "pizza": "Italy", "paella": "Spain", "tacos": "Mexico", "kimchi": "Korea", "curry": "India",
    "goulash": "Hungary", "moussaka": "Greece", "baklava": "Turkey", "feijoada": "Brazil", "ceviche": "Peru",
}  # fmt: skip
QUESTION = "Which country is this dish from: {dish}? Answer with the name of the country only."


def log(message: str) -> None:
    print(f"[gpu-finetune {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def examples() -> list:
    from pipeline.backends.base import Message
    from pipeline.finetune.data import Example

    return [
        Example(f"toy:{dish}", "toy", "en", "1", (Message("user", QUESTION.format(dish=dish)),), (), country,
                position=index)
        for index, (dish, country) in enumerate(DISHES.items())
    ]  # fmt: skip


def hyperparameters(args: argparse.Namespace) -> dict:
    from pipeline.finetune.recipes import RECIPES

    return RECIPES.get(args.recipe).hyperparameters(
        learning_rate=args.learning_rate, epochs=(args.epochs,), save_steps=args.save_steps, method=args.method
    )


def child(args: argparse.Namespace) -> int:
    """Train (or resume) in this process; each line the trainer says goes to stdout for the parent."""
    from pipeline.finetune.train import train

    result = train(args.model, Path(args.out), examples(), hyperparameters(args), device=args.device,
                   say=lambda line: print(line, flush=True))  # fmt: skip
    print("RESULT " + json.dumps({"resumed_from": result.resumed_from, "steps": result.steps,
                                  "losses": result.losses, "seconds": result.seconds}), flush=True)  # fmt: skip
    return 0


def ask(model: str, device: str) -> dict[str, str]:
    from pipeline.backends import Message, Request, create_backend

    backend = create_backend("transformers", model, device=device, batch_size=16)
    requests = [Request(dish, (Message("user", QUESTION.format(dish=dish)),), max_tokens=8) for dish in DISHES]
    answers = {r.key: (r.text or "") for r in backend.generate(requests) if not r.error}
    backend.close()
    return answers


def parent(args: argparse.Namespace) -> int:
    import torch

    failures: list[str] = []
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("FAIL torch sees no CUDA device\ngpu finetune: FAILED", flush=True)
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="gpu-finetune-"))
    if not args.model:
        from pipeline.tiny.build import build_tiny_model

        args.model = str(build_tiny_model("text", scratch / "tiny-text"))
    args.out = str(scratch / "tuned")
    command = [sys.executable, __file__, "--child", "--model", args.model, "--out", args.out, "--device", args.device,
               "--recipe", args.recipe, "--epochs", str(args.epochs), "--save-steps", str(args.save_steps),
               "--method", args.method]  # fmt: skip
    command += ["--learning-rate", str(args.learning_rate)] if args.learning_rate else []
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
    killed = False
    for line in process.stdout:
        if line.startswith("checkpoint ") and int(line.split()[1]) >= 2 * args.save_steps:
            process.send_signal(signal.SIGKILL)
            killed = True
            break
    process.wait(timeout=args.timeout)
    log(f"first run {'killed after ' + line.strip() if killed else 'ended before the kill'}")
    done = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, text=True, timeout=args.timeout)
    results = [json.loads(x[7:]) for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    if done.returncode != 0 or not results:
        print(f"FAIL the rerun exited {done.returncode} without a result\ngpu finetune: FAILED", flush=True)
        return 1
    result = results[-1]
    losses = result["losses"]
    first = [loss for _, epoch, loss in losses if epoch <= 1]
    last = [loss for _, epoch, loss in losses if epoch > args.epochs - 1]
    print(f"train: {result['steps']} steps, resumed from {result['resumed_from']}, "
          f"{time.perf_counter() - started:.1f}s in all; loss first epoch {sum(first) / len(first):.4f}, "
          f"last epoch {sum(last) / len(last):.4f}", flush=True)  # fmt: skip
    if killed and not result["resumed_from"]:
        failures.append("the rerun did not resume from a checkpoint")
    if not sum(last) / len(last) < sum(first) / len(first):
        failures.append("the loss did not go down")
    tuned = str(Path(args.out) / f"epoch-{args.epochs}")
    before, after = ask(args.model, args.device), ask(tuned, args.device)
    for dish in list(DISHES)[:4]:
        print(f"  {dish}: {DISHES[dish]!r} | before {before.get(dish)!r} | after {after.get(dish)!r}", flush=True)
    if len(after) != len(DISHES):
        failures.append(f"the tuned model answered {len(after)} of {len(DISHES)} questions")
    for failure in failures:
        print(f"FAIL {failure}", flush=True)
    print("gpu finetune: " + ("FAILED" if failures else "OK"), flush=True)
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="", help="base model folder (default: build the tiny text model)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--recipe", default="zno_paligemma")
    parser.add_argument("--learning-rate", type=float, default=1e-3, help="0: the recipe's own (2e-5)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--save-steps", type=int, default=2)
    parser.add_argument("--method", default="full", help="full | lora")
    parser.add_argument("--timeout", type=int, default=420)
    parser.add_argument("--out", default="", help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.learning_rate = args.learning_rate or None
    return child(args) if args.child else parent(args)


if __name__ == "__main__":
    sys.exit(main())
