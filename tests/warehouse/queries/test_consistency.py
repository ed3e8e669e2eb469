"""The Consistency page's queries on the real demo warehouse, against a naive recount over the core
tables: per model and question, the sets of countries its answers name across prompt languages."""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path

import pytest

from tests.warehouse import naive
from warehouse.queries import consistency
from warehouse.queries.answers import Filters

ALL = Filters(dataset="worldcuisines", task="origin_vqa")
FEW = Filters(ALL.dataset, ALL.task, langs=("en", "ru_formal", "ru_casual", "ja_casual"))
MODEL = "gpt-4o-2024-08-06"


def naive_items(naive_answers: tuple[naive.Answer, ...], filters: Filters) -> dict[tuple[str, str], dict]:
    """(model, item ref) -> pair agreement (counted pair by pair), modal share, sets, accuracy."""
    sets: dict[tuple[str, str], list[tuple[str, frozenset]]] = defaultdict(list)
    right: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for answer in naive.select(naive_answers, filters):
        sets[(answer.model, answer.ref)].append((answer.lang, frozenset(answer.countries)))
        right[(answer.model, answer.ref)].append(answer.right)
    items = {}
    for key, answers in sets.items():
        if len(answers) < 2:
            continue
        pairs = list(combinations([named for _, named in answers], 2))
        counts = Counter(named for _, named in answers)
        items[key] = {
            "pair_agreement": sum(x == y for x, y in pairs) / len(pairs),
            "modal_share": max(counts.values()) / len(answers),
            "n_sets": len(counts),
            "n_langs": len(answers),
            "accuracy": sum(right[key]) / len(right[key]),
            "modal": {",".join(sorted(s)) for s, c in counts.items() if c == max(counts.values())},
        }
    return items


@pytest.mark.parametrize("filters", [ALL, FEW], ids=["all-languages", "four-languages"])
def test_per_model_agreement_is_the_recount(real_warehouse: Path, naive_answers, filters: Filters):
    expected = naive_items(naive_answers, filters)
    frame = consistency.by_model(real_warehouse, filters).set_index("model")
    models = {model for model, _ in expected}
    assert set(frame.index) == models and len(models) == 12
    for model in models:
        items = [v for (m, _), v in expected.items() if m == model]
        assert frame.loc[model, "n_items"] == len(items)
        assert frame.loc[model, "pair_agreement"] == pytest.approx(sum(i["pair_agreement"] for i in items) / len(items))
        assert frame.loc[model, "modal_share"] == pytest.approx(sum(i["modal_share"] for i in items) / len(items))
        assert frame.loc[model, "all_agree"] == pytest.approx(sum(i["n_sets"] == 1 for i in items) / len(items))
    assert list(frame["pair_agreement"]) == sorted(frame["pair_agreement"], reverse=True)


def test_the_questions_that_flip_most_come_first(real_warehouse: Path, naive_answers):
    expected = {ref: v for (model, ref), v in naive_items(naive_answers, ALL).items() if model == MODEL}
    frame = consistency.items(real_warehouse, ALL, MODEL)
    assert set(frame["item_id"]) == set(expected) and len(frame) == len(expected)
    for row in frame.itertuples():
        item = expected[row.item_id]
        assert row.pair_agreement == pytest.approx(item["pair_agreement"])
        assert row.n_sets == item["n_sets"] and row.n_langs == item["n_langs"] == 30
        assert row.modal_set in item["modal"]
        assert row.accuracy == pytest.approx(item["accuracy"])
        assert sum(int(part.rsplit("×", 1)[1]) for part in row.answer_sets.split(" · ")) == row.n_langs
    assert list(frame["pair_agreement"]) == sorted(frame["pair_agreement"])
    assert frame["dish_name"].notna().all()
    assert len(consistency.items(real_warehouse, ALL, MODEL, limit=10)) == 10


def test_per_language_agreement_with_the_modal_answer(real_warehouse: Path, naive_answers):
    frame = consistency.by_language(real_warehouse, FEW, MODEL).set_index("lang")
    expected = naive_items(naive_answers, FEW)
    agree: dict[str, list[bool]] = defaultdict(list)
    for answer in naive.select(naive_answers, Filters(FEW.dataset, FEW.task, (MODEL,), FEW.langs)):
        item = expected[(MODEL, answer.ref)]
        if len(item["modal"]) == 1:  # the mart breaks ties by the set's text; count only untied questions
            agree[answer.lang].append(",".join(sorted(answer.countries)) in item["modal"])
    assert set(frame.index) == set(FEW.langs)
    for lang, values in agree.items():
        assert frame.loc[lang, "n_items"] == 500
        tied = 500 - len(values)
        # each tied question can move the share by at most 1/500
        assert abs(frame.loc[lang, "agrees"] - sum(values) / 500) <= tied / 500 + 1e-9
