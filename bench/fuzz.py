"""The fuzz tests at volume (issue 51): every import format and dataset reader fed N generated and mutated files
each (the suite runs 15), fresh inputs every run; prints how many inputs each format was fed and what became of them
(`result`: imported or loaded, odd lines counted as quirks; `error`: one error naming the file, nothing written). A
failure is a traceback or a partial write, shown with the input hypothesis shrank it to.

    .venv/bin/python bench/fuzz.py --examples 500 [--data ../shared/data]

No baseline to compare with: the figure is the count of inputs that kept the rule (all of them, or the run fails).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODULES = ("tests/pipeline/answers/test_fuzz_imports.py", "tests/pipeline/datasets/test_fuzz_readers.py")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=500, help="inputs per format (default 500)")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DATA", REPO.parent / "shared" / "data")))
    parser.add_argument("-k", default=None, help="only the tests pytest -k selects")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.jsonl"
        env = {
            **os.environ,
            "DATA": str(args.data.resolve()),
            "DISH_ATLAS_FUZZ_EXAMPLES": str(args.examples),
            "DISH_ATLAS_FUZZ_REPORT": str(report),
        }
        command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *MODULES]
        if args.k:
            command += ["-k", args.k]
        status = subprocess.run(command, cwd=REPO, env=env).returncode
        rows = [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    print(f"\n{'format':<52} {'inputs':>7} {'result':>7} {'error':>7}")
    for row in rows:
        print(f"{row['format']:<52} {row['inputs']:>7} {row.get('result', 0):>7} {row.get('error', 0):>7}")
    print(f"{'all':<52} {sum(r['inputs'] for r in rows):>7}")
    return status


if __name__ == "__main__":
    sys.exit(main())
