"""Draw the answers of tests/data/country_gold_wide.tsv: real WorldCuisines task-2 answers of all
12 models in every prompt language, stratified by what the country extractor of the day found
(none / one / several countries), so that the hard cases (missed names, long answers naming many
places) are not drowned by one-word answers. The drawn answers are then labelled by hand (the gold
is the set of countries the answer claims the dish is from): this script only draws them.

Why stratify by the extractor's own output: a uniform sample is ~85% one-word answers, which the
extractor already gets right, and would say little about where it fails.

Usage: .venv/bin/python bench/sample_country_gold.py [--data ../shared/data] [--per-stratum 14]
           [--out /tmp/country_gold_wide.draw.tsv]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.extract.countries import extract_countries
from pipeline.extract.evaluation import REAL_GOLD_COLUMNS, escape_answer, read_real_gold, task2_predictions

REAL_GOLD = Path(__file__).resolve().parent.parent / "tests" / "data" / "country_gold_real.tsv"
STRATA = ("none", "one", "several")
# Longer answers are rare (a few per cent, mostly llava paragraphs) and are kept out of the draw so
# that each answer can be read whole when it is labelled.
MAX_CHARS = 1200
SEED = 38


def stratum(countries: tuple[str, ...]) -> str:
    return STRATA[min(len(countries), 2)]


def draw(data: Path, per_stratum: int) -> list[dict[str, str]]:
    taken = {item.id for item in read_real_gold(REAL_GOLD)}
    pools: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for model, record in task2_predictions(data):
        text = record.get("prediction")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_CHARS:
            continue
        key = f"{model}/{record['qa_id']}/{record['lang']}"
        if key in taken:
            continue
        found = extract_countries(text, record["lang"]).countries
        pools[(record["lang"], stratum(found))].append(
            {"model": model, "qa_id": str(record["qa_id"]), "lang": record["lang"], "answer": text}
        )
    rng = random.Random(SEED)
    rows = []
    for lang in sorted({lang for lang, _ in pools}):
        short = 0
        for name in STRATA:
            pool = pools.get((lang, name), [])
            rng.shuffle(pool)
            # one model at a time, so every model is in every language's sample
            by_model: dict[str, list[dict[str, str]]] = defaultdict(list)
            for row in pool:
                by_model[row["model"]].append(row)
            picked: list[dict[str, str]] = []
            want = per_stratum + short
            while len(picked) < want and any(by_model.values()):
                for model in sorted(by_model):
                    if by_model[model] and len(picked) < want:
                        picked.append(by_model[model].pop())
            short = want - len(picked)  # a thin stratum's shortfall goes to the next one
            rows.extend({**row, "stratum": name} for row in picked)
        if short:  # "several" ran short: top up from "one"
            rest = [r for r in pools.get((lang, "one"), []) if {**r, "stratum": "one"} not in rows]
            rows.extend({**row, "stratum": "one"} for row in rest[:short])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DATA", "../shared/data")))
    parser.add_argument("--per-stratum", type=int, default=14)
    parser.add_argument("--out", type=Path, default=Path("/tmp/country_gold_wide.draw.tsv"))
    args = parser.parse_args()
    rows = draw(args.data, args.per_stratum)
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("\t".join([*REAL_GOLD_COLUMNS, "stratum"]) + "\n")
        for row in rows:
            values = [row["model"], row["qa_id"], row["lang"], escape_answer(row["answer"]), "", row["stratum"]]
            out.write("\t".join(values) + "\n")
    print(f"{len(rows)} answers drawn -> {args.out}")


if __name__ == "__main__":
    main()
