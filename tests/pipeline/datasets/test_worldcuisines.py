"""WorldCuisines ingestion on the real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.extract.english import UnknownCountry, resolve_english
from tests.helpers import query


def test_knowledge_base_items_and_names(real_warehouse: Path) -> None:
    assert query(real_warehouse, "SELECT count(*) FROM core.dishes WHERE dataset = 'worldcuisines'") == [(2414,)]
    assert query(real_warehouse, "SELECT count(*) FROM core.items WHERE task_id = 'worldcuisines.origin_vqa'") == [
        (500,)
    ]
    # food_id is the 0-based row of final_data.csv: qa_id 1900 asks about food 949, Melktert.
    assert query(
        real_warehouse,
        """
        SELECT d.dish_id, d.name, g.country FROM core.items i JOIN core.dishes d USING (dish_key)
        JOIN core.item_gold_countries g USING (item_id)
        WHERE i.source_ref = '1900' AND i.task_id = 'worldcuisines.origin_vqa'""",
    ) == [("949", "Melktert", "ZA")]


def test_russian_and_ukrainian_names_where_present(real_warehouse: Path) -> None:
    names = dict(
        query(
            real_warehouse,
            """
        SELECT n.lang, n.name FROM core.dish_names n JOIN core.dishes d USING (dish_key)
        WHERE d.dataset = 'worldcuisines' AND d.name = 'Rawon' AND n.lang IN ('ru', 'uk')""",
        )
    )
    assert names == {"ru": "Равон", "uk": "Равон"}
    with_ru = query(
        real_warehouse,
        """SELECT count(DISTINCT dish_key) FROM core.dish_names n
        JOIN core.dishes d USING (dish_key) WHERE d.dataset = 'worldcuisines' AND n.lang = 'ru'""",
    )[0][0]
    assert 500 < with_ru < 2414


def test_uk_nations_are_gb_and_global_is_not_a_country(real_warehouse: Path) -> None:
    english = query(
        real_warehouse,
        """SELECT count(*) FROM raw.worldcuisines_task2 t
        JOIN core.item_gold_countries g ON g.item_id = 'worldcuisines.origin_vqa:' || t.qa_id
        WHERE t.answer IN ('England', 'Scotland', 'Wales') AND g.country <> 'GB'""",
    )
    assert english == [(0,)]
    reported = query(real_warehouse, "SELECT count(*) FROM meta.ingest_reports WHERE kind = 'not_a_country'")[0][0]
    assert reported > 0


def test_uk_nations_are_also_kept_as_their_own_gold(real_warehouse: Path) -> None:
    """WorldCuisines names England, Scotland and Wales: GB at country level, the nation beside it."""
    items = query(
        real_warehouse,
        """SELECT t.answer, n.nation, count(*) FROM raw.worldcuisines_task2 t
        JOIN core.item_gold_nations n ON n.item_id = 'worldcuisines.origin_vqa:' || t.qa_id
        GROUP BY ALL ORDER BY ALL""",
    )
    assert items == [("England", "GB-ENG", 7), ("Scotland", "GB-SCT", 2), ("Wales", "GB-WLS", 1)]
    dishes = dict(
        query(
            real_warehouse,
            """SELECT d.name, list(n.nation ORDER BY n.nation) FROM core.dish_origin_nations n
            JOIN core.dishes d USING (dish_key) WHERE d.name IN ('Haggis', 'Tatws Pum Munud', 'Pottage')
            GROUP BY d.name""",
        )
    )
    assert dishes == {"Haggis": ["GB-SCT"], "Tatws Pum Munud": ["GB-WLS"], "Pottage": ["GB-ENG", "GB-WLS"]}
    # every dish with a nation keeps GB as its country-level origin
    assert query(
        real_warehouse,
        """SELECT count(*) FROM core.dish_origin_nations n
        WHERE NOT EXISTS (SELECT 1 FROM core.dish_origins o WHERE o.dish_key = n.dish_key AND o.country = 'GB')""",
    ) == [(0,)]


def test_gold_text_per_language_is_the_correct_option(real_warehouse: Path) -> None:
    """answer_<lang> cells are five options; the stored gold is the one at correct_index."""
    gold = dict(
        query(
            real_warehouse,
            """SELECT lang, text FROM core.item_gold_text
        WHERE item_id = 'worldcuisines.origin_vqa:1900' AND lang IN ('en', 'it', 'ru_formal')""",
        )
    )
    assert gold == {"en": "South Africa", "it": "Sud Africa", "ru_formal": "Южная Африка"}
    per_item = query(real_warehouse, "SELECT count(DISTINCT lang) FROM core.item_gold_text")[0][0]
    assert per_item == 30


def test_every_item_has_its_image_url(real_warehouse: Path) -> None:
    assert query(
        real_warehouse,
        """SELECT count(*) FROM core.items i JOIN core.item_images USING (item_id)
        JOIN core.images im USING (image_id) WHERE im.url LIKE 'https://upload.wikimedia.org/%'
        AND i.task_id = 'worldcuisines.origin_vqa'""",
    ) == [(500,)]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("England", "GB"),
        ("Scotland", "GB"),
        ("Wales", "GB"),
        ("Korea", "KR"),
        ("North Korea", "KP"),
        ("Timor Leste", "TL"),
        ("Czech Republic", "CZ"),
        ("Hong Kong", "HK"),
        ("Russia", "RU"),
        ("Global", None),
    ],
)
def test_english_country_names(name: str, code: str | None) -> None:
    assert resolve_english(name) == code


def test_unknown_english_name_is_refused() -> None:
    with pytest.raises(UnknownCountry, match="Atlantis"):
        resolve_english("Atlantis")


def test_task_one_small_set_is_one_item_per_dish_with_prompts_gold_and_options(real_warehouse: Path) -> None:
    items = query(
        real_warehouse,
        "SELECT count(*), count(DISTINCT dish_key) FROM core.items WHERE task_id = 'worldcuisines.dish_name_vqa'",
    )
    assert items == [(100, 100)]
    raw = query(
        real_warehouse,
        "SELECT count(*), count(DISTINCT qa_id), count(DISTINCT lang), min(len(options)), max(len(options)) "
        "FROM raw.worldcuisines_task1",
    )
    assert raw == [(9000, 300, 30, 4, 5)]  # a few questions offer four options
    prompts = query(
        real_warehouse,
        "SELECT count(*) FROM core.item_prompts p JOIN core.items i USING (item_id) "
        "WHERE i.task_id = 'worldcuisines.dish_name_vqa'",
    )
    assert prompts == [(9000,)]  # three questions per dish in each of 30 languages
    gold = query(
        real_warehouse,
        "SELECT t.lang, t.text FROM core.item_gold_text t JOIN core.items i USING (item_id) "
        "JOIN core.dishes d USING (dish_key) WHERE d.name = 'Stuffed eggplant' AND t.lang IN ('en', 'ru_formal') "
        "AND i.task_id = 'worldcuisines.dish_name_vqa' "
        "ORDER BY t.lang",
    )
    assert gold == [("en", "Stuffed eggplant"), ("ru_formal", "Фаршированные баклажаны")]
    right = query(
        real_warehouse,
        "SELECT options[multi_choice_answer] = answer FROM raw.worldcuisines_task1 WHERE qa_id = '0' AND lang = 'en'",
    )
    assert right == [(True,)]
    wrong_option = query(
        real_warehouse, "SELECT count(*) FROM raw.worldcuisines_task1 WHERE options[multi_choice_answer] <> answer"
    )
    assert wrong_option == [(0,)]  # every language's right option is its gold name
