"""ZNO-Vision's exam benchmark on small files in the published layout: ingest, the paper's last-bracket
rule beside ours, accuracy per split and subject with intervals, the baselines, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.extract.zno import paper_last_bracket
from pipeline.tasks import get_task
from tests.helpers import copy_warehouse, query, run_cli
from tests.pipeline.datasets.zno_files import write_answers, write_zno


@pytest.mark.parametrize(
    ("answer", "status", "choice"),
    [
        ("[Б]", "bracket", 2),
        ("Спершу [Б], але ні: правильно [А]", "bracket", 1),  # the last match counts
        ("Відповідь: [ Г ]", "bracket", 4),
        ("Б", "unparsed", None),  # no brackets: not in the box, not counted
        ("[A]", "bracket_other", None),  # Latin A is not the letter А
        ("[А] або [1]", "bracket_other", None),  # the last bracket holds no letter
        ("", "unparsed", None),
        (None, "unparsed", None),
    ],
)
def test_the_paper_reads_the_last_bracketed_letter(answer, status, choice) -> None:
    found = paper_last_bracket(answer, "АБВГД")
    assert (found.status, found.choice) == (status, choice)


def test_the_task_prompt_is_the_papers_prefix() -> None:
    task = get_task("zno.exam")
    assert task.answer_kind == "choice" and task.max_tokens == 300
    assert task.prompts["uk"]["paper"].startswith("дай відповідь на питання напиши варіант відповіді")
    assert task.prompts["uk"]["paper"].endswith('наприклад: "[А]"')


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("zno")
    warehouse = root / "warehouse.duckdb"
    run_cli(warehouse, "--no-publish", "ingest", "zno", "--source", str(write_zno(root / "zno")))
    run_cli(
        warehouse, "--no-publish", "import-responses", "--format", "zno", str(write_answers(root / "answers.jsonl"))
    )
    run_cli(warehouse, "score")
    return warehouse


def test_ingest_keeps_single_letter_image_questions_and_counts_the_rest(scored: Path) -> None:
    items = query(scored, "SELECT source_ref, subset FROM core.items WHERE task_id = 'zno.exam' ORDER BY 1")
    assert items == [("t1", "test"), ("t2", "test"), ("v1", "validation"), ("v2", "validation"), ("v3", "validation")]
    quirks = query(scored, "SELECT kind, severity FROM meta.ingest_reports WHERE dataset = 'zno' ORDER BY kind")
    assert quirks == [("no_image", "rejected"), ("not_one_letter", "rejected"), ("several_images", "rejected")]
    # Tables 7-8 from the release's visual-only flag: v1 (Mathematics, validation) and t1 (Chemistry, test)
    visual = query(scored, "SELECT grouped_by, name, n, n_flagged, n_visual_only, share_visual_only "
                           "FROM marts.zno_visual_only")  # fmt: skip
    assert visual == [
        ("split", "test", 2, 2, 1, 0.5),
        ("split", "validation", 3, 3, 1, pytest.approx(1 / 3)),
        ("subject", "Chemistry", 2, 2, 1, 0.5),
        ("subject", "History", 1, 1, 0, 0.0),
        ("subject", "Mathematics", 2, 2, 1, 0.5),
    ]
    exam = query(scored, "SELECT subject, year, letters, n_options FROM core.exam_items WHERE item_id LIKE '%:v3'")
    assert exam == [("History", 2020, "АБВГД", 5)]
    prompt = query(scored, "SELECT text FROM core.item_prompts WHERE item_id = 'zno.exam:v2'")[0][0]
    assert prompt.splitlines()[0] == get_task("zno.exam").prompts["uk"]["paper"]
    assert prompt.splitlines()[1:] == ["Питання v2?", "А. варіант А", "Б. варіант Б", "В. варіант В", "Г. варіант Г"]
    images = query(scored, "SELECT local_path FROM core.images JOIN core.item_images USING (image_id)")
    assert len(images) == 5 and all(Path(p).is_file() for (p,) in images)


def test_both_readings_of_each_answer(scored: Path) -> None:
    rows = query(
        scored,
        """SELECT item_id, gold_letter, status, atlas_letter, paper_status, paper_letter, atlas_correct, paper_correct
           FROM marts.zno_answers WHERE model = 'm1' ORDER BY item_id""",
    )
    assert rows == [
        ("t1", "Б", "ok", "Б", "unparsed", None, True, False),
        ("t2", "А", "ok", "А", "bracket_other", None, True, False),
        ("v1", "А", "several", None, "bracket", "А", False, True),
        ("v2", "В", "ok", "В", "bracket", "В", True, True),
        ("v3", "А", "ok", "Г", "bracket", "Г", False, False),
    ]


def test_accuracy_per_split_and_subject_with_intervals(scored: Path) -> None:
    rows = {
        (method, model, split, subject): (n, correct, round(accuracy, 4))
        for method, model, split, subject, n, correct, accuracy in query(
            scored, "SELECT method, model, split, subject, n, correct, accuracy FROM marts.zno_accuracy"
        )
    }
    assert rows["paper", "m1", "validation", "(all subjects)"] == (3, 2, 0.6667)
    assert rows["paper", "m1", "validation", "Mathematics"] == (2, 2, 1.0)
    assert rows["paper", "m1", "validation", "History"] == (1, 0, 0.0)
    assert rows["paper", "m1", "test", "(all subjects)"] == (2, 0, 0.0)
    assert rows["atlas", "m1", "validation", "(all subjects)"] == (3, 1, 0.3333)
    assert rows["atlas", "m1", "test", "Chemistry"] == (2, 2, 1.0)
    assert rows["paper", "m2", "validation", "(all subjects)"] == (1, 1, 1.0)
    assert rows["paper", "m2", "test", "(all subjects)"] == (1, 0, 0.0)
    # Wilson 95% for 2 of 3, by hand: (0.2077, 0.9385)
    low, high = query(
        scored,
        """SELECT low, high FROM marts.zno_accuracy
           WHERE method = 'paper' AND model = 'm1' AND split = 'validation' AND subject = '(all subjects)'""",
    )[0]
    assert (round(low, 4), round(high, 4)) == (0.2077, 0.9385)


def test_baselines_come_from_the_items(scored: Path) -> None:
    rows = {
        (split, subject): (n, round(first, 4), round(random, 4))
        for split, subject, n, first, random in query(
            scored, "SELECT split, subject, n, first_choice, random FROM marts.zno_baselines"
        )
    }
    # validation: gold А, В, А -> the first option is right twice; chance (1/4 + 1/4 + 1/5) / 3
    assert rows["validation", "(all subjects)"] == (3, 0.6667, 0.2333)
    assert rows["validation", "Mathematics"] == (2, 0.5, 0.25)
    assert rows["test", "(all subjects)"] == (2, 0.5, 0.225)  # gold Б, А; chance (1/5 + 1/4) / 2


def test_a_bad_answer_line_names_the_line_and_changes_nothing(scored: Path, tmp_path: Path) -> None:
    warehouse = copy_warehouse(scored, tmp_path / "warehouse.duckdb")
    before = query(warehouse, "SELECT count(*) FROM core.generations")
    bad = write_answers(tmp_path / "bad.jsonl", [("m3", "v1", "[А]"), ("m3", "nope", "[Б]")])
    result = run_cli(warehouse, "import-responses", "--format", "zno", str(bad), check=False)
    assert result.returncode == 2
    assert "error:" in result.stderr and "bad.jsonl:2" in result.stderr and "'nope'" in result.stderr
    assert query(warehouse, "SELECT count(*) FROM core.generations") == before


def test_a_folder_without_the_layout_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "zno").mkdir()
    result = run_cli(tmp_path / "w.duckdb", "ingest", "zno", "--source", str(tmp_path / "zno"), check=False)
    assert result.returncode == 2
    assert "error:" in result.stderr and "data/<split>-*.parquet" in result.stderr


def test_data_fetch_zno_writes_the_layout_ingest_reads(tmp_path: Path) -> None:
    """`data fetch zno`'s files, served by a local host in place of the hub, land where `ingest zno` reads."""
    from dataclasses import replace

    from pipeline.datasets import zno
    from pipeline.datasets.fetch import fetch
    from tests.pipeline.datasets.test_fetch import file_host

    served = write_zno(tmp_path / "served")
    (served / "data" / "dev-00000-of-00001.parquet").write_bytes(
        (served / "data" / "validation-00000-of-00001.parquet").read_bytes()
    )
    remote = zno.remote_files()
    assert [r.dest for r in remote] == [f"data/{s}-00000-of-00001.parquet" for s in ("dev", "validation", "test")]
    assert all(r.url.startswith(f"https://huggingface.co/datasets/{zno.HUB_REPO}/resolve/") for r in remote)
    with file_host(served) as host:
        local = [replace(r, url=f"{host}/{r.dest}") for r in remote]
        assert len(fetch(tmp_path / "dest", local)) == 3
    assert set(zno.split_files(tmp_path / "dest")) == {"dev", "validation", "test"}


