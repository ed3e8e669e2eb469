"""Country extraction: accuracy, speed against natasha, and coverage of the real WorldCuisines data.

1. Precision / recall / F1 per language on the hand-written gold set (tests/data/country_gold.tsv),
   ours and natasha's Russian NER (LOC spans looked up in the same gazetteer) side by side; per prompt
   language on the real answers labelled by hand (`real`: tests/data/country_gold_real.tsv; `wide`:
   issue 38's tests/data/country_gold_wide.tsv, 42 answers per language drawn by
   bench/sample_country_gold.py; `unseen`: issue 49's tests/data/country_gold_unseen.tsv, 360 answers the
   extractor was never tuned on, drawn by bench/sample_unseen_gold.py), with every answer where extractor
   and label differ.
2. Answers per second, warm, one core, on the same 20,000 real Russian answers (the ru_formal and
   ru_casual predictions of the 12 WorldCuisines models, and every other answer written in Russian,
   cycled to 20,000), ours vs natasha; and (`speed_all`) ours over all 180,000 real task-2 answers in
   their 30 prompt languages. Wall-clock and CPU-time rates both: on a shared machine the CPU-time
   rate is the one that says what one core does.
3. Every WorldCuisines gold answer string in all 30 prompt languages -> the gold country? (misses
   listed), and the share of real predictions left `no_country`, per language.
4. Extraction time against answer length (10 KB -> 10 MB, one answer made of real answers joined)
   with the fitted log-log slope: 1.0 is linear time.

Usage: .venv/bin/python bench/countries.py [--data ../shared/data] [--natasha-answers 2000] [--only timing,...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from itertools import cycle, islice
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core for both systems
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.datasets import worldcuisines
from pipeline.extract.countries import extract_countries
from pipeline.extract.evaluation import case_forms, evaluate, read_gold, read_real_gold
from pipeline.extract.gazetteer import lookup
from pipeline.extract.switching import analyse

GOLD = Path(__file__).resolve().parent.parent / "tests" / "data" / "country_gold.tsv"
REAL_GOLD = GOLD.with_name("country_gold_real.tsv")
# Issue 38: 1,260 real answers, 42 per prompt language, drawn by bench/sample_country_gold.py
# (stratified by what the extractor found: none / one / several) and labelled by hand.
WIDE_GOLD = GOLD.with_name("country_gold_wide.tsv")
# Issue 49: 360 real answers, one per model and prompt language, on items no earlier set labelled in that
# language, drawn by bench/sample_unseen_gold.py without the extractor and labelled before it was run on them.
UNSEEN_GOLD = GOLD.with_name("country_gold_unseen.tsv")


class Natasha:
    """natasha's Russian NER; LOC spans are resolved with our gazetteer (the same names)."""

    def __init__(self) -> None:
        from natasha import Doc, NewsEmbedding, NewsNERTagger, Segmenter

        self.doc, self.segmenter = Doc, Segmenter()
        self.tagger = NewsNERTagger(NewsEmbedding())

    def countries(self, text: str) -> tuple[str, ...]:
        doc = self.doc(text)
        doc.segment(self.segmenter)
        doc.tag_ner(self.tagger)
        found = []
        for span in doc.spans:
            entry = lookup(span.text, "ru") if span.type == "LOC" else None
            if entry is not None and entry.country and entry.country not in found:
                found.append(entry.country)
        return tuple(found)


def accuracy(natasha: Natasha) -> None:
    gold = read_gold(GOLD)
    ours = evaluate(gold, lambda text, lang: (lambda r: (r.countries, r.status))(extract_countries(text, lang)))
    theirs = evaluate([g for g in gold if g.lang == "ru"], lambda text, lang: (natasha.countries(text), None))
    print("## Accuracy on tests/data/country_gold.tsv (micro P/R/F1 over country codes)\n")
    print(f"{'system':10} {'lang':5} {'answers':>8} {'P':>6} {'R':>6} {'F1':>6} {'status acc':>11}")
    for lang, scores in sorted(ours.items()):
        print(
            f"{'ours':10} {lang:5} {scores.answers:>8} {scores.precision:6.3f} {scores.recall:6.3f} "
            f"{scores.f1:6.3f} {scores.status_accuracy:11.3f}"
        )
    for lang, scores in theirs.items():
        print(
            f"{'natasha':10} {lang:5} {scores.answers:>8} {scores.precision:6.3f} {scores.recall:6.3f} "
            f"{scores.f1:6.3f} {'-':>11}"
        )
    print()


