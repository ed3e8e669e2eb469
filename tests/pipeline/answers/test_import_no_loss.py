"""import-responses never loses data silently: Python-literal lines, NaN languages and predictions,
empty files, mostly-bad files, the same file under two model names, and a file once rejected (or
half-read by an older importer) being read again by a corrected one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.answers import responses
from pipeline.answers.responses import ImportedAnswer, parse_line
from tests.helpers import query, run_cli
from warehouse.db import Warehouse


@pytest.fixture
def wc_warehouse(worldcuisines_warehouse: Path) -> Path:
    """WorldCuisines ingested from the real files (a copy of the session's one ingest)."""
    return worldcuisines_warehouse


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def answers(n: int, lang: str = "en", start: int = 1900) -> list[str]:
    return [
        json.dumps({"qa_id": str(start + i), "prediction": "Italy", "lang": lang, "answer": "Italy"}) for i in range(n)
    ]


def test_python_literal_lines_are_read_and_counted() -> None:
    parsed = parse_line("{'qa_id': '1900', 'prediction': 'Japan', 'lang': 'en', 'answer': 'Japan'}")
    assert isinstance(parsed, ImportedAnswer)
    assert (parsed.qa_id, parsed.lang, parsed.prediction, parsed.notes) == ("1900", "en", "Japan", ("python_literal",))


@pytest.mark.parametrize(
    ("line", "lang", "prediction", "notes"),
    [
        ('{"qa_id": 1900, "prediction": "Japan", "lang": NaN}', "nan", "Japan", ("lang_nan",)),
        ("{'qa_id': 1900, 'prediction': 'Japan', 'lang': nan}", "nan", "Japan", ("python_literal", "lang_nan")),
        ('{"qa_id": 1900, "prediction": NaN, "lang": "en"}', "en", None, ("prediction_nan",)),
        ("{'qa_id': 1900, 'prediction': nan, 'lang': 'en'}", "en", None, ("python_literal", "prediction_nan")),
        ('{"qa_id": 1900, "prediction": "3<|im_end|>", "lang": "en"}', "en", "3", ("chat_token",)),
    ],
)
def test_nan_is_the_min_nan_code_or_a_missing_answer_never_text(
    line: str, lang: str, prediction: str | None, notes: tuple
) -> None:
    parsed = parse_line(line)
    assert isinstance(parsed, ImportedAnswer)
    assert (parsed.lang, parsed.prediction, parsed.notes) == (lang, prediction, notes)


def test_a_python_dict_file_imports_every_line_and_reports_the_quirk(wc_warehouse: Path, tmp_path: Path) -> None:
    lines = [
        str({"qa_id": str(1900 + i), "prediction": "Italy", "lang": "en", "answer": "Italy"}) for i in range(10)
    ] + ["{'qa_id': '1900', 'prediction': nan, 'lang': nan, 'answer': 'Italia'}"]
    path = write(tmp_path / "task2_oe_dicts.jsonl", lines)
    result = run_cli(wc_warehouse, "import-responses", str(path))
    assert "imported task2_oe_dicts.jsonl: 11 answers" in " ".join(result.stderr.split())
    assert query(wc_warehouse, "SELECT count(*), count(response) FROM core.generations") == [(11, 10)]
    assert query(wc_warehouse, "SELECT lang FROM core.generations WHERE response IS NULL") == [("nan",)]
    quirks = dict(
        query(wc_warehouse, "SELECT kind, message FROM meta.ingest_reports WHERE file = 'task2_oe_dicts.jsonl'")
    )
    assert quirks["python_literal"].startswith("11 lines")
    assert quirks["lang_nan"].startswith("1 lines") and quirks["prediction_nan"].startswith("1 lines")


def test_an_empty_file_fails_with_one_line_naming_it(wc_warehouse: Path, tmp_path: Path) -> None:
    for name, text in (("task2_oe_empty.jsonl", ""), ("task2_oe_blank.jsonl", "  \n\n \t\n")):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = run_cli(wc_warehouse, "import-responses", str(path), check=False)
        assert result.returncode == 2
        assert f"{name}: empty file" in " ".join(result.stderr.split())
        assert "Traceback" not in result.stderr


def test_a_file_importing_nothing_fails_and_names_what_it_would_lose(wc_warehouse: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "task2_oe_broken.jsonl", ['{"qa_id": "1900", "lang": "nan", "prediction": '] * 3)
    result = run_cli(wc_warehouse, "import-responses", "--skip-bad-lines", str(path), check=False)
    message = " ".join(result.stderr.split())
    assert result.returncode == 2
    assert "nothing imported: all 3 lines rejected" in message and "nan: 1900" in message
    assert query(
        wc_warehouse.with_name("warehouse.work.duckdb"),
        "SELECT count(*) FROM meta.source_files WHERE kind = 'worldcuisines_responses'",
    ) == [(0,)]


def test_more_bad_lines_than_allowed_fails_the_file_and_names_languages_and_ids(
    wc_warehouse: Path, tmp_path: Path
) -> None:
    good = answers(98)
    bad = ['{"qa_id": "2390", "lang": "yue", "prediction": ', '{"qa_id": "2391", "lang": "yue", "prediction": ']
    path = write(tmp_path / "task2_oe_lossy.jsonl", good + bad)
    result = run_cli(wc_warehouse, "import-responses", "--skip-bad-lines", str(path), check=False)
    message = " ".join(result.stderr.split())
    assert result.returncode == 2
    assert "2 of 100 lines rejected (2.0%, more than --max-bad-share 1.0%)" in message
    assert "yue: 2390, 2391" in message
    work = wc_warehouse.with_name("warehouse.work.duckdb")
    assert query(work, "SELECT count(*) FROM core.generations") == [(0,)]
    # Allowed explicitly: imported, and the loss is still named.
    result = run_cli(wc_warehouse, "import-responses", "--skip-bad-lines", "--max-bad-share", "0.05", str(path))
    assert "2 lines rejected, lost: yue: 2390, 2391" in " ".join(result.stderr.split())
    assert query(wc_warehouse, "SELECT count(*) FROM core.generations") == [(98,)]


def test_the_same_bytes_under_another_model_are_refused_unless_allowed(wc_warehouse: Path, tmp_path: Path) -> None:
    first = write(tmp_path / "task2_oe_alpha.jsonl", answers(3))
    run_cli(wc_warehouse, "import-responses", str(first))
    copy = write(tmp_path / "task2_oe_beta.jsonl", answers(3))
    result = run_cli(wc_warehouse, "import-responses", str(copy), check=False)
    assert result.returncode == 2
    assert "already imported as model alpha" in " ".join(result.stderr.split())
    run_cli(wc_warehouse, "import-responses", "--allow-duplicate", str(copy))
    assert query(wc_warehouse, "SELECT model_id, count(*) FROM core.generations GROUP BY 1 ORDER BY 1") == [
        ("alpha", 3),
        ("beta", 3),
    ]


def test_a_rejected_file_is_read_again_after_the_fix(wc_warehouse: Path, tmp_path: Path) -> None:
    """The reported loss: an older importer rejected every Python-dict line under --skip-bad-lines and
    marked the file imported, so a rerun said "already imported". Done-markers now carry the importer
    version: the old marker does not stop the corrected importer."""
    lines = [str({"qa_id": str(1900 + i), "prediction": "Italy", "lang": "en"}) for i in range(5)]
    path = write(tmp_path / "task2_oe_legacy.jsonl", lines)
    work = Warehouse(wc_warehouse)
    with work.writer() as con:  # the marker importer version 1 left behind: scope = the model alone
        con.execute(
            "INSERT INTO meta.source_files (sha256, kind, scope, path, rows_loaded, rows_rejected, run_id) "
            "VALUES (?, 'worldcuisines_responses', 'legacy', ?, 0, 5, 'old')",
            [responses.sha256_files([path]), str(path)],
        )
    result = run_cli(wc_warehouse, "import-responses", str(path))
    assert "already imported" not in result.stderr
    assert query(wc_warehouse, "SELECT count(*) FROM core.generations WHERE model_id = 'legacy'") == [(5,)]


def test_a_new_importer_version_reads_files_an_older_one_marked_done(
    wc_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "task2_oe_versioned.jsonl", answers(2))
    with Warehouse(wc_warehouse).writer() as con:
        assert not responses.import_file(con, path, "r1").skipped
        assert responses.import_file(con, path, "r2").skipped  # same bytes, same importer: a no-op
        monkeypatch.setattr(responses, "IMPORTER_VERSION", responses.IMPORTER_VERSION + 1)
        assert not responses.import_file(con, path, "r3").skipped


def test_multiple_choice_files_import_into_their_own_task(wc_warehouse: Path, data_dir: Path) -> None:
    path = data_dir / "worldcuisines/predictions/mc/task2_mc_molmoe-1b.jsonl"
    result = run_cli(wc_warehouse, "import-responses", str(path))
    assert "15000 answers of molmoe-1b (worldcuisines.origin_mc" in " ".join(result.stderr.split())
    assert query(
        wc_warehouse,
        "SELECT count(*), count(DISTINCT lang) FROM core.generations g JOIN core.items i USING (item_id) "
        "WHERE i.task_id = 'worldcuisines.origin_mc'",
    ) == [(15000, 30)]
    # The raw line keeps what the model wrote (leading space and all); the right option comes along.
    assert query(
        wc_warehouse,
        "SELECT count(*) FROM raw.imported_responses WHERE task_id = 'worldcuisines.origin_mc' "
        "AND multi_choice_answer BETWEEN 1 AND 5",
    ) == [(15000,)]
