"""CultureMix composition as published (pipeline/compose/): distractors stratified by cultural distance and by
the difficulty stored baseline answers give (§2.3), the paper's agnostic objects from their photos (§4.3), the
MF pair flipped (position bias, Table 10) and the target at smaller sizes (size bias, Table 11)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from PIL import Image, ImageChops, ImageOps

from pipeline.compose import variants
from pipeline.compose.pairing import Candidate, choose, difficulties
from pipeline.core.errors import DataError
from pipeline.reference.cultural_distance import cultural_distance
from tests.helpers import copy_warehouse, query, run_cli
from warehouse.db import migrate


def test_stratified_pairing_takes_each_distance_level_in_turn_and_alternates_difficulty() -> None:
    target = Candidate("t", "FR")
    others = [
        Candidate("fr-easy", "FR", "easy"), Candidate("fr-hard", "FR", "hard"), Candidate("es", "ES", "easy"),
        Candidate("de", "DE", "hard"), Candidate("jp", "JP", "easy"), Candidate("mx", "MX", "hard"),
    ]  # fmt: skip
    three = choose(target, others, 3, "stratified", seed=0)
    assert [cultural_distance("FR", c.country) for c in three] == ["same_country", "same_continent", "other_continent"]
    six = choose(target, others, 6, "stratified", seed=0)
    levels = [cultural_distance("FR", c.country) for c in six]
    assert levels == ["same_country", "same_continent", "other_continent"] * 2
    assert [c.difficulty for c in six if c.country == "FR"] == ["easy", "hard"]  # easy first, then hard
    assert sorted(c.dish_key for c in six) == sorted(c.dish_key for c in others)
    drawn = choose(target, others, 3, "random", seed=0)
    assert len(drawn) == 3 and drawn == choose(target, others, 3, "random", seed=0)
    with pytest.raises(ValueError, match="unknown pairing"):
        choose(target, others, 3, "nearest", seed=0)


def test_difficulty_is_read_from_the_baseline_sf_answers(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(con)
    # (dish, model, accuracy): a both right -> easy; b both wrong -> hard; c one of two -> mixed; d an MF answer only
    answers = [("a", "m1", 1.0), ("a", "m2", 1.0), ("b", "m1", 0.0), ("b", "m2", 0.0), ("c", "m1", 1.0),
               ("c", "m2", 0.0), ("c", "m2", 0.0)]  # fmt: skip
    for index, (dish, model, value) in enumerate(answers):
        item = f"culturemix.sf:{dish}"
        con.execute("INSERT OR IGNORE INTO core.ingested_items (item_id, task_id, dish_key, source_ref) "
                    "VALUES (?, ?, ?, ?)", [item, "culturemix.sf", dish, dish])  # fmt: skip
        con.execute("INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, origin) "
                    "VALUES (?, 'r', ?, ?, 'en', 'base', 'import')", [f"g{index}", model, item])  # fmt: skip
        con.execute("INSERT INTO core.scores VALUES (?, 'accuracy', ?)", [f"g{index}", value])
    con.execute("INSERT INTO core.ingested_items (item_id, task_id, dish_key, source_ref) VALUES ('culturemix.mf:d', "
                "'culturemix.mf', 'd', 'd')")  # fmt: skip
    con.execute("INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, origin) "
                "VALUES ('gd', 'r', 'm1', 'culturemix.mf:d', 'en', 'base', 'import')")  # fmt: skip
    con.execute("INSERT INTO core.scores VALUES ('gd', 'accuracy', 1.0)")
    assert difficulties(con, ["a", "b", "c", "d"]) == {"a": "easy", "b": "hard", "c": "mixed"}


def test_mirror_scale_and_the_agnostic_photos(tmp_path: Path) -> None:
    pair = Image.new("RGB", (20, 10), "red")
    pair.paste((0, 0, 255), (10, 0, 20, 10))
    flipped = variants.mirrored(pair)
    assert flipped.getpixel((2, 5)) == (0, 0, 255) and flipped.getpixel((17, 5)) == (255, 0, 0)
    small = variants.scaled(Image.new("RGB", (100, 100), "red"), 0.5)
    assert small.size == (100, 100) and small.getpixel((50, 50)) == (255, 0, 0)
    assert small.getpixel((10, 10)) == (255, 255, 255) and small.getbbox() is not None
    folder = tmp_path / "objects"
    folder.mkdir()
    for name in ("apple", "car", "scissors"):
        Image.new("RGB", (8, 8), "green").save(folder / f"{name}.png")
    with pytest.raises(DataError, match=r"no photo of teddy bear \(expected e\.g\. teddy_bear\.jpg\)"):
        variants.agnostic_objects(folder)
    Image.new("RGB", (8, 8), "brown").save(folder / "teddy_bear.jpg")
    assert [o.name for o in variants.agnostic_objects(folder)] == list(variants.AGNOSTIC_OBJECTS)


def make_objects(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for index, name in enumerate(("apple", "car", "scissors", "teddy_bear")):
        Image.new("RGB", (64, 64), (40 * index, 200, 90)).save(folder / f"{name}.png")
    return folder


@pytest.fixture(scope="module")
def composed(tmp_path_factory, ingested_template) -> dict:
    root = tmp_path_factory.mktemp("published")
    warehouse = copy_warehouse(ingested_template("culturemix"), root / "wh" / "warehouse.duckdb")
    out = root / "out"
    result = run_cli(warehouse, "compose", "culturemix", "--out", str(out), "--limit", "2", "--per-target", "2",
                     "--agnostic", str(make_objects(root / "objects")), "--positions", "left,right",
                     "--sizes", "0.5")  # fmt: skip
    return {"warehouse": warehouse, "out": out, "result": result, "root": root}


def test_compose_says_when_no_baseline_answers_exist(composed: dict) -> None:
    assert "no baseline answers to the SF items" in composed["result"].stderr
    labels = [json.loads(x) for x, in query(composed["warehouse"], "SELECT labels FROM core.culturemix_compositions "
                                            "WHERE distractor_kind = 'cultural' AND subtask <> 'SFB'")]  # fmt: skip
    assert {(x["pairing"], x["target_difficulty"], x["distractor_difficulty"]) for x in labels} == {
        ("stratified", "unknown", "unknown")
    }


def test_every_target_gets_both_positions_a_smaller_size_and_a_paper_object(composed: dict) -> None:
    warehouse = composed["warehouse"]
    rows = query(warehouse, "SELECT target_dish_key, labels, path FROM core.culturemix_compositions "
                            "WHERE subtask = 'MF' ORDER BY ALL")  # fmt: skip
    per_target: dict[str, list[dict]] = {}
    for key, labels, path in rows:
        per_target.setdefault(key, []).append({**json.loads(labels), "path": path})
    assert len(per_target) == 2
    for found in per_target.values():
        cultural = [x for x in found if x["distractor_kind"] == "cultural"]
        # 2 distractors x (left, right, target at half size)
        assert sorted((x["target_position"], x["target_scale"] or 1.0) for x in cultural) == [
            ("left", 0.5), ("left", 0.5), ("left", 1.0), ("left", 1.0), ("right", 1.0), ("right", 1.0)
        ]  # fmt: skip
        (agnostic,) = [x for x in found if x["distractor_kind"] == "agnostic"]
        assert agnostic["distractor_food_name"] in variants.AGNOSTIC_OBJECTS
        for right in (x for x in cultural if x["target_position"] == "right"):
            (left,) = [x for x in cultural if x["target_position"] == "left" and x["target_scale"] is None
                       and x["distractor_dish_key"] == right["distractor_dish_key"]]  # fmt: skip
            mirrored = ImageOps.mirror(Image.open(left["path"]).convert("RGB"))
            assert ImageChops.difference(mirrored, Image.open(right["path"]).convert("RGB")).getbbox() is None


def test_the_single_food_is_resized_too(composed: dict) -> None:
    rows = query(composed["warehouse"], "SELECT target_dish_key, labels, path FROM core.culturemix_compositions "
                                        "WHERE subtask = 'SF'")  # fmt: skip
    assert len(rows) == 2 and {json.loads(labels)["target_scale"] for _, labels, _ in rows} == {0.5}
    for _, _, path in rows:
        picture = Image.open(path).convert("RGB")
        assert picture.getpixel((2, 2)) == (255, 255, 255)  # the food shrunk to the middle of a white panel
        assert picture.getbbox() is not None


def test_flipped_pairs_are_asked_about_the_right_food(composed: dict, tiny_vision_model: Path) -> None:
    warehouse = composed["warehouse"]
    run_cli(warehouse, "generate", "--task", "culturemix.mf_right", "--lang", "en", "--backend", "transformers",
            "--model", str(tiny_vision_model), "--variants", "base", "--max-tokens", "2")  # fmt: skip
    rows = query(
        warehouse,
        """SELECT c.target_position, g.messages, count(*) OVER () FROM core.generations g
           JOIN core.items i USING (item_id) JOIN core.culturemix_images c ON c.image = i.source_ref
           WHERE i.task_id = 'culturemix.mf_right'""",
    )
    assert len(rows) == 4 and {r[0] for r in rows} == {"right"}  # 2 targets x 2 flipped pairs
    assert all("the right food" in json.loads(r[1])[0]["text"] for r in rows)


def test_difficulty_comes_from_the_stored_baseline_answers(composed: dict, tiny_vision_model: Path) -> None:
    warehouse = copy_warehouse(composed["warehouse"], composed["root"] / "rated" / "warehouse.duckdb")
    run_cli(warehouse, "--no-publish", "generate", "--task", "culturemix.sf", "--lang", "en", "--backend",
            "transformers", "--model", str(tiny_vision_model), "--variants", "base", "--max-tokens", "2")  # fmt: skip
    run_cli(warehouse, "score")
    answered = query(warehouse, "SELECT count(DISTINCT i.dish_key) FROM core.generations g JOIN core.items i "
                                "USING (item_id) WHERE i.task_id = 'culturemix.sf'")[0][0]  # fmt: skip
    again = run_cli(warehouse, "compose", "culturemix", "--out", str(composed["root"] / "out2"), "--limit", "1",
                    "--per-target", "2")  # fmt: skip
    assert f"difficulty from stored baseline SF answers: {answered} foods rated" in again.stderr
    new = "SELECT labels FROM core.culturemix_compositions WHERE distractor_kind = 'cultural' AND path LIKE ?"
    labels = [json.loads(x) for (x,) in query(warehouse, new, [f"{composed['root'] / 'out2'}/%"])]
    assert labels and {x["target_difficulty"] for x in labels} <= {"easy", "hard", "mixed"}
