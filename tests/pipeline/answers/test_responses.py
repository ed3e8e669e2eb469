"""import-responses: real files, messy lines, one transaction per file, idempotence, kill -9."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.answers.responses import (
    ImportedAnswer,
    generation_id,
    model_from_path,
    parse_line,
    parse_plain_line,
    task_from_path,
)
from pipeline.datasets.worldcuisines import predictions
from tests.helpers import query, run_cli, started_cli


def test_all_real_prediction_files_are_imported(real_warehouse: Path) -> None:
    per_task = query(
        real_warehouse,
        "SELECT i.task_id, g.model_id, count(*) FROM core.generations g JOIN core.items i USING (item_id) "
        "WHERE i.task_id LIKE 'worldcuisines.%' GROUP BY ALL ORDER BY 1, 2",
    )  # the demo also answers the CultureMix sample with a tiny test model: not imported files
    counts = {(task, n) for task, _, n in per_task}
    assert counts == {
        ("worldcuisines.origin_vqa", 15000),
        ("worldcuisines.origin_mc", 15000),
        ("worldcuisines.dish_name_vqa", 9000),
    }
    assert len(per_task) == 36
    langs = query(
        real_warehouse,
        "SELECT count(DISTINCT g.lang) FROM core.generations g JOIN core.items i USING (item_id) "
        "WHERE i.task_id LIKE 'worldcuisines.%'",
    )[0][0]
    assert langs == 30
    runs = query(
        real_warehouse,
        "SELECT task_id, count(*), sum(n_generated) FROM core.generation_runs WHERE backend='replay' GROUP BY 1",
    )
    assert sorted(runs) == [
        ("worldcuisines.dish_name_vqa", 12, 108000),
        ("worldcuisines.origin_mc", 12, 180000),
        ("worldcuisines.origin_vqa", 12, 180000),
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"qa_id": "1900", "prediction": "Россия", "lang": "ru_formal", "answer": "x"}', ("1900", "Россия")),
        ('{"qa_id": 1900, "prediction": "Russia", "lang": "en"}', ("1900", "Russia")),
        ('{"qa_id": 1900.0, "prediction": 7, "lang": "en"}', ("1900", "7")),
        ('{"qa_id": "1900", "prediction": null, "lang": "en"}', ("1900", None)),
        ('{"qa_id": "1900", "lang": "en"}', ("1900", None)),
    ],
)
def test_messy_but_usable_lines(line: str, expected: tuple) -> None:
    parsed = parse_line(line)
    assert isinstance(parsed, ImportedAnswer)
    assert (parsed.qa_id, parsed.prediction) == expected


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"qa_id": "1900", "prediction": "x", "lang": "en"', "not valid JSON"),
        ('["1900", "x"]', "expected a JSON object"),
        ('{"qa_id": "abc", "prediction": "x", "lang": "en"}', "qa_id must be a whole number"),
        ('{"prediction": "x", "lang": "en"}', "qa_id must be a whole number"),
        ('{"qa_id": 1, "prediction": "x"}', "lang must be a non-empty string"),
        ('{"qa_id": 1, "prediction": ["x"], "lang": "en"}', "prediction must be text"),
    ],
)
def test_malformed_lines_say_why(line: str, reason: str) -> None:
    parsed = parse_line(line)
    assert isinstance(parsed, str) and reason in parsed


TRICKY_LINES = [
    '{"qa_id": "1900", "prediction": "Россия", "lang": "ru_formal", "answer": "x"}',
    '{"qa_id": "1900", "lang": "en", "prediction": "2", "multi_choice_answer": 2}',
    '  {"qa_id": "0042", "lang": " EN-us ", "prediction": "  Italy<|im_end|> "}\t\r\n',
    '{"qa_id": "1900", "lang": "en", "prediction": "<b>Italy</b> </s>"}',
    '{"qa_id": "1900", "lang": "en", "prediction": "Italy", "answer": 3}',
    '{"qa_id": "1900", "lang": "en", "prediction": "Italy", "multi_choice_answer": true}',
    '{"qa_id": "1900", "lang": "en", "prediction": "Italy", "multi_choice_answer": 2.0}',
    '{"qa_id": "1900", "lang": "en", "prediction": "Italy", "multi_choice_answer": "2"}',
    '{"qa_id": "1900", "lang": "en", "prediction": "Italy", "multi_choice_answer": NaN}',
    '{"qa_id": "1900", "lang": NaN, "prediction": "Italy"}',
    '{"qa_id": "1900", "lang": "en", "prediction": NaN}',
    '{"qa_id": "1900", "lang": "en", "prediction": null}',
    '{"qa_id": "1900", "lang": "  ", "prediction": "x"}',
    '{"qa_id": " 1900 ", "lang": "en", "prediction": "x"}',
    '{"qa_id": "1900.0", "lang": "en", "prediction": "x"}',
    '{"qa_id": "١٩٠٠", "lang": "en", "prediction": "x"}',
    '{"qa_id": "12345678901234567890", "lang": "en", "prediction": "x"}',
    '{"qa_id": 1900, "lang": "en", "prediction": "x"}',
    '{"qa_id": "1900", "lang": "en", "prediction": "\\ud800 written out"}',
    '{"qa_id": "1900", "lang": "en", "prediction": "\\ud800"}',
    '{"qa_id": "1900", "lang": "en", "prediction": "x", "qa_id": "7"}',
    '{"qa_id": "1900", "lang": "en", "prediction": "x"} {"qa_id": "7"}',
    '{"qa_id": "1900", "lang": "en", "prediction": "x"}\f',
    "{'qa_id': '1900', 'lang': nan, 'prediction': 'x'}",
    '\ufeff{"qa_id": "1900", "lang": "en", "prediction": "x"}',
    '{"qa_id": "1900", "lang": "en", "prediction": ["x"]}',
    '{"qa_id": "1900", "lang": "en", "prediction": "x"',
    "[" * 100_000,
]


@pytest.mark.parametrize("line", TRICKY_LINES)
def test_the_fast_reader_answers_as_parse_line_or_leaves_the_line_to_it(line: str) -> None:
    plain = parse_plain_line(line)
    assert plain is None or plain == parse_line(line)


def test_the_fast_reader_reads_the_real_lines(data_dir: Path) -> None:
    """Every line of the published files is one the fast reader takes, with parse_line's answer (the first 500
    lines of each file; the demo's import reads them all)."""
    for path in predictions(data_dir):
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True)[:500]:
            assert parse_plain_line(line, 0) == parse_line(line), (path.name, line)