def test_data_fetch_zno_offline_is_one_error_line(tmp_path: Path) -> None:
    result = run_cli(tmp_path / "w.duckdb", "data", "fetch", "zno", "--dest", str(tmp_path / "data"), check=False)
    assert result.returncode == 2
    assert "error:" in result.stderr and "huggingface.co" in result.stderr
    assert not list((tmp_path / "data").rglob("*.parquet"))  # nothing half-written


def test_items_give_generate_the_papers_prompt_and_the_image(scored: Path, tmp_path: Path) -> None:
    import duckdb

    from pipeline.datasets import zno
    from pipeline.datasets.base import ItemsRequest

    working = copy_warehouse(scored, tmp_path / "warehouse.duckdb").with_suffix(".work.duckdb")
    with duckdb.connect(str(working)) as con:
        found = zno.items(con, ItemsRequest(get_task("zno.exam"), "uk", subset="validation"))
    assert [item.item_id for item in found.ready] == ["zno.exam:v1", "zno.exam:v2", "zno.exam:v3"]
    first = found.ready[0]
    assert first.questions["paper"].startswith(get_task("zno.exam").prompts["uk"]["paper"] + "\nПитання v1?")
    assert len(first.images) == 1 and first.images[0].is_file() and len(first.image_hashes[0]) == 64


