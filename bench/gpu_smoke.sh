#!/usr/bin/env bash
# GPU smoke test: vLLM vs transformers on the tiny text model, side by side (see bench/gpu_smoke.py),
# then the imagine steps at real size: text-to-image and [CLS] embedding images/s (bench/gpu_imagine.py),
# then fine-tuning on the GPU: a SIGKILL mid-run resumed, loss down, the tuned model answering (bench/gpu_finetune.py).
#
#   bench/gpu_smoke.sh                    # 512 prompts, 32 new tokens each; 8 images of 1024 px, 28 steps
#   bench/gpu_smoke.sh --prompts 2048     # any gpu_smoke.py option passes through
#   GPU_SMOKE_PARTS=imagine bench/gpu_smoke.sh                 # only the imagine part (no vLLM needed)
#   GPU_SMOKE_PARTS=finetune FINETUNE_ARGS="--method lora" bench/gpu_smoke.sh    # only fine-tuning (no vLLM)
#   IMAGINE_ARGS="--generator black-forest-labs/FLUX.1-dev --encoder facebook/dinov2-giant" bench/gpu_smoke.sh
#
# Python: $PYTHON if set; else the active virtualenv; else ./.venv-gpu (created with access to the
# system site-packages, where GPU images usually ship torch). requirements-gpu.txt (vLLM and the
# pipeline's requirements) is installed only when vllm cannot be imported. Exits non-zero on any
# failure. Needs a CUDA GPU; a few minutes on one H200.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[gpu-smoke %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ -n "${PYTHON:-}" ]]; then
    py="$PYTHON"
elif [[ -n "${VIRTUAL_ENV:-}" ]]; then
    py="$VIRTUAL_ENV/bin/python"
else
    if [[ ! -x .venv-gpu/bin/python ]]; then
        say "creating .venv-gpu"
        python3 -m venv --system-site-packages .venv-gpu
    fi
    py=.venv-gpu/bin/python
fi
say "python: $py ($("$py" --version 2>&1))"

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >&2; then
    say "FAIL: no NVIDIA GPU visible (nvidia-smi)"
    exit 1
fi

parts="${GPU_SMOKE_PARTS:-text imagine finetune}"
if [[ " $parts " != *" text "* ]]; then
    status=0
    if [[ " $parts " == *" imagine "* ]]; then
        say "imagine part"
        # shellcheck disable=SC2086  # IMAGINE_ARGS is a list of options
        "$py" bench/gpu_imagine.py ${IMAGINE_ARGS:-} || status=$?
    fi
    if [[ " $parts " == *" finetune "* ]]; then
        say "finetune part"
        # shellcheck disable=SC2086  # FINETUNE_ARGS is a list of options
        "$py" bench/gpu_finetune.py ${FINETUNE_ARGS:-} || status=$?
    fi
    exit "$status"
fi

if ! "$py" -c "import vllm" 2>/dev/null; then
    say "vllm is not importable: installing requirements-gpu.txt (several GB of CUDA wheels)"
    if ! "$py" -m pip install -r requirements-gpu.txt >&2; then
        say "FAIL: could not install requirements-gpu.txt (no network? install vllm into this python first)"
        exit 1
    fi
fi
say "vllm $("$py" -c 'import vllm; print(vllm.__version__)'), torch $("$py" -c 'import torch; print(torch.__version__, torch.cuda.is_available())')"

status=0
"$py" bench/gpu_smoke.py "$@" || status=$?
if [[ " $parts " == *" imagine "* ]]; then
    say "imagine steps at real size"
    # shellcheck disable=SC2086  # IMAGINE_ARGS is a list of options
    "$py" bench/gpu_imagine.py ${IMAGINE_ARGS:-} || status=$?
fi
if [[ " $parts " == *" finetune "* ]]; then
    say "fine-tuning: kill, resume, before/after"
    # shellcheck disable=SC2086  # FINETUNE_ARGS is a list of options
    "$py" bench/gpu_finetune.py ${FINETUNE_ARGS:-} || status=$?
fi
exit "$status"
