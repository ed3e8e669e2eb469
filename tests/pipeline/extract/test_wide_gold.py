"""Issue 38's labelled set: tests/data/country_gold_wide.tsv, 1,260 real answers of the 12 public
WorldCuisines models, 42 per prompt language (30 languages), drawn by bench/sample_country_gold.py
stratified by what the extractor of the day found (none / one / several countries) and labelled by hand
(gold = the countries the answer claims the dish is from). The floors below are the measured figures of
countries@7 (bench/countries.py --only wide prints the table): raise them when the extractor improves,
never lower them silently."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pipeline.extract.countries import extract_countries
from pipeline.extract.evaluation import REAL_GOLD_COLUMNS, evaluate, micro_f1, read_real_gold, written_predictions
from pipeline.reference.countries import is_iso_alpha2
from tests.helpers import REPO

WIDE_GOLD = REPO / "tests" / "data" / "country_gold_wide.tsv"
GOAL_MICRO_F1 = 0.97  # issue 38's goal
F1_GOAL = 0.90  # issue 38's goal per language
# countries@7, measured: micro F1 0.987 (P 0.981, R 0.993), every language at 0.962 or more (nan_spoken 0.962,
# sc 0.966, tl 0.968). Four labels were corrected with it (en 1983, ja_casual 2306, mr 2152, yue 2134; and three of
# country_gold_real.tsv: es 2158, id_formal 2104, su_loma 2156): answers that name places only as where a dish is
# popular had been labelled with no country, though the same answer in Arabic (1983/ar) was labelled with its list
# and issue 38 counts such a sentence dropped whole, when it alone names countries, as a miss.
# countries@6 (issue 35's question reading merged with issue 38's breadth) had 0.955, with en,
# hi, ru_casual and ru_formal at 0.80-0.88: it read a country list after a region or a claim short of a country
# ("variations found in countries such as Poland, Ukraine"; "популяризировано в странах…, таких как Китай") as spread.
# countries@7 drops spread countries only when the answer claims a country as origin.
MICRO_F1_FLOOR = 0.986
F1_FLOOR = 0.96  # per language, above the goal


def test_file_has_42_real_answers_in_each_of_30_languages_with_valid_labels() -> None:
    header = WIDE_GOLD.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header == [*REAL_GOLD_COLUMNS, "stratum"]
    gold = read_real_gold(WIDE_GOLD)
    per_lang = Counter(item.lang for item in gold)
    assert len(per_lang) == 30 and set(per_lang.values()) == {42}
    assert len({item.id for item in gold}) == len(gold)
    assert all(is_iso_alpha2(code) for item in gold for code in item.expected)
    models = {item.id.split("/")[0] for item in gold}
    assert len(models) == 12
    old = {item.id for item in read_real_gold(REPO / "tests" / "data" / "country_gold_real.tsv")}
    assert not old & {item.id for item in gold}  # a new sample, not the old set again


def test_every_answer_is_a_real_prediction_of_a_public_model(data_dir: Path) -> None:
    gold = read_real_gold(WIDE_GOLD)
    assert written_predictions(data_dir, gold) == {item.id: item.answer for item in gold}


def test_f1_meets_the_goal_overall_and_per_language() -> None:
    scores = evaluate(read_real_gold(WIDE_GOLD), lambda text, lang: (extract_countries(text, lang).countries, None))
    low = {lang: round(s.f1, 3) for lang, s in scores.items() if s.f1 < max(F1_FLOOR, F1_GOAL)}
    assert not low, low
    assert micro_f1(scores) >= max(MICRO_F1_FLOOR, GOAL_MICRO_F1)
