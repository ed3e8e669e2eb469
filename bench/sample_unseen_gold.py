"""Draw the answers of tests/data/country_gold_unseen.tsv (issue 49): a fresh seeded draw of real
WorldCuisines task-2 answers, all 12 models in every one of the 30 prompt languages, on items not
labelled in that language by any earlier set (country_gold_real.tsv, country_gold_wide.tsv), made
*without* running the extractor, so the set says how it reads answers it was never tuned on.

One answer per (language, model) cell, 360 in all. In each language six models (rotating with the
language) give an answer drawn from all their answers, the other six from their answers of at least
40 characters: a uniform draw is ~85% one-word answers, and this keeps the split by length alone,
never by what the extractor finds. Answers over 1,200 characters are left out so that each can be
read whole when it is labelled. The drawn answers are then labelled by hand (the gold is the set of
countries the answer claims the dish is from) before the extractor is run on them.

Usage: .venv/bin/python bench/sample_unseen_gold.py [--data ../shared/data] [--out /tmp/unseen.draw.tsv]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.extract.evaluation import REAL_GOLD_COLUMNS, escape_answer, read_real_gold, task2_predictions

DATA_DIR = Path(__file__).resolve().parent.parent / "tests" / "data"
EARLIER_SETS = ("country_gold_real.tsv", "country_gold_wide.tsv")
SEED = 49
SENTENCE_CHARS = 40
MAX_CHARS = 1200  # as bench/sample_country_gold.py


def draw(data: Path) -> list[dict[str, str]]:
    labelled = {(item.id.split("/")[1], item.lang) for name in EARLIER_SETS for item in read_real_gold(DATA_DIR / name)}
    pools: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for model, record in task2_predictions(data):
        text = record.get("prediction")
        qa_id, lang = str(record["qa_id"]), record["lang"]
        if not isinstance(text, str) or len(text) > MAX_CHARS or (qa_id, lang) in labelled:
            continue
        pools[(lang, model)].append({"model": model, "qa_id": qa_id, "lang": lang, "answer": text})
    rng = random.Random(SEED)
    models = sorted({model for _, model in pools})
    rows = []
    for index, lang in enumerate(sorted({lang for lang, _ in pools})):
        for position, model in enumerate(models):
            pool = pools[(lang, model)]
            if (position + index) % 2:
                pool = [row for row in pool if len(row["answer"].strip()) >= SENTENCE_CHARS] or pool
            rows.append(rng.choice(pool))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DATA", "../shared/data")))
    parser.add_argument("--out", type=Path, default=Path("/tmp/unseen.draw.tsv"))
    args = parser.parse_args()
    rows = draw(args.data)
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("\t".join(REAL_GOLD_COLUMNS) + "\n")
        for row in rows:
            out.write("\t".join([row["model"], row["qa_id"], row["lang"], escape_answer(row["answer"]), ""]) + "\n")
    print(f"{len(rows)} answers drawn -> {args.out}")


if __name__ == "__main__":
    main()
