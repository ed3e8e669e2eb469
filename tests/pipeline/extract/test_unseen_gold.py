"""Issue 49's labelled set: tests/data/country_gold_unseen.tsv, 360 real answers of the 12 public WorldCuisines
models, one per model and prompt language, on items no earlier set labelled in that language, drawn by
bench/sample_unseen_gold.py without running the extractor and labelled by hand before it was run on them (the
labelled file was committed first). It stands for the answers the extractor was never tuned on: measured once
before any change (countries@7: micro F1 0.989, P 0.996, R 0.983, lowest languages az, cs, hi, mr, su_loma at
0.923-0.933), then kept apart from the sets rules are written against. bench/countries.py --only unseen prints it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pipeline.extract.countries import extract_countries
from pipeline.extract.evaluation import REAL_GOLD_COLUMNS, evaluate, micro_f1, read_real_gold, written_predictions
from pipeline.reference.countries import is_iso_alpha2
from tests.helpers import REPO

UNSEEN_GOLD = REPO / "tests" / "data" / "country_gold_unseen.tsv"
GOAL_MICRO_F1 = 0.97  # issue 49's goal
GOAL_F1 = 0.90  # per language
# countries@8, measured: micro F1 0.994 (P 1.000, R 0.987), every language at 0.933 or more (cs, hi, su_loma: the
# town Napajedla, यूके for the UK, the village Tampaksiring). Raise the floors when the extractor improves, never
# lower them silently.
MICRO_F1_FLOOR = 0.99
F1_FLOOR = 0.93


def test_file_has_one_answer_per_model_and_language_on_items_not_labelled_before() -> None:
    header = UNSEEN_GOLD.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header == REAL_GOLD_COLUMNS
    gold = read_real_gold(UNSEEN_GOLD)
    cells = Counter((item.id.split("/")[0], item.lang) for item in gold)
    assert len(gold) == 360 and len(cells) == 360  # 12 models x 30 languages, one each
    assert all(is_iso_alpha2(code) for item in gold for code in item.expected)
    earlier = {
        (item.id.split("/")[1], item.lang)
        for name in ("country_gold_real.tsv", "country_gold_wide.tsv")
        for item in read_real_gold(REPO / "tests" / "data" / name)
    }
    assert not earlier & {(item.id.split("/")[1], item.lang) for item in gold}


def test_every_answer_is_a_real_prediction_of_a_public_model(data_dir: Path) -> None:
    gold = read_real_gold(UNSEEN_GOLD)
    assert written_predictions(data_dir, gold) == {item.id: item.answer for item in gold}


def test_f1_meets_the_goal_overall_and_per_language() -> None:
    scores = evaluate(read_real_gold(UNSEEN_GOLD), lambda text, lang: (extract_countries(text, lang).countries, None))
    low = {lang: round(s.f1, 3) for lang, s in scores.items() if s.f1 < max(F1_FLOOR, GOAL_F1)}
    assert not low, low
    assert micro_f1(scores) >= max(MICRO_F1_FLOOR, GOAL_MICRO_F1)