# Fields as the real lines hold them, then odd values of every kind.
_REAL_ID = st.from_regex(r"\A[0-9]{1,17}\Z")
_REAL_LANG = st.from_regex(r"\A\s?[A-Za-z_-]{0,8}\s?\Z")
_REAL_TEXT = st.lists(
    st.sampled_from(["<|im_end|>", "</s>", "<eos>", "<", "|>", " ", "\n", "a", "-", "É", "\ud800", "\\ud"])
).map("".join)
_ODD = st.one_of(
    st.floats(allow_nan=True), st.integers(), st.booleans(), st.none(), st.lists(st.text(max_size=2), max_size=2)
)
_ODD_ID = st.one_of(
    st.from_regex(r"\A\s*[0-9١]{1,22}(\.0*)?\s*\Z"), st.integers(-(10**20), 10**20), st.text(max_size=5), _ODD
)


def _mostly(real: st.SearchStrategy, odd: st.SearchStrategy) -> st.SearchStrategy:
    """A real-looking value three times in four (one_of would draw each of odd's many branches as often)."""
    return st.integers(0, 3).flatmap(lambda n: odd if n == 0 else real)


# Lines like the real ones (every field a string, the choice a number), each field sometimes odd or missing.
_RECORD = st.fixed_dictionaries(
    {
        "qa_id": _mostly(_REAL_ID, _ODD_ID),
        "lang": _mostly(_REAL_LANG, st.one_of(st.text(), _ODD)),
        "prediction": _mostly(st.one_of(_REAL_TEXT, st.text()), _ODD),
    },
    optional={"answer": _mostly(st.text(), _ODD), "multi_choice_answer": _mostly(st.integers(), _ODD_ID)},
)


@given(
    record=_RECORD,
    ascii_only=st.booleans(),
    before=_mostly(st.just(""), st.sampled_from([" ", "\t", "\ufeff", "x"])),
    after=_mostly(st.sampled_from(["", "\n", " \r\n"]), st.sampled_from(["\f", "}", ","])),
)
def test_the_fast_reader_agrees_with_parse_line_on_any_record(
    record: dict, ascii_only: bool, before: str, after: str
) -> None:
    line = before + json.dumps(record, ensure_ascii=ascii_only) + after
    plain = parse_plain_line(line)
    assert plain is None or plain == parse_line(line)


