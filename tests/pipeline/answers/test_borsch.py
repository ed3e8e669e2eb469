"""`import-responses --format borsch` (a contract): BORSch answers run elsewhere come in as JSON lines
or CSV, land on the dish's item of their task and language, are scored like generated answers, and
nothing is lost silently."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.answers.borsch import borsch_tasks, parse_record, read_records
from pipeline.datasets.borsch import match_photo_names
from pipeline.flow.steps import AUDIT_ENV
from tests.conftest import make_dish_photos
from tests.helpers import REPO, query, run_cli, shown

LINES = [
    {
        "model": "m1",
        "lang": "ru",
        "task": "origin_qa",
        "variant": "1",
        "dish_id": "1",
        "response": "Из Греции.<|im_end|>",
    },
    {
        "model": "m1",
        "lang": "uk",
        "task": "borsch.origin_qa",
        "variant": 3,
        "dish_id": 5,
        "response": "Це страва, популярна в Україні, Польщі та Білорусі.",
    },
    {
        "model": "m1",
        "lang": "uk",
        "task": "origin_vqa",
        "variant": "2",
        "dish_id": "5",
        "response": None,
        "images": ["UK/images/5/1.jpg", "UK/images/5/2.jpg"],
    },
]


def write_jsonl(path: Path, records: list[dict | str]) -> Path:
    text = "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_jsonl_answers_are_imported_and_scored(borsch_warehouse: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "answers.jsonl", LINES)
    result = run_cli(borsch_warehouse, "import-responses", "--format", "borsch", str(path))
    assert "imported answers.jsonl: 3 answers of m1" in result.stderr
    rows = query(
        borsch_warehouse,
        """SELECT g.item_id, g.variant, g.response, e.countries, e.status
           FROM core.generations g JOIN core.extractions e USING (generation_id) ORDER BY g.item_id""",
    )
    assert rows[0] == ("borsch.origin_qa:ru:1", "1", "Из Греции.", ["GR"], "ok")
    assert rows[1][:2] == ("borsch.origin_qa:uk:5", "3")
    assert rows[2] == ("borsch.origin_vqa:uk:5", "2", None, [], "empty")
    # the gold is the dish's origins in that language's file; the Greek dish is right
    assert query(
        borsch_warehouse,
        """SELECT s.value FROM core.scores s JOIN core.generations g USING (generation_id)
           WHERE g.item_id = 'borsch.origin_qa:ru:1' AND s.metric = 'jaccard'""",
    ) == [(1.0,)]
    assert query(borsch_warehouse, "SELECT images FROM raw.borsch_responses WHERE line_number = 3") == [
        (["UK/images/5/1.jpg", "UK/images/5/2.jpg"],)
    ]
    quirks = dict(query(borsch_warehouse, "SELECT kind, message FROM meta.ingest_reports WHERE file = 'answers.jsonl'"))
    assert quirks["chat_token"].startswith("1 lines") and quirks["missing_response"].startswith("1 lines")
    again = run_cli(borsch_warehouse, "import-responses", "--format", "borsch", str(path))
    assert "already imported" in again.stderr
    assert query(borsch_warehouse, "SELECT count(*) FROM core.generations") == [(3,)]


def test_csv_with_a_multiline_answer_and_images(borsch_warehouse: Path, tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "lang", "task", "variant", "dish_id", "response", "images"])
        writer.writerow(["m2", "ru", "borsch.origin_vqa_with_name", "4", "1", "Греция.\nТакже Кипр.", "a.jpg|b.jpg"])
        writer.writerow(["m2", "uk", "dish_name_vqa", "1", "5", "", ""])
    run_cli(borsch_warehouse, "import-responses", "--format", "borsch", str(path))
    assert query(
        borsch_warehouse, "SELECT line_number, dish_id, response, images FROM raw.borsch_responses ORDER BY 1"
    ) == [(3, "1", "Греция.\nТакже Кипр.", ["a.jpg", "b.jpg"]), (4, "5", None, [])]


def test_images_are_linked_to_the_dishs_known_photos_and_unknown_names_are_counted(
    borsch_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An imported VQA answer's `images` become its item's photos (core.item_images, as `generate` records them);
    a name matching no known photo, and photos other than those an item already has, are counted quirks."""
    from pipeline.imagine.embed import register_real_images
    from warehouse.db import Warehouse

    photos = make_dish_photos(tmp_path / "photos", "UK", [5])
    with Warehouse(borsch_warehouse).writer() as con:  # as `generate --images` or `imagine --images` registers them
        assert register_real_images(con, "borsch", "uk", ["borsch:uk:5"], photos) == 2
    ids = {Path(path).name: image_id for image_id, path in query(
        borsch_warehouse.with_suffix(".work.duckdb"), "SELECT image_id, local_path FROM core.images WHERE kind = 'real'"
    )}  # fmt: skip
    vqa = {"lang": "uk", "task": "origin_vqa", "variant": "1", "dish_id": "5", "response": "Україна"}
    path = write_jsonl(tmp_path / "vqa.jsonl", [
        {**vqa, "model": "m1", "images": ["data/UK/images/5/photo_1.png", "photo_0.png", "nope.jpg"]},
        {**vqa, "model": "m2", "images": ["UK\\images\\5\\photo_0.png"]},
        {**vqa, "model": "m3", "variant": "2", "images": ["photo_1.png", "photo_0.png"]},
    ])  # fmt: skip
    monkeypatch.setenv(AUDIT_ENV, "1")  # the items and the photos it links are built by the ingest step, their writer
    run_cli(borsch_warehouse, "import-responses", "--format", "borsch", str(path))
    assert query(
        borsch_warehouse,
        "SELECT image_id FROM core.item_images WHERE item_id = 'borsch.origin_vqa:uk:5' ORDER BY position",
    ) == [(ids["photo_1.png"],), (ids["photo_0.png"],)]  # the first answer's photos, in its order
    quirks = dict(query(borsch_warehouse, "SELECT kind, message FROM meta.ingest_reports WHERE file = 'vqa.jsonl'"))
    assert quirks["unknown_image"].startswith("1 lines: image names matching no photo")
    assert quirks["unknown_image"].endswith("(first on line 1: 'nope.jpg')")
    assert quirks["images_differ"].startswith("1 lines:") and "(first on line 2)" in quirks["images_differ"]
    assert query(borsch_warehouse, "SELECT count(*) FROM core.generations") == [(3,)]  # every answer kept
    # ... and the Dish page shows them under the answers, as it does for generated answers (same warehouse: one import)
    photos_sql = "SELECT n_answers, n_imported, count(*) FROM marts.answer_photos WHERE dish_key = ? GROUP BY ALL"
    assert query(borsch_warehouse, photos_sql, ["borsch:uk:5"]) == [(3, 3, 2)]
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(borsch_warehouse))
    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=90)
    for name, value in {"dataset": "borsch", "task": "origin_vqa", "dish": "borsch:uk:5", "alang": "all"}.items():
        at.query_params[name] = value
    at.run().switch_page("views/dish.py").run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [shown(str(c.value)) for c in at.caption]
    assert "borsch.origin_vqa:uk:5: 3 answers saw these photos (3 imported)" in captions
    (photos_shown,) = [block for block in at.expander if block.label == "Photos shown with these answers (2)"]
    assert len(photos_shown.get("image")) == 2  # the two linked photos, read from their files
    assert "2 photos of this dish from a local folder; the answers below show those they saw." in captions


