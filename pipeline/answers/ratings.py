"""`import-responses --format borsch-ratings FILE.csv`: BORSch's human evaluation as ratings, one CSV row per
annotator and item, columns `model, annotator, kind, item, rating, lang` (the template,
pipeline/answers/templates.py, lists every BORSch dish):

- kind `description` (BORSch §5, Table 3, Fig. 15): `model` the describer, `item` the dish id in `lang`'s file
  (ru or uk), `rating` 0..1: how well the model's (pre-translation) description describes the dish's real photos;
- kind `dish_filter` (§3.2, Cohen's kappa): `item` a bootstrapped candidate as written, `rating` 1 (a dish) or 0
  (not a dish), T/F and true/false accepted; `model` left empty. Two annotators of the same items give the kappa.

An empty rating is an item not rated yet: skipped and counted. A file is one transaction: a bad row (unknown kind,
a rating outside 0..1, a missing column) refuses the whole file with one line naming the file and row, and the
other files still import. Re-importing a file replaces its annotators' earlier ratings of the same items."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from pipeline.answers.formats import IMPORTERS
from pipeline.core.errors import DataError
from pipeline.core.output import say
from pipeline.core.run_settings import Options
from warehouse.io import transaction

COLUMNS = ("model", "annotator", "kind", "item", "rating", "lang")
KINDS = ("description", "dish_filter")
LABELS = {"t": 1.0, "true": 1.0, "f": 0.0, "false": 0.0}


def read_ratings(path: Path) -> tuple[list[tuple], int]:
    """The file's ratings as rows of core.human_ratings, and how many rows had no rating yet."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise DataError(path, f"missing column(s) {', '.join(missing)}; expected {', '.join(COLUMNS)}", 1)
        rows, unrated = [], 0
        for line, row in enumerate(reader, start=2):
            text = (row["rating"] or "").strip()
            if not text:
                unrated += 1
                continue
            rows.append(_rating(path, line, row, text))
    return rows, unrated


def _rating(path: Path, line: int, row: dict, text: str) -> tuple:
    kind = (row["kind"] or "").strip()
    if kind not in KINDS:
        raise DataError(path, f"kind {kind!r} is not one of {', '.join(KINDS)}", line)
    try:
        rating = LABELS[text.casefold()] if text.casefold() in LABELS else float(text)
    except ValueError:
        raise DataError(path, f"rating {text!r} is not a number from 0 to 1 (or T/F)", line) from None
    if not 0 <= rating <= 1:
        raise DataError(path, f"rating {rating} is outside 0..1", line)
    if kind == "dish_filter" and rating not in (0.0, 1.0):
        raise DataError(path, f"a dish_filter label is 1 or 0 (T or F), not {text!r}", line)
    lang, item, annotator = ((row[c] or "").strip() for c in ("lang", "item", "annotator"))
    if not (lang and item and annotator):
        raise DataError(path, "lang, item and annotator are required", line)
    model = (row["model"] or "").strip() if kind == "description" else ""
    if kind == "description" and not model:
        raise DataError(path, "a description rating names the describing model", line)
    return kind, lang, model, item, annotator, rating, str(path), line


@IMPORTERS.register("borsch-ratings")
def import_ratings(con: duckdb.DuckDBPyConnection, options: Options, run_id: str, failures: list) -> None:
    """Each file in one transaction; a refused file leaves the warehouse as it was and the others import."""
    for path in options.responses:
        try:
            rows, unrated = read_ratings(path)
        except DataError as exc:
            failures.append(exc)
            continue
        with transaction(con):
            con.executemany(
                "INSERT OR REPLACE INTO core.human_ratings (kind, lang, model, item, annotator, rating, source_file, "
                "line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        annotators = sorted({row[4] for row in rows})
        say(
            "imported {}: {} ratings by {}{}",
            path.name,
            len(rows),
            ", ".join(annotators) or "nobody",
            f" ({unrated} rows not rated yet, skipped)" if unrated else "",
        )