@given(
    model=st.text(),
    rows=st.lists(st.tuples(st.one_of(st.text(), st.none()), st.text(), st.one_of(st.text(), st.none()))),
    sample=st.integers(min_value=0, max_value=3),
)
def test_an_answers_generation_id_is_the_digest_of_the_json_list_of_what_it_answers(
    model: str, rows: list, sample: int
) -> None:
    """The ids of answers imported before stay theirs: the key is json.dumps' list whatever path writes it."""
    for item_id, lang, variant in rows:
        key = json.dumps(["import", model, item_id, lang, variant] + ([sample] if sample else []))
        assert generation_id(model, item_id, lang, variant, sample) == hashlib.sha256(key.encode()).hexdigest()[:32]


def test_model_name_comes_from_the_file_name() -> None:
    assert model_from_path(Path("task2_oe_gpt-4o-2024-08-06.jsonl")) == "gpt-4o-2024-08-06"
    assert model_from_path(Path("task2_oe_molmo-7b-d_pred.jsonl")) == "molmo-7b-d"
    assert model_from_path(Path("task1_oe_qwen-vl-2b.jsonl")) == "qwen-vl-2b"


def test_task_and_kind_come_from_the_file_name() -> None:
    assert task_from_path(Path("task2_oe_gpt-4o-2024-08-06.jsonl")) == "worldcuisines.origin_vqa"
    assert task_from_path(Path("task1_oe_gpt-4o-2024-08-06.jsonl")) == "worldcuisines.dish_name_vqa"
    assert task_from_path(Path("task1_mc_molmoe-1b.jsonl")) == "worldcuisines.dish_name_mc"
    assert task_from_path(Path("task2_mc_molmoe-1b.jsonl")) == "worldcuisines.origin_mc"
    assert task_from_path(Path("answers.jsonl")) is None


TASK1 = [
    json.dumps({"qa_id": "407", "prediction": "Msemen", "lang": "en", "answer": "Msemmen"}),
    json.dumps({"qa_id": "407", "prediction": "Мсемен", "lang": "ru_formal", "answer": "Мсеммен"}),
]


