"""The extractor against real answers of the 12 public WorldCuisines models, labelled by hand
(tests/data/country_gold_real.tsv: 21 answers per prompt language, sampled at random with a fixed
seed, and a second sample of 21 for az and id_formal, the two languages below the goal then, drawn
with seed 20261201 from the answers not yet labelled), and against every Russian and Ukrainian case
form of every country name."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from pipeline.extract.countries import extract_countries
from pipeline.extract.evaluation import REAL_GOLD_COLUMNS, case_forms, evaluate, read_real_gold
from pipeline.reference.countries import is_iso_alpha2
from tests.helpers import REPO

REAL_GOLD = REPO / "tests" / "data" / "country_gold_real.tsv"
# The floor reached per language with >= 20 labelled answers (bench/countries.py --only real prints
# the table); raise it when the extractor improves, never lower it silently.
F1_FLOOR = 0.97  # issue 18's goal, met in every language since countries@4
MICRO_F1_FLOOR = 0.99


def test_file_has_600_real_answers_in_20_languages_with_valid_labels() -> None:
    header = REAL_GOLD.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header == REAL_GOLD_COLUMNS
    gold = read_real_gold(REAL_GOLD)
    per_lang = Counter(item.lang for item in gold)
    assert len(gold) >= 600
    assert sum(1 for n in per_lang.values() if n >= 20) >= 20
    assert len({item.id for item in gold}) == len(gold)
    assert all(is_iso_alpha2(code) for item in gold for code in item.expected)


def test_every_answer_is_a_real_prediction_of_a_public_model(data_dir: Path) -> None:
    predictions = {}
    for path in (data_dir / "worldcuisines" / "predictions").glob("task2_oe_*.jsonl"):
        model = path.stem.removeprefix("task2_oe_")
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            predictions[model, str(record["qa_id"]), record["lang"]] = record.get("prediction")
    for item in read_real_gold(REAL_GOLD):
        model, qa_id, lang = item.id.split("/")
        written = predictions[model, qa_id, lang]
        assert written.replace("\r", "").replace("\t", " ") == item.answer, item.id


def test_f1_per_language_meets_the_pinned_floor() -> None:
    gold = read_real_gold(REAL_GOLD)
    scores = evaluate(gold, lambda text, lang: (extract_countries(text, lang).countries, None))
    low = {lang: round(s.f1, 3) for lang, s in scores.items() if s.answers >= 20 and s.f1 < F1_FLOOR}
    assert not low, low
    tp = sum(s.true_positives for s in scores.values())
    fp = sum(s.false_positives for s in scores.values())
    fn = sum(s.false_negatives for s in scores.values())
    assert 2 * tp / (2 * tp + fp + fn) >= MICRO_F1_FLOOR


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_995_percent_of_case_forms_of_every_country_name_resolve(lang: str) -> None:
    forms = case_forms(lang)
    missed = [(form, code) for form, code in forms if extract_countries(form, lang).countries != (code,)]
    print(f"{lang}: {len(forms) - len(missed)}/{len(forms)} case forms resolved")
    assert len(forms) > 900
    assert len(missed) / len(forms) <= 0.005, missed[:20]
