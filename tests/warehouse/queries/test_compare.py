"""The Compare page's queries on the real demo warehouse, against a naive recount over the core tables
(tests/warehouse/naive.py): pairs, means, paired differences per language and per gold country, the
questions only one model gets right; and the paired bootstrap against plain index resampling."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from tests.warehouse import naive
from warehouse.queries import compare
from warehouse.queries.answers import Filters

ALL = Filters(dataset="worldcuisines", task="origin_vqa")
A, B = "gpt-4o-2024-08-06", "qwen-vl-2b"


def naive_pairs(
    naive_answers: tuple[naive.Answer, ...], filters: Filters, a: str, b: str
) -> dict[tuple[str, str], tuple]:
    """(item ref, prompt language) -> (answer of a, answer of b), for the questions both answered."""
    by_model: dict[str, dict[tuple[str, str], naive.Answer]] = {a: {}, b: {}}
    for answer in naive.select(naive_answers, Filters(filters.dataset, filters.task, (a, b), filters.langs)):
        key = (answer.ref, answer.lang)
        assert key not in by_model[answer.model], "one answer per model, question and language"
        by_model[answer.model][key] = answer
    common = by_model[a].keys() & by_model[b].keys()
    return {key: (by_model[a][key], by_model[b][key]) for key in common}


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


@pytest.mark.parametrize(
    "filters", [ALL, Filters(ALL.dataset, ALL.task, langs=("ru_formal", "ru_casual", "en"))], ids=["all", "three"]
)
def test_the_comparison_is_the_naive_recount(real_warehouse: Path, naive_answers, filters: Filters):
    pairs = naive_pairs(naive_answers, filters, A, B)
    result = compare.compare(real_warehouse, filters, A, B)
    assert len(result.pairs) == len(pairs) > 0
    overall = result.overall.iloc[0]
    diffs = [x.right - y.right for x, y in pairs.values()]
    assert overall["n"] == len(pairs)
    assert overall["a"] == pytest.approx(mean(x.right for x, _ in pairs.values()))
    assert overall["b"] == pytest.approx(mean(y.right for _, y in pairs.values()))
    assert overall["difference"] == pytest.approx(mean(diffs))
    assert overall["low"] <= overall["difference"] <= overall["high"]
    assert overall["only_a_right"] == sum(d == 1 for d in diffs)
    assert overall["only_b_right"] == sum(d == -1 for d in diffs)

    per_lang: dict[str, list[int]] = defaultdict(list)
    per_country: dict[str, list[int]] = defaultdict(list)
    for (_, lang), (x, y) in pairs.items():
        per_lang[lang].append(x.right - y.right)
        for country in x.gold:
            per_country[country].append(x.right - y.right)
    langs = result.languages.set_index("lang")
    assert set(langs.index) == set(per_lang)
    for lang, values in per_lang.items():
        assert langs.loc[lang, "n"] == len(values)
        assert langs.loc[lang, "difference"] == pytest.approx(mean(values))
        assert langs.loc[lang, "low"] <= langs.loc[lang, "difference"] <= langs.loc[lang, "high"]
    countries = compare.countries(real_warehouse, filters, A, B).set_index("country")
    assert set(countries.index) == set(per_country)
    for country, values in per_country.items():
        assert countries.loc[country, "n"] == len(values)
        assert countries.loc[country, "difference"] == pytest.approx(mean(values))
    assert countries.loc["JP", "name"] == "Japan"

    split = {(row.item_id, row.lang): row.right for row in result.split.itertuples()}
    assert split == {key: "A" if x.right else "B" for key, (x, y) in pairs.items() if x.right != y.right}


def test_jaccard_is_compared_the_same_way(real_warehouse: Path, naive_answers):
    pairs = naive_pairs(naive_answers, ALL, A, B)

    def jaccard(answer: naive.Answer) -> float:
        named, gold = set(answer.countries), answer.gold
        return len(named & gold) / len(named | gold) if named | gold else 0.0

    overall = compare.compare(real_warehouse, ALL, A, B, "jaccard").overall.iloc[0]
    assert overall["difference"] == pytest.approx(mean(jaccard(x) - jaccard(y) for x, y in pairs.values()))
    assert overall["low"] <= overall["difference"] <= overall["high"]


def test_models_without_common_questions_compare_nothing(real_warehouse: Path):
    result = compare.compare(real_warehouse, ALL, A, "no-such-model")
    assert result.pairs.empty and result.overall.empty and result.languages.empty and result.split.empty


def test_the_paired_bootstrap_is_seeded_and_matches_index_resampling():
    rng = np.random.default_rng(7)
    diffs = rng.choice([-1.0, 0.0, 1.0], p=[0.15, 0.6, 0.25], size=3_000)
    low, high = compare.paired_bootstrap(diffs)
    assert (low, high) == compare.paired_bootstrap(diffs)  # a republish or a rerun draws the same interval
    assert low < diffs.mean() < high
    # the multinomial draw is the same distribution as resampling pair indices with replacement
    means = diffs[rng.integers(0, diffs.size, size=(4_000, diffs.size))].mean(axis=1)
    brute_low, brute_high = np.percentile(means, [2.5, 97.5])
    assert low == pytest.approx(brute_low, abs=0.006) and high == pytest.approx(brute_high, abs=0.006)
    assert np.isnan(compare.paired_bootstrap(np.array([]))).all()
    assert compare.paired_bootstrap(np.zeros(50)) == (0.0, 0.0)