def test_task_one_answers_belong_to_their_dish_by_the_gold_name(wc_warehouse: Path, tmp_path: Path) -> None:
    gold = dict(
        query(
            wc_warehouse,
            "SELECT lang, text FROM core.item_gold_text WHERE item_id = "
            "(SELECT item_id FROM core.item_gold_text WHERE lang = 'en' AND text = 'Msemmen')",
        )
    )
    lines = [json.dumps({"qa_id": "407", "prediction": "Msemen", "lang": lang, "answer": gold[lang]}) for lang in gold]
    path = write_lines(tmp_path / "task1_oe_tiny.jsonl", lines)
    run_cli(wc_warehouse, "import-responses", str(path))
    rows = query(
        wc_warehouse,
        "SELECT DISTINCT i.task_id, d.name, g.variant FROM core.generations g JOIN core.items i USING (item_id) "
        "JOIN core.dishes d USING (dish_key)",
    )
    assert rows == [("worldcuisines.dish_name_vqa", "Msemmen", "407")]
    # the same lines named otherwise need --task; a gold name no dish has is refused with the line
    other = write_lines(tmp_path / "answers.jsonl", [*lines[:1], TASK1[1]])
    result = run_cli(
        wc_warehouse, "import-responses", "--model", "t2", "--task", "worldcuisines.dish_name_vqa", str(other),
        check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "answers.jsonl:2: no task-1 dish has the gold name 'Мсеммен' in ru_formal" in " ".join(result.stderr.split())


def test_the_demo_finds_the_open_ended_files_of_both_tasks_and_task_two_multiple_choice(data_dir: Path) -> None:
    files = predictions(data_dir / "worldcuisines")
    kinds = {task_from_path(p) for p in files}
    assert len(files) == 36 and kinds == {
        "worldcuisines.origin_vqa",
        "worldcuisines.dish_name_vqa",
        "worldcuisines.origin_mc",
    }
    assert {p.parent.name for p in files} == {"predictions", "small", "mc"}


def test_demo_imports_task_one_and_task_two_answers(real_warehouse: Path) -> None:
    kinds = query(
        real_warehouse,
        "SELECT task_id, count(DISTINCT model_id) FROM core.generation_runs WHERE backend = 'replay' GROUP BY 1",
    )
    assert dict(kinds) == {
        "worldcuisines.origin_vqa": 12,
        "worldcuisines.dish_name_vqa": 12,
        "worldcuisines.origin_mc": 12,
    }


@pytest.fixture
def wc_warehouse(worldcuisines_warehouse: Path) -> Path:
    return worldcuisines_warehouse


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = [
    json.dumps({"qa_id": "1900", "prediction": "South Africa", "lang": "en", "answer": "South Africa"}),
    json.dumps({"qa_id": 1901, "prediction": "Мьянма", "lang": "ru_formal"}),
]


def test_a_bad_line_stops_the_file_and_names_file_and_line(wc_warehouse: Path, tmp_path: Path) -> None:
    before = wc_warehouse.read_bytes()
    bad = write_lines(tmp_path / "task2_oe_tiny.jsonl", [*GOOD, '{"qa_id": "1902", "prediction": '])
    result = run_cli(wc_warehouse, "import-responses", str(bad), check=False)
    assert result.returncode == 2
    message = " ".join(result.stderr.split())
    assert "task2_oe_tiny.jsonl:3: not valid JSON" in message and "--skip-bad-lines" in message
    assert wc_warehouse.read_bytes() == before
    assert query(wc_warehouse.with_name("warehouse.work.duckdb"), "SELECT count(*) FROM core.generations") == [(0,)]


def test_skip_bad_lines_imports_the_rest_and_records_each_rejection(wc_warehouse: Path, tmp_path: Path) -> None:
    lines = [*GOOD, "not json", json.dumps({"qa_id": "77", "prediction": "x", "lang": "en"}), GOOD[0]]
    bad = write_lines(tmp_path / "task2_oe_tiny.jsonl", lines)
    run_cli(wc_warehouse, "import-responses", "--skip-bad-lines", "--max-bad-share", "1", str(bad))
    assert query(wc_warehouse, "SELECT count(*) FROM core.generations WHERE model_id = 'tiny'") == [(2,)]
    rejected = query(
        wc_warehouse,
        """SELECT line, message, raw_text FROM meta.ingest_reports
        WHERE severity = 'rejected' ORDER BY line""",
    )
    assert [(line, raw) for line, _, raw in rejected] == [(3, "not json"), (4, lines[3]), (5, GOOD[0])]
    assert "qa_id 77 is not an item of worldcuisines.origin_vqa" in rejected[1][1]
    assert "second answer for qa_id 1900 in lang en (first on line 1)" in rejected[2][1]


def test_reimporting_the_same_file_is_idempotent(wc_warehouse: Path, tmp_path: Path) -> None:
    good = write_lines(tmp_path / "task2_oe_tiny.jsonl", GOOD)
    run_cli(wc_warehouse, "import-responses", str(good))
    again = run_cli(wc_warehouse, "import-responses", str(good))
    assert "already imported" in again.stderr
    # A renamed copy with --model is the same content for the same model: also a no-op.
    copy = shutil.copy(good, tmp_path / "answers.jsonl")
    run_cli(wc_warehouse, "import-responses", "--model", "tiny", str(copy))
    assert query(wc_warehouse, "SELECT count(*) FROM core.generations") == [(2,)]


def test_an_unnamed_file_needs_model(wc_warehouse: Path, tmp_path: Path) -> None:
    good = write_lines(tmp_path / "answers.jsonl", GOOD)
    result = run_cli(wc_warehouse, "import-responses", str(good), check=False)
    assert result.returncode == 2 and "--model" in result.stderr


def test_import_before_ingest_says_what_to_run(warehouse: Path, tmp_path: Path) -> None:
    good = write_lines(tmp_path / "task2_oe_tiny.jsonl", GOOD)
    result = run_cli(warehouse, "import-responses", str(good), check=False)
    assert result.returncode == 2 and "ingest worldcuisines" in result.stderr


def test_killing_an_import_midway_leaves_no_partial_file(wc_warehouse: Path, data_dir: Path) -> None:
    files = sorted((data_dir / "worldcuisines" / "predictions").glob("task2_oe_*.jsonl"))[:4]  # 15,000 answers each
    published_before = wc_warehouse.read_bytes()
    with started_cli(wc_warehouse, "import-responses", *map(str, files)) as command:
        # the first file is committed; the second is in flight
        assert any("imported" in line for line in command.lines())
        assert command.kill() == -signal.SIGKILL
    assert wc_warehouse.read_bytes() == published_before
    work = wc_warehouse.with_name("warehouse.work.duckdb")
    per_model = dict(query(work, "SELECT model_id, count(*) FROM core.generations GROUP BY ALL"))
    assert 1 <= len(per_model) < len(files)
    assert set(per_model.values()) == {15000}
    # The rerun finishes the job: every file once, no duplicates.
    run_cli(wc_warehouse, "import-responses", *map(str, files))
    assert query(wc_warehouse, "SELECT count(*), count(DISTINCT generation_id) FROM core.generations") == [
        (60000, 60000)
    ]