def real_accuracy(path: Path = REAL_GOLD) -> None:
    """Per prompt language on hand-labelled real answers (12 models, 30 languages)."""
    gold = read_real_gold(path)
    scores = evaluate(gold, lambda text, lang: (extract_countries(text, lang).countries, None))
    print(f"## Accuracy on tests/data/{path.name} (real answers, labelled by hand)\n")
    print(f"{'lang':18} {'answers':>8} {'TP':>4} {'FP':>4} {'FN':>4} {'P':>6} {'R':>6} {'F1':>6}")
    total = Counter()
    for lang, s in sorted(scores.items()):
        total.update(tp=s.true_positives, fp=s.false_positives, fn=s.false_negatives, n=s.answers)
        print(
            f"{lang:18} {s.answers:>8} {s.true_positives:>4} {s.false_positives:>4} {s.false_negatives:>4} "
            f"{s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f}"
        )
    p = total["tp"] / max(1, total["tp"] + total["fp"])
    r = total["tp"] / max(1, total["tp"] + total["fn"])
    print(
        f"{'all (micro)':18} {total['n']:>8} {total['tp']:>4} {total['fp']:>4} {total['fn']:>4} {p:6.3f} {r:6.3f} "
        f"{2 * p * r / (p + r):6.3f}"
    )
    errors = [(item, found) for s in scores.values() for item, found in s.errors]
    print(f"\n{len(errors)} answers where the extractor and the labels differ:")
    for item, found in errors:
        print(
            f"  {item.id:45} gold {','.join(item.expected) or '-':8} got {','.join(found) or '-':8} "
            f"{item.answer[:70]!r}"
        )
    print()


def case_coverage() -> None:
    """Share of the Russian and Ukrainian case forms of every CLDR country name that resolve."""
    print("## Russian and Ukrainian case forms of every country name (pymorphy3, per word) -> the country\n")
    for lang in ("ru", "uk"):
        forms = case_forms(lang)
        missed = [(form, code) for form, code in forms if extract_countries(form, lang).countries != (code,)]
        share = 1 - len(missed) / len(forms)
        print(f"{lang}: {len(forms) - len(missed)}/{len(forms)} resolved ({share:.2%}); missed: {missed[:12]}")
    print()


