"""Dish identity: which BORSch and WorldCuisines records name one dish, by which method and score."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.core.text import norm_name
from pipeline.datasets.linking import Name, best_links, find_links, transliterate
from tests.helpers import query, run_cli


def name(key: str, lang: str, text: str) -> Name:
    return Name(key, lang, text, norm_name(text))


def links_by_pair(sources: list[Name], targets: list[Name]) -> dict[tuple[str, str], dict]:
    return {(r["dish_key"], r["linked_dish_key"]): r for r in best_links(find_links(sources, targets))}


def test_transliteration_follows_each_language() -> None:
    assert transliterate("пельмени", "ru") == "pelmeni"
    assert transliterate("вареники", "uk") == "varenyky"
    assert transliterate("голубці", "uk") == "holubtsi"
    assert transliterate("щи", "ru") == "shchi"


def test_methods_and_scores() -> None:
    borsch = [
        name("b:ru:1", "ru", "БОРЩ"),
        name("b:ru:2", "ru", "ПЕЛЬМЕНИ"),
        name("b:uk:3", "uk", "ВАРЕНИКИ"),
        name("b:ru:4", "ru", "СУШИ"),
        name("b:ru:5", "ru", "ДЖАМБАЛАЙЯ"),
        name("b:ru:6", "ru", "КОМПОТ"),
    ]
    world = [
        name("w:1191", "en", "Borscht"),
        name("w:1191", "ru", "Борщ"),
        Name("w:10", "en", "Pelmeni", "pelmeni", primary=True),
        name("w:11", "hu", "Pelmeni"),  # another dish's alias: the dish whose own name it is wins
        name("w:404", "en", "Varenyky"),
        name("w:205", "en", "Sushi"),
        name("w:205", "ru", "Суши"),
        name("w:471", "ru", "Суши"),  # Wikipedia's article names both
        name("w:471", "en", "Inarizushi"),
        name("w:7", "kk", "Джамбалайя"),
        name("w:7", "en", "Jambalaya"),
        name("w:8", "en", "Kompott"),
    ]
    links = links_by_pair(borsch, world)
    assert links[("b:ru:1", "w:1191")]["method"] == "exact" and links[("b:ru:1", "w:1191")]["score"] == 1.0
    assert links[("w:1191", "b:ru:1")]["method"] == "exact"  # both directions
    assert links[("b:ru:2", "w:10")]["method"] == "translit" and links[("b:ru:2", "w:10")]["score"] == 1.0
    assert links[("b:ru:2", "w:11")]["score"] == 0.5
    assert links[("b:uk:3", "w:404")]["method"] == "translit"
    # a name two dishes share links to both at 1/2; the transliteration singles one out
    assert links[("b:ru:4", "w:205")]["method"] == "translit" and links[("b:ru:4", "w:205")]["score"] == 1.0
    assert links[("b:ru:4", "w:471")]["score"] == 0.5 and links[("b:ru:4", "w:471")]["method"] == "exact"
    assert links[("b:ru:5", "w:7")]["method"] == "alias"
    assert links[("b:ru:6", "w:8")]["method"] == "fuzzy" and 0.9 <= links[("b:ru:6", "w:8")]["score"] < 1.0
    assert '"translit": 1.0' in links[("b:ru:4", "w:205")]["evidence"]


def test_different_dishes_are_not_linked() -> None:
    borsch = [name("b:ru:1", "ru", "ЩИ"), name("b:ru:2", "ru", "БОРЩОК"), name("b:ru:3", "ru", "ПЛОВ")]
    world = [name("w:1", "en", "Borscht"), name("w:1", "ru", "Борщ"), name("w:2", "en", "Pilaf")]
    assert links_by_pair(borsch, world) == {}


# --- the real data ----------------------------------------------------------------------------

KNOWN_LINKS = [
    # (BORSch name, language, WorldCuisines English name)
    ("БОРЩ", "ru", "Borscht"),
    ("БОРЩ", "uk", "Borscht"),
    ("ЧЕБУРЕК", "ru", "Chebureki"),
    ("ВАРЕНИКИ", "uk", "Varenyky"),
    ("ХОЛОДЕЦ", "ru", "Kholodets"),
    ("ХАЧАПУРИ", "ru", "Khachapuri"),
    ("ПЛОВ", "ru", "Plov"),
]
KNOWN_NON_LINKS = [
    ("БОРЩ", "ru", "Shchi"),
    ("ЧЕБУРЕК", "ru", "Varenyky"),
    ("ХАЧАПУРИ", "ru", "Pizza"),
    ("ВАРЕНИКИ", "uk", "Borscht"),
]


def _link(path: Path, borsch_name: str, lang: str, world_name: str) -> list[tuple]:
    return query(
        path,
        """
        SELECT l.method, l.score FROM marts.dish_links l
        JOIN core.dishes a ON a.dish_key = l.dish_key JOIN core.dishes b ON b.dish_key = l.linked_dish_key
        WHERE a.dataset = 'borsch' AND a.lang = ? AND upper(a.name) = ? AND b.dataset = 'worldcuisines' AND b.name = ?
        """,
        [lang, borsch_name, world_name],
    )


@pytest.mark.parametrize(("borsch_name", "lang", "world_name"), KNOWN_LINKS)
def test_known_links_of_the_real_data(real_warehouse: Path, borsch_name: str, lang: str, world_name: str) -> None:
    found = _link(real_warehouse, borsch_name, lang, world_name)
    assert found, f"{borsch_name} ({lang}) is not linked to {world_name}"
    assert max(score for _, score in found) >= 0.5


@pytest.mark.parametrize(("borsch_name", "lang", "world_name"), KNOWN_NON_LINKS)
def test_known_non_links_of_the_real_data(real_warehouse: Path, borsch_name: str, lang: str, world_name: str) -> None:
    assert _link(real_warehouse, borsch_name, lang, world_name) == []


def test_links_are_symmetric_and_every_method_occurs(real_warehouse: Path) -> None:
    asymmetric = query(
        real_warehouse,
        "SELECT count(*) FROM core.dish_links a ANTI JOIN core.dish_links b "
        "ON a.dish_key = b.linked_dish_key AND a.linked_dish_key = b.dish_key",
    )
    assert asymmetric == [(0,)]
    methods = dict(query(real_warehouse, "SELECT method, count(*) FROM core.dish_links GROUP BY ALL"))
    assert set(methods) == {"parallel", "exact", "alias", "translit", "fuzzy"}
    linked = query(
        real_warehouse,
        "SELECT count(DISTINCT dish_key) FROM marts.dish_links WHERE dataset = 'borsch' "
        "AND linked_dataset = 'worldcuisines' AND score >= 0.5",
    )[0][0]
    assert linked > 451  # the issue counted 451 BORSch dishes with an identical ru/uk name alone


def test_borscht_origin_disagreement_is_shown(real_warehouse: Path) -> None:
    rows = query(
        real_warehouse,
        "SELECT origins, linked_origins FROM marts.dish_origin_disagreements d JOIN core.dishes a USING (dish_key) "
        "WHERE a.dataset = 'borsch' AND a.name = 'БОРЩ' AND d.linked_display_name = 'Borscht'",
    )
    for origins, linked in rows:
        assert origins != linked


def test_export_dish_links_contract(real_warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "links.parquet"
    run_cli(real_warehouse, "export", "dish-links", "--format", "parquet", "--out", str(out))
    frame = pl.read_parquet(out)
    assert frame.columns[:4] == ["dish_key", "linked_dish_key", "method", "score"]
    assert frame.height == query(real_warehouse, "SELECT count(*) FROM core.dish_links")[0][0]
    assert frame["score"].min() > 0 and frame["score"].max() <= 1
    csv = run_cli(real_warehouse, "export", "dish-links", "--format", "csv").stdout
    assert csv.splitlines()[0].startswith("dish_key,linked_dish_key,method,score")
