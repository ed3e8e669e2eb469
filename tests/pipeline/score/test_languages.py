"""The `languages` step redoes an answer's language only for a new detector version (`score --rescore` does not
redo it: tests/pipeline/score/test_stage.py), so a rescore after an extractor change skips the detection."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.score import languages
from warehouse.db import Warehouse


def test_languages_are_detected_again_only_for_a_new_detector_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Warehouse(tmp_path / "w.duckdb").writer() as con:
        con.execute(
            """INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, response, origin)
               VALUES ('g1', 'r', 'm', 'i1', 'en', '1', 'Italy', 'import'),
                      ('g2', 'r', 'm', 'i2', 'ru', '1', 'Италия', 'import')"""
        )
        assert languages.detect_answer_languages(con) == 2
        first = con.execute(
            "SELECT generation_id, detector, detected_at FROM core.answer_languages ORDER BY 1"
        ).fetchall()
        assert [row[:2] for row in first] == [("g1", languages.DETECTOR), ("g2", languages.DETECTOR)]
        assert languages.detect_answer_languages(con) == 0  # the same version: nothing to redo
        monkeypatch.setattr(languages, "DETECTOR", "switching@999")
        assert languages.detect_answer_languages(con) == 2  # a new version redoes the older rows
        again = con.execute("SELECT generation_id, detector, answer_lang FROM core.answer_languages ORDER BY 1")
        assert again.fetchall() == [("g1", "switching@999", "en"), ("g2", "switching@999", "ru")]


def test_languages_detected_ahead_in_a_background_process_are_the_ones_the_step_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The step's warm-up (`start_detecting`) detects the pending answers in a worker process while other steps run;
    the step then writes the same rows as detecting them itself, and an answer the worker was not given (added since)
    is still detected in the step's turn."""
    answers = [
        ("g1", "en", "Italy"),
        ("g2", "ru", "Италия"),
        ("g3", "uk", "Це страва з України, а саме з Полтави."),
        ("g4", "ja_casual", "イタリア料理です。 Pizza comes from Italy."),
        ("g5", "es", None),
        ("g6", "ru", "Италия"),  # a repeated answer: one pair for the worker
    ]

    def build(path: Path, ahead: bool) -> list[tuple]:
        with Warehouse(path).writer() as con:
            con.executemany(
                "INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, response, "
                "origin) VALUES (?, 'r', 'm', 'i', ?, '1', ?, 'import')",
                answers[:-1],
            )
            if ahead:
                assert languages.start_detecting(con) == 5  # distinct (answer, language) pairs
            con.execute(  # an answer imported after the worker started: the step detects it itself
                "INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, response, "
                "origin) VALUES (?, 'r', 'm', 'i', ?, '1', ?, 'import')",
                list(answers[-1]),
            )
            assert languages.detect_answer_languages(con) == 6
            return con.execute(
                "SELECT * EXCLUDE (detected_at) FROM core.answer_languages ORDER BY generation_id"
            ).fetchall()

    delivered: list[int] = []
    collect = languages._Ahead.results

    def counted(self) -> dict:
        found = collect(self)
        delivered.append(len(found))
        return found

    monkeypatch.setattr(languages, "AHEAD_MIN", 1)
    monkeypatch.setattr(languages._Ahead, "results", counted)
    assert build(tmp_path / "ahead.duckdb", ahead=True) == build(tmp_path / "here.duckdb", ahead=False)
    assert delivered == [5]  # the worker's detections were the ones used
    assert not languages._AHEAD  # the worker was collected and ended


def test_too_few_answers_start_no_background_process(tmp_path: Path) -> None:
    with Warehouse(tmp_path / "w.duckdb").writer() as con:
        con.execute(
            """INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, response, origin)
               VALUES ('g1', 'r', 'm', 'i1', 'en', '1', 'Italy', 'import')"""
        )
        assert languages.start_detecting(con) == 0
        assert not languages._AHEAD


def test_the_background_process_detects_every_answer_before_the_steps_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the worker detects is received as it comes: more values than a pipe holds (a chunk's are megabytes on the
    demo) never hold the worker until the step asks for them, so it finishes while the other steps run."""
    answers = [(f"g{n}", "en" if n % 2 else "uk", f"Answer {n}: this dish comes from Italy, or maybe Ukraine.")
               for n in range(1500)]  # fmt: skip
    with Warehouse(tmp_path / "w.duckdb").writer() as con:
        con.executemany(
            "INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, response, origin) "
            "VALUES (?, 'r', 'm', 'i', ?, '1', ?, 'import')",
            answers,
        )
        monkeypatch.setattr(languages, "AHEAD_MIN", 1)
        assert languages.start_detecting(con) == 1500
        ahead = languages._AHEAD[0]
        ahead.worker.join(timeout=300)  # nobody has asked for the values yet
        assert not ahead.worker.is_alive() and len(ahead.found) == 1500
        assert languages.detect_answer_languages(con) == 1500
        assert not languages._AHEAD
