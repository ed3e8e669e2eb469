"""import-responses throughput: our columnar import vs a row-by-row INSERT baseline, side by side.

Both load the same real answer files into fresh warehouses that already hold the WorldCuisines
items; ours goes through `pipeline.answers.responses.import_file` (parse + validate + one transaction per
file), the baseline inserts the same generation rows with `executemany`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.answers.responses import generation_id, import_file, model_from_path
from pipeline.datasets import worldcuisines
from warehouse.db import Warehouse


def fresh_warehouse(root: Path, data: Path) -> Warehouse:
    wh = Warehouse(root / "warehouse.duckdb")
    with wh.writer() as con:
        worldcuisines.ingest(con, data / "worldcuisines", "bench")
    return wh


def ours(wh: Warehouse, files: list[Path]) -> int:
    with wh.writer() as con:
        return sum(len(import_file(con, path, "bench").accepted) for path in files)


def baseline(wh: Warehouse, files: list[Path]) -> int:
    rows = 0
    with wh.writer() as con:
        variants = dict(con.execute("SELECT source_ref, variant FROM core.items").fetchall())
        for path in files:
            model = model_from_path(path)
            con.execute("INSERT INTO core.models (model_id, display_name) VALUES (?, ?)", [model, model])
            batch = []
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                item_id = f"{worldcuisines.TASK_ID}:{record['qa_id']}"
                variant = variants[str(record["qa_id"])]
                batch.append(
                    [
                        generation_id(model, item_id, record["lang"], variant),
                        "bench",
                        model,
                        item_id,
                        record["lang"],
                        variant,
                        record["prediction"],
                        "import",
                    ]
                )
            con.execute("BEGIN TRANSACTION")
            con.executemany(
                "INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, response, "
                "origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                batch,
            )
            con.execute("COMMIT")
            rows += len(batch)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--files", type=int, default=2, help="how many answer files (15,000 lines each)")
    args = parser.parse_args()
    files = sorted((args.data / "worldcuisines" / "predictions").glob("*.jsonl"))[: args.files]
    results = {}
    for name, run in (("ours", ours), ("baseline (executemany)", baseline)):
        with tempfile.TemporaryDirectory() as tmp:
            wh = fresh_warehouse(Path(tmp), args.data)
            started = time.perf_counter()
            rows = run(wh, files)
            results[name] = (rows, time.perf_counter() - started)
    print(f"{'':24} {'lines':>8} {'seconds':>8} {'lines/s':>10}")
    for name, (rows, seconds) in results.items():
        print(f"{name:24} {rows:>8} {seconds:>8.2f} {rows / seconds:>10,.0f}")
    (ours_rows, ours_s), (_, base_s) = results["ours"], results["baseline (executemany)"]
    print(f"ratio: ours is {base_s / ours_s:.1f}x the baseline's speed ({ours_rows} lines)")


if __name__ == "__main__":
    main()
