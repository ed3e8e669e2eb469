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
