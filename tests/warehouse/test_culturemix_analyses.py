"""CultureMix as published (issue 37): the `Country:` line and its stored fallback, and every analysis
mart (Fig. 3a/5/8/9/17/19, Tables 2 and 6-11) on a small hand-built answer set whose values are worked
out by hand below, end to end: images written into the warehouse, answers through
`import-responses --format culturemix`, `score` (the countries extraction, the food parse and
core.culturemix_scores), then the published marts and the page that shows them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from pipeline.extract.countries import extract_countries
from pipeline.score.culturemix import asks_country_line, country_line, country_of_answer
from pipeline.score.culturemix_stage import score_frame
from pipeline.tasks import get_task
from tests.helpers import REPO, copy_warehouse, query, run_cli


def _countries(text: str) -> tuple[str, ...]:
    return extract_countries(text, "en").countries


# --- the country of an answer (§3.1) ------------------------------------------------------------


def test_the_direct_and_cot_prompts_ask_for_a_country_line_and_the_paper_question_does_not():
    for subtask in ("sf", "mf", "sfb", "mfb", "real"):
        prompts = get_task(f"culturemix.{subtask}").prompts["en"]
        assert not asks_country_line(prompts["base"])
        assert asks_country_line(prompts["direct"]) and asks_country_line(prompts["cot"])


def test_the_country_line_wins_over_an_earlier_mention():
    answer = "The plate sits in front of a Mexican street.\nFood: Aletria.\nCountry: Portugal."
    mentions = _countries(answer)
    assert mentions[0] == "MX"  # what the first-mention rule took before
    assert country_line(answer) == "Portugal."
    assert country_of_answer(answer, mentions, True, _countries) == ("PT", "country_line")
    # the paper's base question asks for no line: the first mention, stored as such
    assert country_of_answer(answer, mentions, False, _countries) == ("MX", "first_mention")


def test_name_variants_on_the_country_line_count_as_their_country():
    assert country_of_answer("Food: Bulgogi. Country: South Korea", ["KR"], True, _countries)[0] == "KR"
    assert country_of_answer("Food: Hot dog. Country: **USA**", ["US"], True, _countries)[0] == "US"
    assert country_of_answer("Food: Steak pie. Country: England", ["GB"], True, _countries)[0] == "GB"
    assert country_of_answer("**Food:** Pho\n**Country:** Viet Nam", ["VN"], True, _countries)[0] == "VN"
    assert country_of_answer("Paella? No. Country of origin: Portugal", ["ES", "PT"], True, _countries)[0] == "PT"


def test_without_a_usable_line_the_first_mention_is_a_stored_fallback():
    assert country_of_answer("Aletria, from Spain.", ["ES"], True, _countries) == ("ES", "fallback_first_mention")
    assert country_of_answer("Country: unknown", ["ES"], True, _countries) == ("ES", "fallback_first_mention")
    assert country_of_answer("I cannot tell.", [], True, _countries) == (None, "none")
    assert country_of_answer("I cannot tell.", [], False, _countries) == (None, "none")


def test_score_frame_reads_countries_finds_the_sf_answer_and_the_shift():
    rows = pl.DataFrame(
        {
            "generation_id": ["g-sf", "g-mf", "g-mf-base"],
            "model": ["m", "m", "m"],
            "prompt": ["direct", "direct", "base"],
            "task_id": ["culturemix.sf", "culturemix.mf", "culturemix.mf"],
            "subtask": ["SF", "MF", "MF"],
            "target_food_id": ["1", "1", "1"],
            "image": ["sf.jpg", "mf.jpg", "mf.jpg"],
            "target_scale": [1.0, 1.0, 1.0],
            "response": [
                "Food: Aletria. Country: Portugal",
                "Beside Spanish paella. Food: Aletria. Country: Spain",
                "Aletria beside paella from Spain, as in Portugal.",
            ],
            "target_country": ["PT", "PT", "PT"],
            "distractor_country": [None, "ES", "ES"],
            "background_country": [None, None, None],
            "first_mentions": [["PT"], ["ES"], ["ES", "PT"]],
            "predicted_food": ["Aletria", "Aletria", "Aletria"],
            "food_similarity": [1.0, 1.0, 0.5],
        }
    )
    asks = {("culturemix.sf", "direct"): True, ("culturemix.mf", "direct"): True}
    scored = {r["generation_id"]: r for r in score_frame(rows, lambda t, p: asks.get((t, p), False)).to_dicts()}
    assert scored["g-sf"]["country_source"] == "country_line" and scored["g-sf"]["shift"] is None
    assert scored["g-mf"]["predicted_country"] == "ES" and scored["g-mf"]["sf_generation_id"] == "g-sf"
    assert scored["g-mf"]["shift"] == "to_distractor_country" and not scored["g-mf"]["country_correct"]
    # the base prompt's answer has no SF answer with the base prompt: no shift
    assert scored["g-mf-base"]["country_source"] == "first_mention" and scored["g-mf-base"]["shift"] is None
    assert not scored["g-mf-base"]["food_correct"]  # 0.5 is under the rule's 0.8


# --- the analyses on a hand-built answer set -----------------------------------------------------
#
# Two target foods, Aletria (PT, Europe) and Sushi (JP, Asia); one model `m`. Columns: image, subtask,
# food, the other food (its country), the background, the scene, the target's position and scale.
IMAGES = [
    ("hand/f1-sf.jpg", "SF", "F1", None, None, None, None, None, None),
    ("hand/f1-sf-small.jpg", "SF", "F1", None, None, None, None, None, 0.5),
    ("hand/f1-mf-es.jpg", "MF", "F1", ("Paella", "ES"), None, None, "same_continent", None, None),
    ("hand/f1-mf-cm.jpg", "MF", "F1", ("Puff puff", "CM"), None, None, "other_continent", None, None),
    ("hand/f1-mf-pt.jpg", "MF", "F1", ("Bacalhau", "PT"), None, None, "same_country", None, None),
    ("hand/f1-mf-es-flip.jpg", "MF", "F1", ("Paella", "ES"), None, None, "same_continent", "right", None),
    ("hand/f1-sfb-mx.jpg", "SFB", "F1", None, ("Mexico1", "MX"), "street", "other_continent", None, None),
    ("hand/f1-sfb-es.jpg", "SFB", "F1", None, ("Spain1", "ES"), "landmark", "same_continent", None, None),
    ("hand/f1-real-same.jpg", "REAL", "F1", ("Bacalhau", "PT"), None, None, "same_country", None, None),
    ("hand/f1-real-cross.jpg", "REAL", "F1", ("Sushi", "JP"), None, None, "other_continent", None, None),
    ("hand/f2-sf.jpg", "SF", "F2", None, None, None, None, None, None),
    ("hand/f2-mf-cn.jpg", "MF", "F2", ("Dumplings", "CN"), None, None, "same_continent", None, None),
]
# CultureMix-Real photos (§5.1), as pipeline/datasets/culturemix_real.py loads them: the food in a red box in
# each photo (REAL, the photo's same/cross label) and cropped out (SF); their food has its own id. The two
# hand/f1-real-* images above are composed red-box variants, no real photos.
REAL_PHOTOS = [
    ("real/t1.jpg#box0", "REAL", "same", ("Bacalhau", "PT"), "same_country"),
    ("real/t2.jpg#box0", "REAL", "cross", ("Sushi", "JP"), "other_continent"),
    ("real/t1.jpg#crop0", "SF", "same", None, None),
]
FOODS = {"F1": ("Aletria", "PT"), "F2": ("Sushi", "JP"), "real-aletria": ("Aletria", "PT")}
# Base prompt (the paper's question: first mention) — country right?, food right?
BASE = {
    "hand/f1-sf.jpg": "This is Aletria from Portugal.",  # PT  T T
    "hand/f1-sf-small.jpg": "Aletria from Spain.",  # ES  F T
    "hand/f1-mf-es.jpg": "Paella from Spain.",  # ES  F F
    "hand/f1-mf-cm.jpg": "Aletria from Cameroon.",  # CM  F T
    "hand/f1-mf-pt.jpg": "Aletria from Portugal.",  # PT  T T
    "hand/f1-mf-es-flip.jpg": "Paella from Spain.",  # ES  F F
    "hand/f1-sfb-mx.jpg": "Tacos from Mexico.",  # MX  F F
    "hand/f1-sfb-es.jpg": "Aletria from Portugal.",  # PT  T T
    "hand/f1-real-same.jpg": "Aletria from Portugal.",  # PT  T T
    "hand/f1-real-cross.jpg": "Aletria from Japan.",  # JP  F T
    "hand/f2-sf.jpg": "Sushi from Japan.",  # JP  T T
    "hand/f2-mf-cn.jpg": "Sushi from China.",  # CN  F T
    "real/t1.jpg#box0": "Aletria from Portugal.",  # PT  T T
    "real/t2.jpg#box0": "Aletria from Japan.",  # JP  F T
    "real/t1.jpg#crop0": "Aletria from Spain.",  # ES  F T
}
# Direct prompt (asks for the Country: line; the Mexican street and Spain are mentioned first)
DIRECT = {
    "hand/f1-sf.jpg": "Food: Aletria. Country: Portugal.",
    "hand/f1-mf-es.jpg": "Next to Spanish paella. Food: Aletria. Country: Portugal.",  # PT T T
    "hand/f1-mf-cm.jpg": "Food: Aletria. Country: Portugal.",  # PT T T
    "hand/f1-mf-pt.jpg": "Food: Aletria. Country: Portugal.",  # PT T T
}


def _write_images(work: Path) -> None:
    """The hand-built images and their items, in place of the sample's (the dataset's own are removed)."""
    from pipeline.datasets.culturemix import _ItemRows, remove

    con = duckdb.connect(str(work))
    try:
        remove(con)
        rows, items = [], _ItemRows()
        for image, subtask, food, other, background, scene, distance, position, scale in IMAGES:
            name, country = FOODS[food]
            rows.append(
                {
                    "image": image,
                    "origin": "composed",
                    "subset": "composed",
                    "subtask": subtask,
                    "scene": scene,
                    "distractor_kind": "none" if subtask == "SF" else "cultural",
                    "target_food_id": food,
                    "target_food_name": name,
                    "target_country": country,
                    "distractor_food_name": other[0] if other else None,
                    "distractor_country": other[1] if other else None,
                    "background_label": background[0] if background else None,
                    "background_country": background[1] if background else None,
                    "distance": distance,
                    "target_position": position,
                    "target_scale": scale,
                }
            )
            items.add(subtask, image, None, "composed", None, country, [])
        name, country = FOODS["real-aletria"]
        for image, subtask, culture, other, distance in REAL_PHOTOS:
            photo = image.split("#")[0].removeprefix("real/")
            rows.append(
                {
                    "image": image,
                    "origin": "dataset",
                    "subset": "real",
                    "subtask": subtask,
                    "distractor_kind": "none" if subtask == "SF" else "cultural",
                    "target_food_id": "real-aletria",
                    "target_food_name": name,
                    "target_country": country,
                    "distractor_food_name": other[0] if other else None,
                    "distractor_country": other[1] if other else None,
                    "distance": distance,
                    "real_culture": culture,
                    "photo": photo,
                }
            )
            items.add(subtask, image, None, "real", None, country, [])
        con.register("_hand", pl.DataFrame(rows, infer_schema_length=None))
        con.execute("INSERT INTO core.culturemix_images BY NAME SELECT * FROM _hand")
        items.write(con, replace=True)
    finally:
        con.close()


@pytest.fixture(scope="module")
def analysed(tmp_path_factory, ingested_template) -> Path:
    root = tmp_path_factory.mktemp("cm-analyses")
    warehouse = copy_warehouse(ingested_template("culturemix"), root / "warehouse.duckdb")
    _write_images(warehouse.with_suffix(".work.duckdb"))
    answers = root / "answers.jsonl"
    lines = [{"model": "m", "image": i, "prompt": "base", "response": r} for i, r in BASE.items()]
    lines += [{"model": "m", "image": i, "prompt": "direct", "response": r} for i, r in DIRECT.items()]
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run_cli(warehouse, "--no-publish", "import-responses", "--format", "culturemix", str(answers))
    run_cli(warehouse, "score")
    return warehouse


def _cells(warehouse: Path, analysis: str, prompt: str = "base") -> dict[tuple[str, str], tuple]:
    rows = query(
        warehouse,
        # ours (across the images) and then the paper's entropy (over each image's repeated samples)
        "SELECT subtask, cell, n_answers, country_accuracy, food_accuracy, country_entropy_across_images, "
        "food_entropy_across_images, country_entropy, food_entropy "
        "FROM marts.culturemix_cells WHERE analysis = ? AND model = 'm' AND prompt = ?",
        [analysis, prompt],
    )
    return {(r[0], r[1]): tuple(r[2:]) for r in rows}


def test_the_score_stage_reads_the_country_line_and_stores_where_each_country_came_from(analysed: Path):
    rows = dict(
        query(
            analysed,
            "SELECT prompt || ' ' || image, predicted_country || ' ' || country_source "
            "FROM marts.culturemix_answers WHERE image IN ('hand/f1-mf-es.jpg', 'hand/f1-sfb-mx.jpg')",
        )
    )
    assert rows["direct hand/f1-mf-es.jpg"] == "PT country_line"  # Spain is mentioned first
    assert rows["base hand/f1-mf-es.jpg"] == "ES first_mention"
    assert rows["base hand/f1-sfb-mx.jpg"] == "MX first_mention"
    assert query(analysed, "SELECT DISTINCT scorer FROM core.culturemix_scores") == [("culturemix_score@1",)]


def test_accuracy_and_entropy_per_subtask(analysed: Path):
    cells = _cells(analysed, "subtask")
    # SF: PT, ES (Aletria), JP (Sushi), ES (the real photo's crop): country 2/4; entropy across images: Aletria
    # {PT, ES} 1 bit, Sushi 0, the crop 0 -> mean 1/3; as published (over each image's repeated samples): one
    # answer per image, 0
    assert cells[("SF", "SF")] == pytest.approx((4, 0.5, 1.0, 1 / 3, 0.0, 0.0, 0.0))
    # MF: Aletria ES, CM, PT, ES -> 1.5 bits; foods Paella, Aletria, Aletria, Paella -> 1 bit; Sushi CN -> 0
    assert cells[("MF", "MF")] == pytest.approx((5, 1 / 5, 3 / 5, 0.75, 0.5, 0.0, 0.0))
    assert cells[("SFB", "SFB")] == pytest.approx((2, 0.5, 0.5, 1.0, 1.0, 0.0, 0.0))
    # every REAL image, composed or real: PT, JP (Aletria composed: 1 bit), PT, JP (the real photos: 1 bit)
    assert cells[("REAL", "REAL")] == pytest.approx((4, 0.5, 1.0, 1.0, 0.0, 0.0, 0.0))


def test_accuracy_and_entropy_by_distance_per_subtask(analysed: Path):
    cells = _cells(analysed, "distance")
    assert cells[("MF", "same_country")] == pytest.approx((1, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0))
    # ES, ES (Aletria: 0 bits) and CN (Sushi: 0 bits); only the Sushi answer names its food
    assert cells[("MF", "same_continent")] == pytest.approx((3, 0.0, 1 / 3, 0.0, 0.0, 0.0, 0.0))
    assert cells[("MF", "other_continent")] == pytest.approx((1, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0))
    assert cells[("SFB", "other_continent")][:2] == (1, 0.0)
    assert cells[("SFB", "same_continent")][:2] == (1, 1.0)


def test_street_vs_landmark_and_real_photos(analysed: Path):
    background = _cells(analysed, "background")
    assert background[("SFB", "street")][:3] == (1, 0.0, 0.0)
    assert background[("SFB", "landmark")][:3] == (1, 1.0, 1.0)
    # Fig. 8 / Table 9: the CultureMix-Real photos only (the composed red-box variants are no real photos)
    real = _cells(analysed, "real")
    assert set(real) == {("REAL", "same_culture"), ("REAL", "cross_culture"), ("REAL", "SF")}
    assert real[("REAL", "same_culture")][:3] == (1, 1.0, 1.0)
    assert real[("REAL", "cross_culture")][:3] == (1, 0.0, 1.0)
    # the SF answers on the foods cropped out of those photos (ES)
    assert real[("REAL", "SF")] == pytest.approx((1, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0))
    listed = query(analysed, "SELECT DISTINCT image FROM marts.culturemix_cell_answers WHERE analysis = 'real'")
    assert sorted(i for (i,) in listed) == ["real/t1.jpg#box0", "real/t1.jpg#crop0", "real/t2.jpg#box0"]


def test_position_and_size_bias_pair_each_variant_with_the_image_as_published(analysed: Path):
    pairs = {
        (r[0], r[1]): r[2:]
        for r in query(
            analysed,
            "SELECT analysis, variant, subtask, n_pairs, country_consistency, food_consistency, "
            "original_country_accuracy, variant_country_accuracy FROM marts.culturemix_pairs "
            "WHERE model = 'm' AND prompt = 'base'",
        )
    }
    # flipped Paella/Spain answer against the unflipped one: the same labels, both wrong
    assert pairs[("position", "right")] == ("MF", 1, 1.0, 1.0, 0.0, 0.0)
    # the half-size SF image: ES instead of PT, the same food
    assert pairs[("size", "smaller")] == ("SF", 1, 0.0, 1.0, 1.0, 0.0)
    position = _cells(analysed, "position")
    assert position[("MF", "left")][0] == 4 and position[("MF", "right")][0] == 1


def test_transitions_from_sf_to_the_mixed_subtasks(analysed: Path):
    rows = query(
        analysed,
        "SELECT subtask, measure, sf_correct, mixed_correct, n_answers, share FROM marts.culturemix_transitions "
        "WHERE model = 'm' AND prompt = 'base' AND subtask = 'MF'",
    )
    # every SF answer is right; MF countries: ES, CM, PT, ES (Aletria), CN (Sushi) -> 1 stays right, 4 go wrong
    assert rows == [
        ("MF", "country", True, True, 1, pytest.approx(0.2)),
        ("MF", "country", True, False, 4, pytest.approx(0.8)),
        ("MF", "food", True, True, 3, pytest.approx(0.6)),
        ("MF", "food", True, False, 2, pytest.approx(0.4)),
    ]


def test_mf_combinations(analysed: Path):
    assert query(analysed, "SELECT * FROM marts.culturemix_combinations") == [
        ("JP", "CN", 1, 1),
        ("PT", "CM", 1, 1),
        ("PT", "ES", 2, 1),
        ("PT", "PT", 1, 1),
    ]


def test_mitigation_paired_t_test_against_the_base_prompt(analysed: Path):
    rows = {
        (r[0], r[1]): r[2:]
        for r in query(
            analysed,
            "SELECT subtask, measure, n_pairs, base_value, method_value, t_statistic, p_value "
            "FROM marts.culturemix_mitigation WHERE model = 'm' AND method = 'direct' AND split = 'all'",
        )
    }
    # MF countries, base -> direct per image: 0->1, 0->1, 1->1: d = (1, 1, 0), t = (2/3) / (sqrt(1/3)/sqrt(3)) = 2;
    # two-sided p of Student's t with 2 degrees of freedom: 1 - t / sqrt(2 + t^2)
    assert rows[("MF", "country_accuracy")] == pytest.approx((3, 1 / 3, 1.0, 2.0, 1 - 2 / math.sqrt(6)))
    # MF foods: 0->1, 1->1, 1->1: d = (1, 0, 0), t = 1, p = 1 - 1/sqrt(3)
    assert rows[("MF", "food_accuracy")] == pytest.approx((3, 2 / 3, 1.0, 1.0, 1 - 1 / math.sqrt(3)))
    # one pair only (the SF image; Aletria's MF entropy, as published: one answer per image, 0): the test is
    # undefined, p empty
    assert rows[("SF", "country_accuracy")][:1] == (1,) and rows[("SF", "country_accuracy")][3:] == (None, None)
    assert rows[("MF", "country_entropy")] == pytest.approx((1, 0.0, 0.0, None, None))
    # the 7:3 split (§6.1) keeps at least one food of each country for training: with one food per country, as
    # here, nothing is left to test on, and the published comparison has no rows (ours, over every image, does)
    assert query(analysed, "SELECT count(*) FROM marts.culturemix_mitigation WHERE split = 'test'") == [(0,)]


# Repeated samples of the SF images (import lines with `sample`): Aletria's SF image PT (sample 0), ES, PT;
# its half-size image ES once; Sushi's SF image JP twice.
SAMPLES = [
    ("hand/f1-sf.jpg", 1, "Aletria from Spain."),
    ("hand/f1-sf.jpg", 2, "Aletria from Portugal."),
    ("hand/f2-sf.jpg", 1, "Sushi from Japan."),
]


@pytest.fixture(scope="module")
def sampled(analysed: Path, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cm-samples")
    warehouse = copy_warehouse(analysed, root / "warehouse.duckdb")
    answers = root / "samples.jsonl"
    lines = [{"model": "m", "image": i, "prompt": "base", "sample": n, "response": r} for i, n, r in SAMPLES]
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run_cli(warehouse, "--no-publish", "import-responses", "--format", "culturemix", str(answers))
    run_cli(warehouse, "score")
    return warehouse


def test_sf_entropy_as_published_is_over_each_images_repeated_samples(sampled: Path):
    aletria_image = -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))  # {PT, ES, PT}
    cells = _cells(sampled, "subtask")
    # Aletria: (0.918 + 0 for the half-size image) / 2, Sushi {JP, JP}: 0, the real crop 0 -> mean over foods;
    # ours pools the images: Aletria {PT, ES, PT, ES} 1 bit, Sushi 0, the crop 0 -> 1/3
    assert cells[("SF", "SF")] == pytest.approx((7, 4 / 7, 1.0, 1 / 3, 0.0, aletria_image / 6, 0.0))
    rows = query(
        sampled,
        "SELECT target_food_id, n_answers, entropy, entropy_across_images, samples_per_image "
        "FROM marts.culturemix_entropy WHERE model = 'm' AND prompt = 'base' AND grouping = 'SF' ORDER BY 1",
    )
    assert rows == [
        ("F1", 4, pytest.approx(aletria_image / 2), pytest.approx(1.0), 2.0),
        ("F2", 2, 0.0, 0.0, 2.0),
        ("real-aletria", 1, 0.0, 0.0, 1.0),
    ]


def test_a_repeated_sample_is_numbered_from_0_and_a_bad_number_is_a_bad_line():
    from pipeline.answers.culturemix import parse_line

    items = {"hand/f1-sf.jpg": "item-1"}
    line = {"model": "m", "image": "hand/f1-sf.jpg", "prompt": "base", "response": "Aletria."}
    assert parse_line(json.dumps(line), items).sample == 0
    assert parse_line(json.dumps(line | {"sample": 3}), items).sample == 3
    for bad in (-1, 1.5, "2", True):
        assert "sample must be a whole number" in parse_line(json.dumps(line | {"sample": bad}), items)


def test_every_cell_lists_exactly_its_answers(analysed: Path):
    mismatched = query(
        analysed,
        """
        SELECT c.analysis, c.subtask, c.cell FROM marts.culturemix_cells c
        WHERE c.n_answers <> (SELECT count(*) FROM marts.culturemix_cell_answers a
                              WHERE a.analysis = c.analysis AND a.model = c.model AND a.prompt = c.prompt
                                AND a.subtask = c.subtask AND a.cell = c.cell)
        """,
    )
    assert mismatched == []


def test_the_page_shows_each_table_and_the_answers_behind_a_cell(analysed: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(analysed))
    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=120)
    at.query_params.update(
        {"dataset": "culturemix", "part": "tables", "analysis": "transition", "cm_model": "m", "subtask": "MF"}
        | {"cell": "country: right in SF → wrong"}
    )
    at.run()
    at.switch_page("views/culturemix.py").run()
    assert not at.exception, [e.value for e in at.exception]
    headers = " ".join(h.value for h in at.subheader)
    for name in ("Fig. 3a", "Fig. 5", "Table 7", "Fig. 8", "Table 10", "Table 11", "Fig. 17", "Fig. 9", "Table 2"):
        assert name in headers, name
    captions = " ".join(c.value for c in at.caption)
    assert "0.8" in captions  # the food-match threshold, stated
    assert "4 answers of m with the base prompt" in captions
    frames = [df.value for df in at.dataframe]
    (paper,) = [f for f in frames if "country accuracy, MF" in f.columns]  # Tables 6 and 8, one row per model
    assert paper.to_dict("records")[0]["country accuracy, MF"] == pytest.approx(0.2)
    assert paper.to_dict("records")[0]["country entropy (bits), MF"] == pytest.approx(0.0)  # one answer per image
    behind = next(f for f in frames if "response" in f.columns)
    assert sorted(behind["image"]) == [
        "hand/f1-mf-cm.jpg",
        "hand/f1-mf-es-flip.jpg",
        "hand/f1-mf-es.jpg",
        "hand/f2-mf-cn.jpg",
    ]
    text = " ".join(m.value for m in at.markdown)
    assert "m (replay, 19 answers on 15 images)" in text  # which model produced what the page shows
    # Table 2 as published compares on the 7:3 split's test side (§6.1): one food per country leaves none to test
    assert any("test side of the split" in info.value for info in at.info)


def test_a_new_scorer_version_rescores_and_nothing_else_does(analysed: Path, tmp_path: Path):
    from pipeline.score.culturemix_stage import SCORER, score_answers

    copy = copy_warehouse(analysed, tmp_path / "warehouse.duckdb").with_suffix(".work.duckdb")
    con = duckdb.connect(str(copy))
    try:
        assert score_answers(con) == 0  # everything is scored by the current version
        con.execute("UPDATE core.culturemix_scores SET scorer = 'culturemix_score@0'")  # an older rule's rows
        assert score_answers(con) == 19
        assert con.execute("SELECT DISTINCT scorer FROM core.culturemix_scores").fetchall() == [(SCORER,)]
    finally:
        con.close()


def test_the_page_links_each_bias_pair_to_its_answers(analysed: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(analysed))
    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=120)
    at.query_params.update({"dataset": "culturemix", "part": "tables"})
    at.run()
    at.switch_page("views/culturemix.py").run()
    assert not at.exception, [e.value for e in at.exception]
    frames = [df.value for df in at.dataframe]
    flipped = next(f for f in frames if "country_consistency" in f.columns and "right" in set(f["variant"]))
    (link,) = flipped["answers"]
    assert link.startswith("culture-mix?") and "part=tables" in link
    assert "analysis=position" in link and "cell=right" in link
    assert link.endswith("#1%20answers")