def russian_answers(data: Path, n: int) -> list[str]:
    answers = []
    for path in sorted((data / "worldcuisines" / "predictions").glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            text = record.get("prediction")
            if isinstance(text, str) and (record["lang"].startswith("ru") or analyse(text, "en").answer_lang == "ru"):
                answers.append(text)
    print(f"{len(answers):,} real Russian answers found; cycled to {n:,}\n")
    return list(islice(cycle(answers), n))


def speed(answers: list[str], natasha: Natasha, natasha_answers: int) -> None:
    extract_countries("Россия", "ru")  # warm: gazetteer and automaton built
    started, cpu = time.perf_counter(), time.process_time()
    for text in answers:
        extract_countries(text, "ru")
    ours = len(answers) / (time.perf_counter() - started)
    ours_cpu = len(answers) / (time.process_time() - cpu)
    sample = answers[:natasha_answers]
    natasha.countries("Россия")
    started = time.perf_counter()
    for text in sample:
        natasha.countries(text)
    theirs = len(sample) / (time.perf_counter() - started)
    print("## Speed, warm, one core (answers/s)\n")
    print(f"{'ours':10} {ours:>10,.0f}  ({len(answers):,} answers; {ours_cpu:,.0f}/s of CPU time)")
    print(f"{'natasha':10} {theirs:>10,.0f}  ({len(sample):,} of the same answers)")
    print(f"ratio: ours is {ours / theirs:.1f}x natasha\n")


def speed_all(data: Path) -> None:
    """Answers per second, warm, one core, over every real task-2 answer of the 12 models in all 30
    prompt languages (what the demo's score stage extracts), each with its own prompt language."""
    answers = []
    for path in sorted((data / "worldcuisines" / "predictions").glob("task2_oe_*.jsonl")):
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            answers.append((record.get("prediction"), record["lang"]))
    for lang in {lang for _, lang in answers}:
        extract_countries("Россия", lang)  # warm: every matcher built
    started, cpu = time.perf_counter(), time.process_time()
    for text, lang in answers:
        extract_countries(text if isinstance(text, str) else None, lang)
    rate = len(answers) / (time.perf_counter() - started)
    cpu_rate = len(answers) / (time.process_time() - cpu)
    print("## Speed, warm, one core, all 30 prompt languages (answers/s)\n")
    print(f"{'ours':10} {rate:>10,.0f}  ({len(answers):,} answers; {cpu_rate:,.0f}/s of CPU time)\n")


def coverage(data: Path) -> None:
    parsed, _ = worldcuisines.parse(data / "worldcuisines")
    gold_country = {g["item_id"]: g["country"] for g in parsed.gold}
    total, misses = Counter(), defaultdict(list)
    for row in parsed.gold_text:
        total[row["lang"]] += 1
        expected = gold_country[row["item_id"]]
        found = extract_countries(row["text"], row["lang"]).countries
        if found[:1] != (expected,):
            misses[row["lang"]].append((row["text"], expected, found))
    all_misses = sum(len(m) for m in misses.values())
    clean = sum(n for lang, n in total.items() if lang != "yue")
    clean_misses = sum(len(m) for lang, m in misses.items() if lang != "yue")
    print("## WorldCuisines gold answer strings -> gold country\n")
    print(
        f"resolved: {1 - all_misses / sum(total.values()):.2%} of {sum(total.values()):,} "
        f"({1 - clean_misses / clean:.2%} without yue, whose strings are misaligned in the data: see bench/README.md)"
    )
    for lang in sorted(total):
        examples = "; ".join(f"{t!r}->{f or '()'} (gold {e})" for t, e, f in misses[lang][:3])
        print(f"  {lang:18} {total[lang] - len(misses[lang]):>4}/{total[lang]}  {examples}")
    print()


def no_country_share(data: Path) -> None:
    counts: dict[str, Counter] = defaultdict(Counter)
    for path in sorted((data / "worldcuisines" / "predictions").glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            text = record.get("prediction") if isinstance(record.get("prediction"), str) else None
            counts[record["lang"]][extract_countries(text, record["lang"]).status] += 1
    print("## Real predictions (12 models) by extraction status, per prompt language\n")
    print(f"{'lang':18} {'answers':>8} {'ok':>7} {'no_country':>11} {'refusal':>8} {'empty':>6}")
    for lang, c in sorted(counts.items()):
        n = sum(c.values())
        print(
            f"{lang:18} {n:>8} {c['ok'] / n:7.1%} {c['no_country'] / n:11.1%} {c['refusal'] / n:8.1%} "
            f"{c['empty'] / n:6.1%}"
        )
    print()


TIMING_SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)


def timing(data: Path, lang: str = "en", longest: int = TIMING_SIZES[-1]) -> None:
    """One long answer made of real answers (as a model that never stops would write), cut to each
    size up to `longest` (issue 20: a 100 MB answer must finish: `--longest 100000000`); the slope of
    log(time) against log(length) is the growth order."""
    import numpy as np

    pieces = []
    for path in sorted((data / "worldcuisines" / "predictions").glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            if record.get("lang") == lang and isinstance(record.get("prediction"), str):
                pieces.append(record["prediction"])
    if not pieces:
        pieces = ["Borscht is not from Russia; it is popular in Poland, but it comes from Ukraine."]
    corpus = " ".join(pieces)
    sizes_asked = [size for size in TIMING_SIZES if size < longest] + [longest]
    corpus = (corpus + " ") * (longest // len(corpus) + 1)
    extract_countries("Россия", lang)  # warm
    print(f"## Extraction time against answer length ({lang}, one answer of real {lang} answers joined)\n")
    print(f"{'chars':>12} {'seconds':>9} {'MB/s':>7} {'mentions':>9}")
    sizes, seconds = [], []
    for size in sizes_asked:
        text = corpus[:size]
        started = time.perf_counter()
        result = extract_countries(text, lang)
        elapsed = time.perf_counter() - started
        sizes.append(size)
        seconds.append(elapsed)
        print(f"{size:>12,} {elapsed:9.3f} {size / elapsed / 1e6:7.2f} {len(result.spans):>9,}")
    slope = float(np.polyfit(np.log10(sizes), np.log10(seconds), 1)[0])
    print(f"\nfitted slope of log(time) vs log(length): {slope:.2f} (1.0 = linear, 2.0 = quadratic)\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DATA", "../shared/data")))
    parser.add_argument("--answers", type=int, default=20_000)
    parser.add_argument("--natasha-answers", type=int, default=2_000, help="natasha is slow: time it on a prefix")
    parser.add_argument(
        "--only",
        default="accuracy,real,wide,unseen,cases,speed,speed_all,coverage,no_country,timing",
        help="comma-separated sections: accuracy, real, wide, unseen, cases, speed, speed_all, coverage, no_country, "
        "timing",
    )
    parser.add_argument(
        "--longest", type=int, default=TIMING_SIZES[-1], help="timing: the longest answer in characters"
    )
    args = parser.parse_args()
    sections = set(args.only.split(","))
    natasha = Natasha() if sections & {"accuracy", "speed"} else None
    if "accuracy" in sections:
        accuracy(natasha)
    if "real" in sections:
        real_accuracy()
    if "wide" in sections:
        real_accuracy(WIDE_GOLD)
    if "unseen" in sections:
        real_accuracy(UNSEEN_GOLD)
    if "cases" in sections:
        case_coverage()
    if "speed" in sections:
        speed(russian_answers(args.data, args.answers), natasha, args.natasha_answers)
    if "speed_all" in sections:
        speed_all(args.data)
    if "coverage" in sections:
        coverage(args.data)
    if "no_country" in sections:
        no_country_share(args.data)
    if "timing" in sections:
        timing(args.data, longest=args.longest)


if __name__ == "__main__":
    main()
