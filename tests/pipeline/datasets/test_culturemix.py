"""CultureMix ingest: the real sample and the full dataset's CSV layout, label normalisation, every
unresolved label reported, links to WorldCuisines, cultural distance, and `data fetch` offline."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import duckdb
import pytest
from PIL import Image

from pipeline.compose.culturemix import compose
from pipeline.datasets.culturemix import link_food, parse_background, register_compositions, resolve_country
from pipeline.extract.english import UnknownCountry
from pipeline.reference.cultural_distance import continent_of, cultural_distance, great_circle_km, nearest
from tests.helpers import copy_warehouse, query, run_cli


def test_background_labels_are_a_country_and_a_variant():
    assert parse_background("Mexico1") == ("MX", 1)
    assert parse_background("Unitedstates2") == ("US", 2)
    assert parse_background("Southkorea") == ("KR", None)
    assert parse_background("Unitedkingdom") == ("GB", None)
    assert parse_background("Spain") == ("ES", None)
    assert parse_background("— (white / no scene)") == (None, None)
    assert parse_background("") == (None, None)
    with pytest.raises(UnknownCountry):
        parse_background("Atlantis3")


def test_country_names_as_the_dataset_writes_them():
    assert resolve_country("England") == "GB"
    assert resolve_country("United States") == "US"
    assert resolve_country("Usa") == "US"
    assert resolve_country("United States Of America (Usa)") == "US"
    assert resolve_country("") is None
    with pytest.raises(UnknownCountry):
        resolve_country("Narnia")


def test_cultural_distance_uses_natural_earth_continents():
    assert continent_of("PT") == "Europe" and continent_of("MX") == "North America"
    assert cultural_distance("PT", "PT") == "same_country"
    assert cultural_distance("PT", "ES") == "same_continent"
    assert cultural_distance("PT", "CM") == "other_continent"
    assert cultural_distance("PT", None) is None
    assert great_circle_km("PT", "PT") == 0
    assert 350 < great_circle_km("PT", "ES") < 500  # Portugal's and Spain's label points
    assert 6_000 < great_circle_km("GB", "US") < 8_000
    assert nearest("other_continent", "same_continent", None) == "same_continent"
    assert nearest(None, None) is None


def test_link_by_id_when_the_names_agree_else_by_name():
    index = {
        "aletria": [("worldcuisines:en:1789", "Aletria")],
        "koshary": [("worldcuisines:en:115", "Koshary")],
        "stornoway black pudding": [("worldcuisines:en:1984", "Stornoway black pudding")],
    }
    assert link_food("1789", "Aletria", index).how == "id"
    assert link_food("927", "Koshary", index).dish_key == "worldcuisines:en:115"
    assert link_food("927", "Koshary", index).how == "name"
    assert link_food("1", "Stornoway black-pudding", index).how == "fuzzy"
    assert link_food("626", "Dumplings", index).dish_key is None


@pytest.fixture(scope="module")
def sample_warehouse(ingested_template) -> Path:
    return ingested_template("culturemix")  # read only: tests that write copy it


def test_the_sample_ingests_with_every_label_resolved_or_reported(sample_warehouse: Path, data_dir: Path):
    rows = query(sample_warehouse, "SELECT subtask, count(*) FROM core.culturemix_images GROUP BY 1 ORDER BY 1")
    assert dict(rows) == {"MF": 34, "MFB": 34, "SF": 18, "SFB": 34}
    assert query(sample_warehouse, "SELECT count(*) FROM core.items WHERE task_id LIKE 'culturemix.%'") == [(120,)]
    assert query(sample_warehouse, "SELECT count(*) FROM core.item_images ii JOIN core.images USING (image_id)") == [
        (120,)
    ]
    quirk_lines = {
        line for (line,) in query(sample_warehouse, "SELECT line FROM meta.ingest_reports WHERE dataset = 'culturemix'")
    }
    unresolved = query(
        sample_warehouse,
        """SELECT source_line, image FROM core.culturemix_images
           WHERE target_country IS NULL
              OR (subtask IN ('MF', 'MFB') AND distractor_country IS NULL)
              OR (subtask IN ('SFB', 'MFB') AND background_country IS NULL)""",
    )
    assert all(line in quirk_lines for line, _ in unresolved), unresolved
    with open(data_dir / "culturemix-sample" / "images.csv", encoding="utf-8") as handle:
        backgrounds = {row["background"] for row in csv.DictReader(handle)}
    assert {"Mexico1", "Unitedstates2", "Southkorea"} <= backgrounds
    assert query(
        sample_warehouse,
        "SELECT background_country, background_variant FROM core.culturemix_images "
        "WHERE background_label = 'Mexico1' LIMIT 1",
    ) == [("MX", 1)]


def test_gallery_pairs_are_split_into_target_and_distractor(sample_warehouse: Path):
    # images.csv: target_food_id '647+1362', 'Primary: Krumiri (Poland); secondary: Casoncelli', target_country 'Italy'
    assert query(
        sample_warehouse,
        """SELECT subtask, target_food_id, target_food_name, target_country, distractor_food_name,
                  distractor_country, distance FROM core.culturemix_images WHERE image = 'images/ff-01-png.jpg'""",
    ) == [("MF", "647", "Krumiri", "PL", "Casoncelli", "IT", "same_continent")]
    assert query(
        sample_warehouse,
        "SELECT subtask, scene, target_food_id, background_country FROM core.culturemix_images "
        "WHERE image = 'images/fb-01-jpg.jpg'",
    ) == [("SFB", "landmark", "2145", "SD")]
    kinds = {k for (k,) in query(sample_warehouse, "SELECT kind FROM meta.ingest_reports WHERE dataset='culturemix'")}
    assert {"gallery_pair", "background_label", "country_spelling", "truncated_name", "worldcuisines_missing"} <= kinds


def test_mfb_distance_is_the_nearest_distractor(sample_warehouse: Path):
    # seed-02-mfb-02: Dumplings (Poland) beside Pie à la Mode (United States) in front of Poland
    assert query(
        sample_warehouse,
        "SELECT distance_food, distance_background, distance FROM core.culturemix_images "
        "WHERE image = 'images/seed-02-mfb-02-jpeg.jpg'",
    ) == [("other_continent", "same_country", "same_country")]


def test_uk_nations_are_kept_beside_gb(sample_warehouse: Path):
    # images.csv: 'Primary: Steak pie (England); secondary: Pumpkin pie' / 'Bacon and egg pie (England)'
    # (gallery targets), and lineage rows whose distractor_country is 'England' (Fish pie)
    assert query(
        sample_warehouse,
        """SELECT image, target_country, target_nation, distractor_country, distractor_nation
           FROM core.culturemix_images WHERE target_nation IS NOT NULL OR distractor_nation IS NOT NULL
           ORDER BY image""",
    ) == [
        ("images/ff-04-png.jpg", "GB", "GB-ENG", "US", None),
        ("images/ffb-07-jpg.jpg", "GB", "GB-ENG", "MX", None),
        ("images/seed-02-mf-02-png.jpg", "PL", None, "GB", "GB-ENG"),
        ("images/seed-02-mfb-01-jpg.jpg", "PL", None, "GB", "GB-ENG"),
    ]
    # a row whose labels name no nation has none (Krumiri, Poland, beside Casoncelli, Italy)
    assert query(
        sample_warehouse,
        "SELECT target_nation, distractor_nation FROM core.culturemix_images WHERE image = 'images/ff-01-png.jpg'",
    ) == [(None, None)]
    # the target's nation is its item's and dish's nation gold; the country gold stays GB
    assert query(
        sample_warehouse,
        """SELECT i.item_id, g.country, n.nation FROM core.items i
           JOIN core.item_gold_countries g USING (item_id) JOIN core.item_gold_nations n USING (item_id)
           WHERE i.task_id LIKE 'culturemix.%' ORDER BY i.item_id""",
    ) == [
        ("culturemix.mf:images/ff-04-png.jpg", "GB", "GB-ENG"),
        ("culturemix.mfb:images/ffb-07-jpg.jpg", "GB", "GB-ENG"),
    ]
    assert query(
        sample_warehouse,
        """SELECT d.name, n.nation FROM core.dish_origin_nations n JOIN core.dishes d USING (dish_key)
           WHERE d.dataset = 'culturemix' ORDER BY d.name""",
    ) == [("Bacon and egg pie", "GB-ENG"), ("Steak pie", "GB-ENG")]


def test_a_composite_of_an_english_dish_is_an_item_with_its_nation(sample_warehouse: Path, tmp_path: Path):
    """A composite becomes an item of its subtask with its target dish's gold, the UK nation included, as the
    dataset's own items have it (the country gold stays GB)."""
    warehouse = copy_warehouse(sample_warehouse, tmp_path / "w" / "warehouse.duckdb")
    con = duckdb.connect(str(warehouse.with_name("warehouse.work.duckdb")))
    try:
        compose(con, tmp_path / "out", per_target=1, limit=1)
        (steak,) = con.execute(
            "SELECT dish_key FROM core.dishes WHERE dataset = 'culturemix' AND name = 'Steak pie'"
        ).fetchone()
        # the sample has no photo of its English dishes to compose, so one composite is relabelled as Steak pie's
        con.execute(
            """UPDATE core.culturemix_compositions
               SET target_dish_key = $steak, labels = json_merge_patch(labels, $label)
               WHERE recipe_sha256 = (SELECT min(recipe_sha256) FROM core.culturemix_compositions)""",
            {"steak": steak, "label": json.dumps({"target_food_name": "Steak pie", "target_country": "GB"})},
        )
        assert register_compositions(con) >= 2
        rows = con.execute(
            """SELECT c.target_country, c.target_nation, g.country, n.nation FROM core.culturemix_images c
               JOIN core.items i ON i.source_ref = c.image JOIN core.item_gold_countries g USING (item_id)
               LEFT JOIN core.item_gold_nations n USING (item_id)
               WHERE c.origin = 'composed' ORDER BY c.target_nation NULLS LAST, c.image"""
        ).fetchall()
    finally:
        con.close()
    assert rows[0] == ("GB", "GB-ENG", "GB", "GB-ENG")
    assert all(nation is None and gold != "GB" for _, nation, gold, _ in rows[1:])  # the others name no nation


