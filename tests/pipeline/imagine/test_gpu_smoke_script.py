"""bench/gpu_imagine.py (run by bench/gpu_smoke.sh on a GPU) checked on CPU: its steps, sizes and
arithmetic run end to end with the tiny models; on a GPU only the device and the sizes change."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.helpers import REPO


def test_the_imagine_smoke_runs_on_cpu_at_a_small_size() -> None:
    done = subprocess.run(
        [sys.executable, "bench/gpu_imagine.py", "--device", "cpu", "--images", "3", "--size", "32", "--steps", "2",
         "--batch-size", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "imagine: 3 images of 32px, 2 steps" in done.stdout and "images/s (FluxPipeline)" in done.stdout
    assert "embed: 3 images" in done.stdout
    assert done.stdout.strip().endswith("gpu imagine: OK")


def test_the_smoke_script_runs_the_imagine_part() -> None:
    script = (REPO / "bench" / "gpu_smoke.sh").read_text(encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(REPO / "bench" / "gpu_smoke.sh")]).returncode == 0
    assert "bench/gpu_imagine.py ${IMAGINE_ARGS:-}" in script and "GPU_SMOKE_PARTS" in script


def test_without_cuda_the_gpu_run_fails_plainly() -> None:
    hidden = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}  # no GPU visible, even on a GPU machine
    done = subprocess.run(
        [sys.executable, "bench/gpu_imagine.py"], cwd=REPO, capture_output=True, text=True, timeout=120, env=hidden
    )
    assert done.returncode == 1 and "FAIL torch sees no CUDA device" in done.stdout
