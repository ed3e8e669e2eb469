"""CultureMix Table 2 (§6.1-6.2) on the 7:3 test split: the split is warehouse/splits.py's (the fine-tuning stage's),
a recorded culturemix_sft run's own test images win over it, and the fine-tuned model is a row of the table with
its paired t-test, accuracies and entropies, against its base model."""

from __future__ import annotations

import duckdb
import pytest

from warehouse.marts import culturemix_mitigation
from warehouse.splits import split_groups

FOODS = {"f1": "PT", "f2": "PT", "f3": "PT", "f4": "PT", "f5": "JP", "f6": "JP"}
TUNED = "/models/tuned/epoch-1"


@pytest.fixture
def con():
    connection = duckdb.connect()
    connection.execute("CREATE SCHEMA core; CREATE SCHEMA marts")
    connection.execute(
        "CREATE TABLE core.culturemix_images (image TEXT, subtask TEXT, target_food_id TEXT, target_country TEXT)"
    )
    connection.execute(
        "CREATE TABLE marts.culturemix_answers (model TEXT, subtask TEXT, prompt TEXT, image TEXT, sample INTEGER, "
        "target_food_id TEXT, country_correct BOOLEAN, food_correct BOOLEAN)"
    )
    connection.execute(
        "CREATE TABLE marts.culturemix_entropy (model TEXT, prompt TEXT, target_food_id TEXT, grouping TEXT, "
        "group_value TEXT, entropy DOUBLE, food_entropy DOUBLE)"
    )
    connection.execute(
        "CREATE TABLE core.finetune_runs (finetune_id TEXT, recipe TEXT, status TEXT, base_model TEXT, "
        "started_at TIMESTAMP)"
    )
    connection.execute("CREATE TABLE core.finetune_models (finetune_id TEXT, epoch INTEGER, model_path TEXT)")
    connection.execute("CREATE TABLE core.finetune_examples (finetune_id TEXT, item_id TEXT, split TEXT)")
    connection.execute("CREATE TABLE core.items (item_id TEXT, source_ref TEXT)")
    for food, country in FOODS.items():
        for subtask in ("SF", "MF"):
            image = f"{food}-{subtask}.jpg"
            connection.execute(
                "INSERT INTO core.culturemix_images VALUES (?, ?, ?, ?)", [image, subtask, food, country]
            )
            # base: right on SF, wrong on MF; direct and the tuned model: right on both
            for model, prompt, right in (
                ("base", "base", subtask == "SF"),
                ("base", "direct", True),
                (TUNED, "base", True),
            ):
                connection.execute(
                    "INSERT INTO marts.culturemix_answers VALUES (?, ?, ?, ?, 0, ?, ?, ?)",
                    [model, subtask, prompt, image, food, right, right],
                )
        for model, prompt, entropy in (("base", "base", 1.0), ("base", "direct", 0.5), (TUNED, "base", 0.0)):
            connection.execute(
                "INSERT INTO marts.culturemix_entropy VALUES (?, ?, ?, 'subtask', 'MF', ?, ?)",
                [model, prompt, food, entropy, entropy],
            )
    yield connection
    connection.close()


def test_the_test_split_is_the_fine_tuning_stages_own_draw(con: duckdb.DuckDBPyConnection) -> None:
    images, foods = culturemix_mitigation.test_split(con)
    train = split_groups(FOODS, 0.7, seed=0)
    assert foods == set(FOODS) - train and len(foods) == 2  # PT: 3 of 4 train; JP: 1 of 2
    assert {FOODS[f] for f in foods} == {"PT", "JP"}  # balanced: each country on both sides
    assert images == {f"{f}-{s}.jpg" for f in foods for s in ("SF", "MF")}  # MF follows its food's SF image


def test_the_prompts_and_the_tuned_model_are_compared_on_the_test_images_only(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("INSERT INTO core.finetune_runs VALUES ('run', 'culturemix_sft', 'done', 'base', now())")
    con.execute("INSERT INTO core.finetune_models VALUES ('run', 1, ?)", [TUNED])
    test_foods = ("f1", "f5")  # the run's own test side wins over the drawn one
    for n, food in enumerate(test_foods):
        con.execute("INSERT INTO core.items VALUES (?, ?)", [f"item-{n}", f"{food}-MF.jpg"])
        con.execute("INSERT INTO core.finetune_examples VALUES ('run', ?, 'test')", [f"item-{n}"])
    culturemix_mitigation.build(con)
    rows = con.execute(
        "SELECT split, method, subtask, measure, n_pairs, base_value, method_value FROM marts.culturemix_mitigation "
        "WHERE model = 'base' ORDER BY ALL"
    ).fetchall()
    cells = {row[:4]: row[4:] for row in rows}
    assert {method for _, method, *_ in rows} == {"direct", "sft"}
    # MF country accuracy on the two test images: base 0, tuned 1; over every image (ours) six pairs
    assert cells["test", "sft", "MF", "country_accuracy"] == (2, 0.0, 1.0)
    assert cells["all", "sft", "MF", "country_accuracy"] == (6, 0.0, 1.0)
    assert cells["test", "sft", "MF", "country_entropy"] == (2, 1.0, 0.0)  # the test foods' entropies
    assert cells["test", "direct", "MF", "food_accuracy"] == (2, 0.0, 1.0)
    assert ("test", "sft", "SF", "country_accuracy") not in cells  # the run tested MF images only
