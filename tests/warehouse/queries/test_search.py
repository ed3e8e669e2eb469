"""The Answers page's search on the real demo warehouse, against a naive scan of the core tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.warehouse import naive
from warehouse.queries import search
from warehouse.queries.answers import Filters
from warehouse.queries.search import AnswerSearch

ALL = Filters(dataset="worldcuisines", task="origin_vqa")


def naive_search(answers: list[naive.Answer], query: AnswerSearch) -> list[naive.Answer]:
    def keep(a: naive.Answer) -> bool:
        return (
            (not query.text or query.text.lower() in (a.response or "").lower())
            and (not query.dish_key or a.dish_key == query.dish_key)
            and (not query.gold or query.gold in a.gold)
            and (not query.named or query.named in a.countries)
            and (
                not query.result
                or (query.result == "right" and a.right)
                or (query.result == "wrong" and a.wrong)
                or (query.result == "no_country" and a.no_country)
            )
        )

    return [a for a in answers if keep(a)]


@pytest.mark.parametrize(
    ("filters", "query"),
    [
        (ALL, AnswerSearch(text="borscht")),
        (ALL, AnswerSearch(text="УКРАЇН")),  # any case, Cyrillic
        (ALL, AnswerSearch(text="100%")),  # % and _ are plain characters, not patterns
        (ALL, AnswerSearch(gold="UA", named="RU")),
        (ALL, AnswerSearch(gold="JP", result="wrong")),
        (Filters(ALL.dataset, ALL.task, ("gpt-4o-2024-08-06",), ("en",)), AnswerSearch(result="right")),
        (ALL, AnswerSearch(dish_key="worldcuisines:en:1223", result="no_country")),
    ],
    ids=["text", "cyrillic", "percent", "gold-named", "wrong", "one-model-one-lang-right", "dish-no-country"],
)
def test_search_finds_what_a_naive_scan_finds(
    real_warehouse: Path, naive_answers, filters: Filters, query: AnswerSearch
):
    expected = naive_search(naive.select(naive_answers, filters), query)
    found = search.answers(real_warehouse, filters, query, limit=100_000)
    assert len(found) == len(expected)
    if expected:
        assert (found["n_total"] == len(expected)).all()
        assert sorted(zip(found["model"], found["lang"], found["item_id"], strict=True)) == sorted(
            (a.model, a.lang, a.ref) for a in expected
        )
        assert found["dish_name"].notna().all()


def test_the_limit_keeps_the_total(real_warehouse: Path, naive_answers):
    found = search.answers(real_warehouse, ALL, AnswerSearch(gold="US"), limit=7)
    assert len(found) == 7
    assert found["n_total"].iloc[0] == len(naive_search(naive.select(naive_answers, ALL), AnswerSearch(gold="US")))