def test_a_photo_name_is_matched_by_the_repositorys_layout() -> None:
    photos = [("own", "/d/borsch/UK/images/5/0.jpg"), ("pair", "/d/borsch/RU/images/9/0.jpg")]
    assert match_photo_names(("0.jpg",), photos) == (["own"], [])  # the dish's own language first
    assert match_photo_names(("RU/images/9/0.jpg", "9/0.jpg", "UK/images/6/0.jpg"), photos) == (
        ["pair"],
        ["UK/images/6/0.jpg"],  # another dish's photo is not this dish's
    )


def test_a_bad_line_stops_the_file_and_changes_nothing(borsch_warehouse: Path, tmp_path: Path) -> None:
    before = borsch_warehouse.read_bytes()
    bad = {**LINES[0], "dish_id": "999999"}
    path = write_jsonl(tmp_path / "answers.jsonl", [LINES[0], bad])
    result = run_cli(borsch_warehouse, "import-responses", "--format", "borsch", str(path), check=False)
    assert result.returncode == 2
    message = " ".join(result.stderr.split())
    assert "answers.jsonl:2: dish_id 999999 is not a dish of RU_DATA.xlsx" in message
    assert borsch_warehouse.read_bytes() == before


def test_skip_bad_lines_records_each_rejection_and_the_share_limit_holds(
    borsch_warehouse: Path, tmp_path: Path
) -> None:
    lines = [*LINES, "not json", {**LINES[0], "variant": "9"}, LINES[0]]
    path = write_jsonl(tmp_path / "answers.jsonl", lines)
    refused = run_cli(
        borsch_warehouse, "import-responses", "--format", "borsch", "--skip-bad-lines", str(path), check=False
    )
    assert refused.returncode == 2 and "3 of 6 lines rejected" in " ".join(refused.stderr.split())
    run_cli(
        borsch_warehouse,
        "import-responses",
        "--format",
        "borsch",
        "--skip-bad-lines",
        "--max-bad-share",
        "1",
        str(path),
    )
    rejected = query(
        borsch_warehouse, "SELECT line, message FROM meta.ingest_reports WHERE severity = 'rejected' ORDER BY line"
    )
    assert [line for line, _ in rejected] == [4, 5, 6]
    assert "not valid JSON" in rejected[0][1]
    assert "variant must be one of borsch.origin_qa's ru prompt variants" in rejected[1][1]
    assert "second answer of m1 to borsch.origin_qa variant 1 for ru dish 1 (first on line 1)" in rejected[2][1]
    assert query(borsch_warehouse, "SELECT count(*) FROM core.generations") == [(3,)]


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({**LINES[0], "lang": "en"}, "lang must be ru or uk"),
        ({**LINES[0], "task": "origin"}, "task 'origin' is not a BORSch task"),
        ({**LINES[0], "dish_id": "12a"}, "dish_id must be a whole number"),
        ({**LINES[0], "response": ["Греция"]}, "response must be text or null"),
        ({**LINES[0], "model": ""}, "model must be a non-empty string"),
        ({**LINES[0], "images": "[oops"}, "images is not a JSON list"),
    ],
)
def test_malformed_records_say_why(record: dict, reason: str) -> None:
    assert reason in parse_record(record, borsch_tasks())