def test_export_accuracy_has_the_papers_rule_beside_ours(scored: Path) -> None:
    """`export accuracy --method paper|atlas` (marts.accuracy) carries the exam: m1 is right on v1 and v2 by the
    paper's rule (2 of 5) and on v2, t1 and t2 by ours (3 of 5)."""
    rows = query(
        scored,
        "SELECT method, model, n, correct, accuracy FROM marts.accuracy WHERE dataset = 'zno' ORDER BY method, model",
    )
    assert rows == [
        ("atlas", "m1", 5, 3, 60.0),
        ("atlas", "m2", 2, 1, 50.0),
        ("paper", "m1", 5, 2, 40.0),
        ("paper", "m2", 2, 1, 50.0),
    ]


def test_rows_without_ids_are_numbered_across_a_splits_shards(tmp_path: Path) -> None:
    """A split in two parquet shards whose rows carry no id: ids run on across the shards, and each left-out
    row is named by its own file and row."""
    import polars as pl

    from pipeline.datasets import zno

    root = write_zno(tmp_path / "zno")
    test = pl.read_parquet(root / "data/test-00000-of-00001.parquet").drop("id")
    (root / "data/test-00000-of-00001.parquet").unlink()
    for shard in ("00000", "00001"):
        test.write_parquet(root / f"data/test-{shard}-of-00002.parquet")
    found = zno.read(root)
    assert [item.source_ref for item in found.items if item.split == "test"] == ["test-0", "test-1", "test-5", "test-6"]
    assert [(q.file, q.line, q.kind) for q in found.quirks] == [
        ("test-00000-of-00002.parquet", 2, "not_one_letter"),
        ("test-00000-of-00002.parquet", 3, "no_image"),
        ("test-00000-of-00002.parquet", 4, "several_images"),
        ("test-00001-of-00002.parquet", 2, "not_one_letter"),
        ("test-00001-of-00002.parquet", 3, "no_image"),
        ("test-00001-of-00002.parquet", 4, "several_images"),
    ]


def test_export_zno_accuracy_keeps_its_contract(scored: Path, tmp_path: Path) -> None:
    out = tmp_path / "zno.csv"
    run_cli(scored, "export", "zno-accuracy", "--format", "csv", "--out", str(out))
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "method,model,split,subject,n,correct,accuracy,low,high"
    assert "paper,m1,validation,(all subjects),3,2," in "\n".join(lines)
