"""BORSch's human evaluation (warehouse/marts/borsch_human_eval.py) from ratings imported with `import-responses
--format borsch-ratings`: Cohen's kappa checked against a case worked by hand, Lin's concordance against its
definition, Table 3 saying why a cell is empty, and a bad row refusing its file with one line."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.helpers import query, run_cli
from warehouse.marts.borsch_human_eval import cohens_kappa, cohens_kappa_exact, lins_concordance

# Two annotators' dish/not-dish labels of ten candidates (§3.2's double annotation), worked by hand: they agree on
# 8 of 10 (p_o = 0.8); each says "dish" 6 times (p_e = 0.6·0.6 + 0.4·0.4 = 0.52); κ = 0.28 / 0.48 = 7/12.
FIRST = [1, 1, 0, 0, 1, 0, 1, 1, 0, 1]
SECOND = [1, 0, 0, 0, 1, 1, 1, 1, 0, 1]


def test_cohens_kappa_is_the_hand_computed_value() -> None:
    assert cohens_kappa_exact(FIRST, SECOND) == pytest.approx(7 / 12)
    assert cohens_kappa(FIRST, SECOND)[0] == pytest.approx(7 / 12)
    assert cohens_kappa_exact([1, 1], [1, 1]) is None  # one label throughout: undefined, not 1


def test_lins_concordance_penalises_a_shift_that_pearson_ignores() -> None:
    assert lins_concordance([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert lins_concordance([1, 2, 3], [2, 3, 4]) == pytest.approx(4 / 7)  # 2·(2/3) / (2/3 + 2/3 + 1)


def write_ratings(path: Path, rows: list[tuple]) -> Path:
    lines = ["model,annotator,kind,lang,item,rating", *(",".join(map(str, row)) for row in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_imported_ratings_give_the_kappa_and_table3_says_why_a_cell_is_empty(warehouse: Path, tmp_path: Path) -> None:
    labels = [("", name, "dish_filter", "ru", f"кандидат-{i}", "T" if label else "F")
              for name, column in (("ann-1", FIRST), ("ann-2", SECOND)) for i, label in enumerate(column)]  # fmt: skip
    described = [("qwen", "ann-1", "description", "ru", dish, rating) for dish, rating in (("1", 0.9), ("2", 0.2))]
    path = write_ratings(tmp_path / "ratings.csv", [*labels, *described, ("qwen", "ann-1", "description", "ru", 3, "")])
    out = run_cli(warehouse, "import-responses", "--format", "borsch-ratings", str(path))
    assert "22 ratings by ann-1, ann-2 (1 rows not rated yet, skipped)" in out.stderr
    [(kind, lang, n, agreement, kappa, method)] = query(
        warehouse, "SELECT kind, lang, n_items, agreement, kappa, method FROM marts.human_agreement"
    )
    assert (kind, lang, n, agreement) == ("dish_filter", "ru", 10, 0.8) and kappa == pytest.approx(7 / 12)
    assert method.startswith("exact")
    notes = query(warehouse, "SELECT DISTINCT model, n_dishes, value, note FROM marts.borsch_table3")
    assert notes == [("qwen", 0, None, "no image was drawn from these descriptions (imagine) and compared with real "
                      "photos")]  # fmt: skip
    published = query(warehouse, "SELECT value FROM marts.borsch_table3_published WHERE correlation = 'lin'")
    assert [v for (v,) in published] == [0.79, 0.76, 0.74, 0.79]
    # ...and the paper's tables carry them: §3.2's kappa, Table 3 with its printed numbers beside ours
    run_cli(warehouse, "export", "paper-tables", "--paper", "borsch", "--out", str(tmp_path / "tables"))
    kappa = pl.read_csv(tmp_path / "tables" / "borsch_kappa.csv")
    assert kappa.filter(pl.col("column") == "kappa")["value"].to_list() == [pytest.approx(7 / 12)]
    table3 = pl.read_csv(tmp_path / "tables" / "borsch_table3.csv", infer_schema_length=None)
    assert table3["published"].drop_nulls().len() == 16 and set(table3["paper"]) == {"borsch"}


def test_a_bad_row_refuses_its_file_with_one_line(warehouse: Path, tmp_path: Path) -> None:
    path = write_ratings(tmp_path / "bad.csv", [("", "ann-1", "dish_filter", "uk", "борщ", 1),
                                                ("", "ann-1", "dish_filter", "uk", "суп", 0.5)])  # fmt: skip
    result = run_cli(warehouse, "import-responses", "--format", "borsch-ratings", str(path), check=False)
    assert result.returncode == 2 and "bad.csv:3: a dish_filter label is 1 or 0" in result.stderr
    assert "Traceback" not in result.stderr
    assert query(warehouse, "SELECT count(*) FROM core.human_ratings") == [(0,)]


def test_the_template_imports_as_it_is(warehouse: Path, tmp_path: Path) -> None:
    from pipeline.answers.templates import template

    chosen = template("borsch-ratings")
    path = tmp_path / chosen.filename
    path.write_bytes(chosen.render([]))  # no BORSch loaded: the documented example rows
    assert path.read_text(encoding="utf-8").splitlines()[0] == "model,annotator,kind,item,rating,lang"
    run_cli(warehouse, "import-responses", "--format", "borsch-ratings", str(path))
    assert query(warehouse, "SELECT kind, count(*) FROM core.human_ratings GROUP BY kind ORDER BY kind") == [
        ("description", 1),
        ("dish_filter", 2),
    ]