def test_a_csv_without_the_contract_columns_is_refused(borsch_warehouse: Path, tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("model,lang,task,dish_id,answer\nm,ru,origin_qa,1,Греция\n", encoding="utf-8")
    result = run_cli(borsch_warehouse, "import-responses", "--format", "borsch", str(path), check=False)
    assert result.returncode == 2
    assert "answers.csv:1: missing columns variant, response" in " ".join(result.stderr.split())


def test_the_papers_rule_sits_beside_ours_in_both_exports(borsch_warehouse: Path, tmp_path: Path) -> None:
    """BORSch §4.1 counts every country an answer names; ours drops the negated one. Dish RU 1 is Greek."""
    answers = [
        {**LINES[0], "variant": "1", "response": "Не из Турции, а из Греции."},
        {**LINES[0], "variant": "2", "response": "Греция."},
    ]
    run_cli(borsch_warehouse, "import-responses", "--format", "borsch", str(write_jsonl(tmp_path / "a.jsonl", answers)))
    scores = list(csv.DictReader(run_cli(borsch_warehouse, "export", "origin-scores").stdout.splitlines()))
    by_variant = {row["variant"]: row for row in scores}
    contract = ["dataset", "model", "task", "lang", "item_id", "variant", "gold", "predicted", "jaccard", "dice"]
    assert list(scores[0])[:12] == [*contract, "overlap", "status"]
    added = ["reading", "paper_predicted", "paper_jaccard", "paper_dice", "paper_overlap", "paper_exact"]
    assert list(scores[0])[-6:] == added
    assert (by_variant["1"]["predicted"], by_variant["1"]["paper_predicted"]) == ("GR", "TR,GR")
    assert (float(by_variant["1"]["jaccard"]), float(by_variant["1"]["paper_jaccard"])) == (1.0, 0.5)
    assert by_variant["1"]["reading"] == "origin"
    for method, accuracy, jaccard in (("paper", 50.0, 0.75), ("atlas", 100.0, 1.0)):
        (row,) = csv.DictReader(run_cli(borsch_warehouse, "export", "accuracy", "--method", method).stdout.splitlines())
        assert list(row)[:6] == ["dataset", "model", "task", "lang", "n", "accuracy"]
        assert (row["dataset"], row["n"], float(row["accuracy"]), float(row["jaccard"])) == (
            "borsch",
            "2",
            accuracy,
            jaccard,
        )


def test_a_jsonl_file_starting_with_a_bad_line_is_still_read_as_json_lines(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "answers.jsonl", ["oops", LINES[0]])
    (first, second) = read_records(path)
    assert first[0] == 1 and first[2].startswith("not valid JSON")
    assert second[0] == 2 and second[2]["model"] == "m1"
