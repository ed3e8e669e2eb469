"""warehouse/queries/about_dish.py on the real demo warehouse: one dish across its linked records,
the answers asked about it, and the real answers about other dishes that name or mention it, each
against a naive recount over the tables."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tests.helpers import query
from warehouse.queries import about_dish

BORSCHT = ("borsch:ru:241", "borsch:ru:679", "borsch:uk:422", "worldcuisines:en:1191")


def test_a_dish_is_its_record_and_every_record_linked_to_it(real_warehouse: Path):
    for key in BORSCHT:  # from any record, through BORSch's RU<->UK pair and the WorldCuisines link
        assert tuple(about_dish.group(real_warehouse, key)) == BORSCHT


def test_no_question_was_asked_about_borscht_but_about_vinegret(real_warehouse: Path):
    assert about_dish.asked(real_warehouse, BORSCHT).empty
    vinegret = about_dish.group(real_warehouse, "borsch:uk:543")
    asked = about_dish.asked(real_warehouse, vinegret)
    assert dict(zip(asked["dish_key"], asked["n"], strict=True)) == {"worldcuisines:en:1198": 360}


def test_answers_that_named_borscht_for_another_dish(real_warehouse: Path):
    named = about_dish.named_it(real_warehouse, BORSCHT)
    [(expected,)] = query(
        real_warehouse,
        "SELECT count(*) FROM marts.name_scores WHERE list_contains(?, named_dish_key) "
        "AND NOT list_contains(?, dish_key)",
        [list(BORSCHT), list(BORSCHT)],
    )
    assert len(named) == expected > 100
    assert not set(named["asked_dish_key"]) & set(BORSCHT)
    assert named["asked_about"].value_counts().index[0] == "Ukha"


def test_mention_pattern_finds_whole_names_in_any_script_with_case_endings():
    pattern = about_dish.mention_pattern(["Борщ", "Borscht", "ボルシチ", "Pho"])
    assert pattern is not None

    def found(text: str) -> bool:  # as the query runs it: DuckDB's RE2
        return duckdb.execute("SELECT regexp_matches(?, ?)", [text, pattern]).fetchone()[0]

    for text in ("Это борщ.", "Подают с борщом", "BORSCHT!", "It is borscht, a soup", "これはボルシチです"):
        assert found(text), text
    for text in ("Borschtsuppe", "Anborscht", "Pho is Vietnamese", "борщевиками"):
        assert not found(text), text  # inside a longer word, or a name under four letters
    assert about_dish.mention_pattern(["Pho", "Эба"]) is None


def test_answers_about_other_dishes_that_mention_borscht(real_warehouse: Path):
    mentioned = about_dish.mentioned_it(real_warehouse, BORSCHT)
    assert len(mentioned) == int(mentioned["n_total"].iloc[0]) > 10
    assert not set(mentioned["asked_dish_key"]) & set(BORSCHT)
    names = [" ".join(name.casefold().split()) for name in about_dish.names(real_warehouse, BORSCHT)]
    assert all(any(name in " ".join(text.casefold().split()) for name in names) for text in mentioned["response"])
    # every answer naming "borscht" as a word in English is among them
    english = query(
        real_warehouse,
        "SELECT generation_id FROM marts.origin_scores WHERE regexp_matches(response, '(?i)\\bborscht\\b') "
        "AND NOT list_contains(?, dish_key)",
        [list(BORSCHT)],
    )
    assert {g for (g,) in english} <= set(mentioned["generation_id"])


def test_nearest_dishes_with_answers_share_a_name_or_a_category_and_origin(real_warehouse: Path):
    nearest = about_dish.nearest(real_warehouse, BORSCHT)
    assert not set(nearest["dish_key"]) & set(BORSCHT)
    assert (nearest["n_answers"] > 0).all()
    by_name = nearest[nearest["rank"] == 1]
    assert {"borsch:uk:668", "borsch:ru:1139"} <= set(by_name["dish_key"])  # Зелений борщ, Зеленый борщ
    by_kind = nearest[nearest["rank"] == 2]
    assert "worldcuisines:en:1194" in set(by_kind["dish_key"])  # Ukha: a soup, from Russia
    assert all(relation.startswith("same category (soup)") for relation in by_kind["relation"])
    assert list(nearest["rank"]) == sorted(nearest["rank"])
