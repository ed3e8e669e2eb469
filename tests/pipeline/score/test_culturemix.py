"""CultureMix measures pinned on hand-built answer sets whose shifts and entropies are worked out by
hand, end to end through the contracts: `import-responses --format culturemix` and `export culturemix`."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from pipeline.answers.culturemix import food_phrase, parse_food
from pipeline.score.culturemix import classify_shift, food_match, food_similarity, label_entropy
from pipeline.score.metrics import get_metric
from tests.helpers import copy_warehouse, query, run_cli

CONTRACT = (
    "model,subtask,prompt,target_food_id,image,target_country,distractor_country,background_country,distance,"
    "predicted_food,predicted_country,food_correct,country_correct,shift"
)


def test_shift_categories_in_order_of_precedence():
    europe_asia = {"PT": "Europe", "ES": "Europe", "GB": "Europe", "JP": "Asia", "CN": "Asia"}.get
    assert classify_shift("PT", "PT", ["GB"], europe_asia) == "kept"
    assert classify_shift("PT", "PT", ["PT", "JP"], europe_asia) == "kept"  # kept wins over the distractor
    assert classify_shift("PT", "GB", ["GB"], europe_asia) == "to_distractor_country"
    assert classify_shift("PT", "ES", ["GB"], europe_asia) == "to_distractor_continent"
    assert classify_shift("PT", "CN", ["GB", "JP"], europe_asia) == "to_distractor_continent"  # MFB: either counts
    assert classify_shift("PT", "CN", ["GB"], europe_asia) == "elsewhere"
    assert classify_shift("PT", None, ["GB"], europe_asia) == "elsewhere"  # no country any more
    assert classify_shift(None, None, ["GB"], europe_asia) == "kept"  # no answer twice: nothing moved
    assert classify_shift(None, "CN", ["GB"], europe_asia) == "elsewhere"  # an answer appearing is a change too


def test_label_entropy_in_bits():
    assert label_entropy(["PT", "PT", "PT"]) == 0
    assert label_entropy(["PT", "ES"]) == pytest.approx(1.0)
    assert label_entropy(["PT", "ES", "GB", "JP"]) == pytest.approx(2.0)
    assert label_entropy(["PT", None]) == pytest.approx(1.0)  # no answer is a label of its own


def test_food_similarity_and_the_registered_food_match():
    assert food_similarity("This is Aletria from Portugal.", "Aletria") == 1.0
    assert food_similarity("Aletrea", "Aletria") == pytest.approx(6 / 7)  # one letter off: Indel 2 of 14
    assert food_similarity("Arroz con leche", "Aletria") < 0.5
    assert food_similarity(None, "Aletria") == 0.0
    assert get_metric("food_match") is food_match
    assert food_match(["Aletrea"], ["Aletria"]) == 1.0
    assert food_match(["Arroz doce"], ["Aletria"]) == 0.0
    with pytest.raises(TypeError):
        food_match("Aletria", ["Aletria"])


def test_the_food_phrase_of_an_answer():
    assert food_phrase("This is Aletria, a sweet pudding from Portugal.") == "Aletria"
    assert food_phrase("The left food is Sayur asem from Indonesia.") == "Sayur asem"
    assert food_phrase("Step 1: noodles in milk. Food: Aletria. Country: Portugal.") == "Aletria"
    assert food_phrase("") is None
    names = sorted(["Ham and cheese sandwich", "Aletria", "Puto"], key=lambda n: (-len(n), n))
    assert parse_food("It's a ham and cheese sandwich, from the UK", names).food_name == "Ham and cheese sandwich"
    assert parse_food("Aletrea, Portugal", names).food_name == "Aletria"
    assert parse_food("No idea.", names).food_name is None


# One model (hand-a) answers the ten images of target food 1789 (Aletria, Portugal) with the base
# prompt; hand-b answers one MF image without any SF answer. Worked out by hand:
#   image                 distractors (food, background)  answer country  shift
#   seed-01-sf            -                                PT              (SF)
#   seed-01-mf-01         PT (Bacalhau)        same_country   PT  kept
#   seed-01-mf-02         CM (Puff Puff)       other_cont.    CM  to_distractor_country
#   seed-01-mf-03         GB (Saveloy)         same_cont.     ES  to_distractor_continent (Europe)
#   seed-01-sfb-01        ES (Spain)           same_cont.     PT  kept
#   seed-01-sfb-02        US (Unitedstates2)   other_cont.    JP  elsewhere
#   seed-01-sfb-03        MX (Mexico1)         other_cont.    GT  to_distractor_continent (North America)
#   seed-01-mfb-01        CM + CA (Canada)     other_cont.    CA  to_distractor_country
#   seed-01-mfb-02        PT + EG (Egypt)      same_country   PT  kept (though PT is also a distractor)
#   seed-01-mfb-03        CM + CL (Chile)      other_cont.    -   elsewhere (no country)
ANSWERS = [
    ("hand-a", "images/seed-01-sf-png.jpg", "This is Aletria, a vermicelli pudding from Portugal."),
    ("hand-a", "images/seed-01-mf-01-png.jpg", "The left food is Aletria, from Portugal."),
    ("hand-a", "images/seed-01-mf-02-png.jpg", "The left food is Aletria from Cameroon."),
    ("hand-a", "images/seed-01-mf-03-png.jpg", "Aletria from Spain."),
    ("hand-a", "images/seed-01-sfb-01-jpg.jpg", "Aletria, Portugal."),
    ("hand-a", "images/seed-01-sfb-02-jpg.jpg", "A pudding from Japan."),
    ("hand-a", "images/seed-01-sfb-03-jpg.jpg", "Arroz con leche from Guatemala."),
    ("hand-a", "images/seed-01-mfb-01-jpg.jpg", "Food: Aletria. Country: Canada."),
    ("hand-a", "images/seed-01-mfb-02-jpg.jpg", "Aletria, Portugal."),
    ("hand-a", "images/seed-01-mfb-03-png.jpg", "I cannot tell."),
    ("hand-b", "images/seed-01-mf-02-png.jpg", "Puff puff from Cameroon."),
]
EXPECTED = {
    "images/seed-01-sf-png.jpg": ("SF", "", "PT", "true", ""),
    "images/seed-01-mf-01-png.jpg": ("MF", "same_country", "PT", "true", "kept"),
    "images/seed-01-mf-02-png.jpg": ("MF", "other_continent", "CM", "true", "to_distractor_country"),
    "images/seed-01-mf-03-png.jpg": ("MF", "same_continent", "ES", "true", "to_distractor_continent"),
    "images/seed-01-sfb-01-jpg.jpg": ("SFB", "same_continent", "PT", "true", "kept"),
    "images/seed-01-sfb-02-jpg.jpg": ("SFB", "other_continent", "JP", "false", "elsewhere"),
    "images/seed-01-sfb-03-jpg.jpg": ("SFB", "other_continent", "GT", "false", "to_distractor_continent"),
    "images/seed-01-mfb-01-jpg.jpg": ("MFB", "other_continent", "CA", "true", "to_distractor_country"),
    "images/seed-01-mfb-02-jpg.jpg": ("MFB", "same_country", "PT", "true", "kept"),
    "images/seed-01-mfb-03-png.jpg": ("MFB", "other_continent", "", "false", "elsewhere"),
}


@pytest.fixture(scope="module")
def answered(tmp_path_factory, ingested_template) -> Path:
    root = tmp_path_factory.mktemp("cm-answers")
    warehouse = copy_warehouse(ingested_template("culturemix"), root / "warehouse.duckdb")
    answers = root / "answers.jsonl"
    answers.write_text(
        "".join(json.dumps({"model": m, "image": i, "prompt": "base", "response": r}) + "\n" for m, i, r in ANSWERS),
        encoding="utf-8",
    )
    run_cli(warehouse, "--no-publish", "import-responses", "--format", "culturemix", str(answers))
    run_cli(warehouse, "score")  # countries (the shared extractor) and foods (the culturemix parse step)
    return warehouse


def _export(warehouse: Path) -> list[dict]:
    result = run_cli(warehouse, "export", "culturemix", "--format", "csv")
    assert result.stdout.splitlines()[0].startswith(CONTRACT + ",")
    return list(csv.DictReader(io.StringIO(result.stdout)))


def test_shifts_and_correctness_match_the_hand_worked_table(answered: Path):
    rows = {r["image"]: r for r in _export(answered) if r["model"] == "hand-a"}
    assert set(rows) == set(EXPECTED)
    for image, (subtask, distance, country, food_correct, shift) in EXPECTED.items():
        row = rows[image]
        got = (row["subtask"], row["distance"], row["predicted_country"], row["food_correct"], row["shift"])
        assert got == (subtask, distance, country, food_correct, shift), image
        assert row["country_correct"] == ("true" if country == "PT" else "false")
        assert row["target_food_id"] == "1789" and row["target_country"] == "PT" and row["prompt"] == "base"
    assert rows["images/seed-01-mfb-01-jpg.jpg"]["distractor_country"] == "CM"
    assert rows["images/seed-01-mfb-01-jpg.jpg"]["background_country"] == "CA"


def test_an_answer_without_its_sf_answer_has_no_shift(answered: Path):
    (row,) = [r for r in _export(answered) if r["model"] == "hand-b"]
    assert row["shift"] == "" and row["predicted_country"] == "CM" and row["food_correct"] == "false"


def test_our_entropy_per_target_food_across_variants(answered: Path):
    # PT x4, CM, ES, JP, GT, CA, none: -(0.4 log2 0.4 + 6 x 0.1 log2 0.1)
    expected_all = -(0.4 * math.log2(0.4) + 6 * 0.1 * math.log2(0.1))
    rows = dict(
        query(
            answered,
            "SELECT grouping || ':' || group_value, entropy_across_images FROM marts.culturemix_entropy "
            "WHERE model = 'hand-a' AND target_food_id = '1789'",
        )
    )
    # as published, entropy is over each image's repeated samples: one answer per image here, so 0 everywhere
    assert query(answered, "SELECT DISTINCT entropy, samples_per_image FROM marts.culturemix_entropy") == [(0.0, 1.0)]
    assert rows["all:all"] == pytest.approx(expected_all)
    assert rows["SF:SF"] == 0
    # same_country: PT, PT -> 0; same_continent: ES, PT -> 1 bit
    assert rows["distance:same_country"] == 0
    assert rows["distance:same_continent"] == pytest.approx(1.0)
    shares = dict(
        query(
            answered,
            "SELECT shift, count(*) FROM marts.culturemix_answers WHERE model = 'hand-a' AND shift IS NOT NULL "
            "GROUP BY shift",
        )
    )
    assert shares == {"kept": 3, "to_distractor_country": 2, "to_distractor_continent": 2, "elsewhere": 2}


def test_sources_say_which_models_answered(answered: Path):
    assert query(answered, "SELECT model, backend, n_answers, is_test_model FROM marts.culturemix_sources") == [
        ("hand-a", "replay", 10, False),
        ("hand-b", "replay", 1, False),
    ]


def test_import_rejects_a_bad_line_with_file_and_line(answered: Path, tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"model": "m", "image": "images/seed-01-sf-png.jpg", "prompt": "base", "response": "x"})
        + "\n"
        + json.dumps({"model": "m", "image": "images/nope.jpg", "prompt": "base", "response": "x"})
        + "\n",
        encoding="utf-8",
    )
    result = run_cli(answered, "import-responses", "--format", "culturemix", str(bad), check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{bad}:2: image 'images/nope.jpg' is not a CultureMix image" in result.stderr
    assert query(answered, "SELECT count(*) FROM core.generations WHERE model_id = 'm'") == [(0,)]
    wrong_prompt = tmp_path / "prompt.jsonl"
    wrong_prompt.write_text(
        json.dumps({"model": "m", "image": "images/seed-01-sf-png.jpg", "prompt": "fancy", "response": "x"}) + "\n"
    )
    result = run_cli(answered, "import-responses", "--format", "culturemix", str(wrong_prompt), check=False)
    assert "prompt must be one of base, direct, cot" in result.stderr


def test_reimporting_the_same_file_changes_nothing(answered: Path, tmp_path: Path):
    before = query(answered, "SELECT count(*) FROM core.generations")
    answers = tmp_path / "again.jsonl"
    answers.write_text(
        "".join(json.dumps({"model": m, "image": i, "prompt": "base", "response": r}) + "\n" for m, i, r in ANSWERS),
        encoding="utf-8",
    )
    run_cli(answered, "import-responses", "--format", "culturemix", str(answers))
    assert query(answered, "SELECT count(*) FROM core.generations") == before


def test_the_papers_question_table_loads_as_the_base_prompt(data_dir: Path):
    from pipeline.tasks import get_task, with_prompt_table

    table = data_dir / "seed_prompts" / "culturemix_prompts.tsv"
    task = with_prompt_table(get_task("culturemix.real"), table)
    assert task.prompts["en"]["base"] == (
        "What is the name of the food in the red bounding box, and which country is it most closely associated with?"
    )
    assert set(task.prompts["en"]) == {"base", "direct", "cot"}
    for name in ("sf", "mf", "sfb", "mfb"):  # the task file already asks the paper's question
        declared = get_task(f"culturemix.{name}")
        assert with_prompt_table(declared, table).prompts == declared.prompts