def test_answers_to_an_english_target_are_scored_at_nation_level(culturemix_warehouse: Path, tmp_path: Path):
    warehouse = culturemix_warehouse
    answers = tmp_path / "answers.jsonl"
    lines = [
        ("images/ff-04-png.jpg", "base", "Food: Steak pie. Country: England."),
        ("images/ff-04-png.jpg", "direct", "Food: Steak pie. Country: Scotland."),
        ("images/ff-01-png.jpg", "base", "Food: Krumiri. Country: Poland."),
    ]
    answers.write_text(
        "".join(json.dumps({"model": "hand", "image": i, "prompt": p, "response": r}) + "\n" for i, p, r in lines),
        encoding="utf-8",
    )
    run_cli(warehouse, "import-responses", "--format", "culturemix", str(answers))
    run_cli(warehouse, "score")
    scores = query(
        warehouse,
        """SELECT i.source_ref, g.variant, s.metric, s.value FROM core.scores s
           JOIN core.generations g USING (generation_id) JOIN core.items i USING (item_id)
           WHERE s.metric NOT IN ('paper_jaccard', 'paper_dice', 'paper_overlap', 'paper_exact')
           ORDER BY ALL""",
    )  # (BORSch's own rule, scored on every answer the countries extractor reads: tests/pipeline/score)
    # England and Scotland are both GB at country level; only England is the Steak pie's nation
    assert scores == [
        ("images/ff-01-png.jpg", "base", "accuracy", 1.0),
        ("images/ff-04-png.jpg", "base", "accuracy", 1.0),
        ("images/ff-04-png.jpg", "base", "uk_nation_match", 1.0),
        ("images/ff-04-png.jpg", "direct", "accuracy", 1.0),
        ("images/ff-04-png.jpg", "direct", "uk_nation_match", 0.0),
    ]
    assert query(
        warehouse,
        """SELECT image, prompt, predicted_country, target_nation, predicted_regions
           FROM marts.culturemix_answers ORDER BY image, prompt""",
    ) == [
        ("images/ff-01-png.jpg", "base", "PL", None, []),
        ("images/ff-04-png.jpg", "base", "GB", "GB-ENG", ["GB-ENG"]),
        ("images/ff-04-png.jpg", "direct", "GB", "GB-ENG", ["GB-SCT"]),
    ]


