"""Template answer files (pipeline/answers/templates.py): each lists what its study asks, in its import format, and
imports as it is into a warehouse holding the study's data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.answers.formats import IMPORT_FORMATS
from pipeline.answers.templates import MODEL, TEMPLATES, template
from tests.helpers import query, run_cli
from tests.pipeline.datasets.caption_vqa_files import tiny_bert, write_multi30k, write_vqa
from tests.pipeline.datasets.zno_files import write_zno
from warehouse.queries.templates import answer_sheet


def write_template(warehouse: Path, answer_format: str, out: Path) -> Path:
    """The template a study page offers for `warehouse`, written to `out` (the page's download, byte for byte)."""
    chosen = template(answer_format)
    sheet = answer_sheet(warehouse, chosen.dataset)
    rows = [
        {"source_ref": ref, "lang": lang if isinstance(lang, str) else None} for ref, lang in sheet.itertuples(False)
    ]
    path = out / chosen.filename
    path.write_bytes(chosen.render(rows))
    return path


def imported(warehouse: Path) -> list[tuple]:
    return query(warehouse, "SELECT model_id, count(*) FROM core.generations GROUP BY ALL")


def test_every_import_format_has_a_template() -> None:
    assert set(TEMPLATES.names()) == set(IMPORT_FORMATS.names()) - {"worldcuisines"}  # its files are published


def test_the_borsch_template_lists_every_dish_and_imports(borsch_warehouse: Path, tmp_path: Path) -> None:
    path = write_template(borsch_warehouse, "borsch", tmp_path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 1147 + 823
    assert set(lines[0]) == {"model", "lang", "task", "variant", "dish_id", "response"}
    assert {line["lang"] for line in lines} == {"ru", "uk"} and {line["model"] for line in lines} == {MODEL}
    run_cli(borsch_warehouse, "import-responses", "--format", "borsch", str(path))
    assert imported(borsch_warehouse) == [(MODEL, 1147 + 823)]


def test_the_culturemix_template_lists_every_image_and_imports(culturemix_warehouse: Path, tmp_path: Path) -> None:
    path = write_template(culturemix_warehouse, "culturemix", tmp_path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines and {line["prompt"] for line in lines} == {"base"}
    run_cli(culturemix_warehouse, "import-responses", "--format", "culturemix", str(path))
    assert imported(culturemix_warehouse)[0][0] == MODEL


@pytest.mark.parametrize(
    ("answer_format", "write", "per_item"),
    [("zno", write_zno, 1), ("multi30k", write_multi30k, 1), ("vqa", write_vqa, 2)],
)
def test_the_zno_vision_templates_import(warehouse: Path, tmp_path: Path, answer_format, write, per_item) -> None:
    source = write(tmp_path / "data")
    run_cli(warehouse, "ingest", answer_format, "--source", str(source))
    path = write_template(warehouse, answer_format, tmp_path)
    n_items = query(warehouse, "SELECT count(DISTINCT source_ref) FROM marts.answer_sheets WHERE dataset = ?",
                    [answer_format])[0][0]  # fmt: skip
    assert n_items and path.read_text(encoding="utf-8").count("\n") == n_items * per_item
    run_cli(warehouse, "import-responses", "--format", answer_format, str(path))
    assert imported(warehouse) == [(MODEL, n_items * per_item)]


def test_the_uacuisine_template_is_a_table_that_imports_into_an_empty_warehouse(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.score import uacuisine

    monkeypatch.setenv(uacuisine.BERTSCORE_MODEL_ENV, str(tiny_bert(tmp_path / "tiny-bert")))
    path = tmp_path / template("uacuisine").filename
    path.write_bytes(template("uacuisine").render([]))
    assert path.read_text(encoding="utf-8").splitlines()[0] == "dish,question,gold,model,answer,lang"
    run_cli(warehouse, "import-responses", "--format", "uacuisine", str(path))
    assert imported(warehouse) == [(MODEL, 7)]
