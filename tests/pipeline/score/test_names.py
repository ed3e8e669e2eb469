"""Dish-name scoring: the four benchmarks' rules, which name matched, which dish was named."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.core.text import norm_name
from pipeline.extract.dish_names import extract_dish_names
from pipeline.score.culturemix import FOOD_THRESHOLD, food_similarity
from pipeline.score.metrics import get_metric, paper_substring
from pipeline.score.names import (
    SIMILARITY_THRESHOLD,
    AcceptedName,
    NameAnswer,
    NameGold,
    NameIndex,
    score_name,
    stems,
)
from tests.helpers import query, run_cli

BORSCHT = NameGold((AcceptedName("Борщ", "ru"), AcceptedName("Borscht", "en")), paper="Borscht")


def scored(text: str, lang: str = "ru_formal", gold: NameGold = BORSCHT):
    return score_name(NameAnswer(text, extract_dish_names(text, lang).names, lang), gold)


@pytest.mark.parametrize(
    ("answer", "exact", "lev1", "stem", "paper", "matched"),
    [
        ("Борщ", 1, 1, 1, 0, "Борщ"),
        ("Это борщ.", 1, 1, 1, 0, "Борщ"),
        ("Борща", 0, 1, 1, 0, "Борщ"),  # one edit, same lemma
        ("Borsch", 0, 1, 0, 0, "Borscht"),  # one edit from the English name
        ("Borscht soup", 0, 0, 0, 1, "Borscht"),  # only the paper's substring rule
        ("Щи", 0, 0, 0, 0, None),
    ],
)
def test_each_rule(answer: str, exact: int, lev1: int, stem: int, paper: int, matched: str | None) -> None:
    result = scored(answer)
    assert (result.exact, result.lev1, result.stem, result.paper) == (exact, lev1, stem, paper)
    assert result.matched_name == matched


def test_stems_use_pymorphy3_lemmas_and_snowball() -> None:
    assert stems("Вареники з картоплею", "uk") == stems("вареник з картопля", "uk")
    assert stems("пельменей", "ru") == stems("Пельмени", "ru")
    assert stems("stuffed eggplants", "en") == stems("Stuffed eggplant", "en")
    assert stems("ラーメン", "ja") == frozenset({"ラーメン"})  # no stemmer: the word itself


def test_stem_rule_forgives_inflection_and_word_order() -> None:
    gold = NameGold((AcceptedName("Вареники с картошкой", "ru"),), paper="Вареники с картошкой")
    assert scored("вареники с картошкой", gold=gold).stem == 1
    assert scored("С картошкой вареники", gold=gold).stem == 1
    assert scored("вареники с вишней", gold=gold).stem == 0


def test_similarity_is_culturemix_food_match_the_one_rule() -> None:
    # one fuzzy rule in the project: CultureMix's food match, right at its threshold (issue 37)
    assert SIMILARITY_THRESHOLD == FOOD_THRESHOLD == 0.8
    assert scored("borscht").similarity == 1.0
    assert scored("Pizza").similarity < 0.5
    # "borsch" vs "borscht": Indel distance 1 over 13 letters -> 12/13, within the rule
    assert scored("Borsch").similarity == pytest.approx(round(12 / 13, 4))
    assert scored("Borsch").similarity >= SIMILARITY_THRESHOLD
    assert food_similarity("Borsch", "Borscht") == pytest.approx(12 / 13)


def test_paper_rule_is_case_insensitive_substring_with_its_failures() -> None:
    assert paper_substring("I think it is BORSCHT.", "Borscht") == 1.0
    assert paper_substring("Борщ", "Borscht") == 0.0  # the paper's rule misses a name in another script
    assert paper_substring(None, "Borscht") == 0.0


def test_rules_are_registered_metrics() -> None:
    answer = NameAnswer("Borsch", ("Borsch",), "en")
    values = {rule: get_metric(f"name_{rule}")(answer, BORSCHT) for rule in ("exact", "lev1", "stem", "paper")}
    assert values == {"exact": 0.0, "lev1": 1.0, "stem": 0.0, "paper": 0.0}
    assert get_metric("name_similarity")(answer, BORSCHT) == pytest.approx(round(12 / 13, 4))


def test_the_named_dish_is_found_in_the_knowledge_base() -> None:
    rows = [
        ("w:1", "en", "Borscht", "borscht"),
        ("w:2", "en", "Shchi", "shchi"),
        ("w:2", "ru", "Щи", "щи"),
        ("w:3", "ru", "Щи", "щи"),
    ]
    index = NameIndex(rows)
    assert index.named_dish(["Щи"], "ru_formal") == ("w:2", "Щи")  # same name: the first in key order
    assert index.named_dish(["Щи"], "ru_formal", prefer=["w:3"]) == ("w:3", "Щи")
    assert index.named_dish(["soup", "Shchi"], "en") == ("w:2", "Shchi")
    assert index.named_dish(["Pizza"], "en") is None
    assert norm_name("  Щи. ") == "щи"


# --- the real answers -------------------------------------------------------------------------

CONTRACT = [
    "dataset", "model", "task", "lang", "item_id", "gold", "prediction", "matched_name", "named_dish_key",
    "exact", "lev1", "stem", "similarity", "paper", "status",
]  # fmt: skip


def test_twelve_models_answer_task_one_in_thirty_languages(real_warehouse: Path) -> None:
    rows = query(
        real_warehouse,
        "SELECT model, count(*), count(DISTINCT lang) FROM marts.name_scores WHERE task = 'dish_name_vqa' GROUP BY 1",
    )
    assert len(rows) == 12
    assert {(n, langs) for _, n, langs in rows} == {(9000, 30)}


def test_paper_rule_reproduces_published_scale(real_warehouse: Path) -> None:
    """gpt-4o names dishes far better than molmoe-1b under every rule."""
    accuracy = dict(
        query(
            real_warehouse,
            "SELECT model, avg(paper) FROM marts.name_scores WHERE task = 'dish_name_vqa' GROUP BY 1",
        )
    )
    assert accuracy["gpt-4o-2024-08-06"] > 2 * accuracy["molmoe-1b"]
    assert 0.1 < accuracy["gpt-4o-2024-08-06"] < 0.9


def test_rules_nest_as_documented(real_warehouse: Path) -> None:
    violations = query(
        real_warehouse,
        "SELECT count(*) FROM marts.name_scores WHERE exact > lev1 OR (exact = 1 AND matched_name IS NULL) "
        "OR similarity < 0 OR similarity > 1",
    )
    assert violations == [(0,)]


def test_a_wrong_answer_records_the_dish_it_named(real_warehouse: Path) -> None:
    rows = query(
        real_warehouse,
        "SELECT count(*), count(DISTINCT named_dish_key) FROM marts.name_scores "
        "WHERE lev1 = 0 AND named_dish_key IS NOT NULL AND named_dish_key <> dish_key",
    )
    assert rows[0][0] > 100 and rows[0][1] > 20
    confusions = query(real_warehouse, "SELECT sum(n) FROM marts.name_confusions")[0][0]
    assert confusions == rows[0][0]


def test_export_name_scores_contract(real_warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "names.parquet"
    run_cli(real_warehouse, "export", "name-scores", "--format", "parquet", "--out", str(out))
    frame = pl.read_parquet(out)
    assert frame.columns[: len(CONTRACT)] == CONTRACT
    assert frame.height == 12 * 9000
    for column in ("exact", "lev1", "stem", "paper"):
        assert set(frame[column].unique().to_list()) <= {0, 1}
    assert frame["similarity"].min() >= 0 and frame["similarity"].max() <= 1
    first = run_cli(real_warehouse, "export", "name-scores", "--format", "csv").stdout.splitlines()[0]
    assert first == ",".join(CONTRACT) + "," + ",".join(frame.columns[len(CONTRACT) :])