def _full_layout(root: Path) -> Path:
    """The full dataset's metadata tables, two rows each, with images drawn in code."""
    root.mkdir(parents=True, exist_ok=True)
    tables = {
        "sf.csv": [["images/sf/1.jpg", "1789", "Aletria", "Portugal", "", "", "", ""]],
        "mf.csv": [
            ["images/mf/1.jpg", "1789", "Aletria", "Portugal", "2140", "Bacalhau à Gomes de Sá", "Portugal", ""],
            ["images/mf/2.jpg", "1789", "Aletria", "Portugal", "942", "Khachapuri", "Georgia", ""],
        ],
        "sfb_street.csv": [
            ["images/sfb/1.jpg", "1789", "Aletria", "Portugal", "", "", "", "Mexico1"],
            ["images/sfb/2.jpg", "1789", "Aletria", "Portugal", "", "", "", "Atlantis3"],
        ],
        "mfb_street.csv": [
            ["images/mfb/1.jpg", "1789", "Aletria", "Portugal", "942", "Khachapuri", "Georgia", "Spain"],
        ],
    }
    header = ["image_path", "food1_id", "food1_name", "food1_country", "food2_id", "food2_name", "food2_country",
              "background_country"]  # fmt: skip
    for name, rows in tables.items():
        with open(root / name, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            writer.writerows(rows)
        for row in rows:
            path = root / row[0]
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.new("RGB", (32, 32), (len(row[0]) * 7 % 256, int(row[1]) % 256, len(name) * 20)).save(path)
    return root


def test_the_full_dataset_layout_ingests_and_reports_what_it_cannot_resolve(tmp_path: Path):
    source = _full_layout(tmp_path / "culturemix")
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    result = run_cli(warehouse, "ingest", "culturemix", "--source", str(source))
    assert "unresolved_background" in result.stderr and "missing_table" in result.stderr  # sfb_landmark.csv
    assert query(
        warehouse,
        "SELECT image, subtask, scene, background_country, background_variant, distance FROM core.culturemix_images "
        "ORDER BY image",
    ) == [
        ("images/mf/1.jpg", "MF", None, None, None, "same_country"),
        ("images/mf/2.jpg", "MF", None, None, None, "other_continent"),  # Natural Earth: Georgia is in Asia
        ("images/mfb/1.jpg", "MFB", "street", "ES", None, "same_continent"),
        ("images/sf/1.jpg", "SF", None, None, None, None),
        ("images/sfb/1.jpg", "SFB", "street", "MX", 1, "other_continent"),
        ("images/sfb/2.jpg", "SFB", "street", None, None, None),
    ]
    assert query(
        warehouse,
        "SELECT file, line, kind FROM meta.ingest_reports WHERE kind = 'unresolved_background'",
    ) == [("sfb_street.csv", 3, "unresolved_background")]
    again = run_cli(warehouse, "ingest", "culturemix", "--source", str(source))
    assert "same files as last time" in again.stderr


def test_a_folder_without_tables_is_one_clear_line(tmp_path: Path):
    result = run_cli(tmp_path / "w.duckdb", "ingest", "culturemix", "--source", str(tmp_path), check=False)
    assert result.returncode == 2
    assert "no CultureMix tables" in result.stderr and "Traceback" not in result.stderr


def test_data_fetch_culturemix_offline_fails_with_a_clear_message(tmp_path: Path):
    result = run_cli(tmp_path / "w.duckdb", "data", "fetch", "culturemix", "--dest", str(tmp_path), check=False)
    assert result.returncode == 2
    assert "hf:// needs network access" in result.stderr and "Traceback" not in result.stderr
    assert not list((tmp_path / "culturemix").glob("*.csv"))
