"""Template answer files: for each `import-responses --format`, a file in that format that lists what to answer,
so a study page with no answers yet hands the user the sheet to fill in (app/empty_study.py) and the same bytes
import cleanly (tests/pipeline/answers/test_templates.py).

A template lists the items the warehouse holds for the format's dataset (one row per item and prompt language,
`response` empty: a missing answer, counted as such), or, when the dataset is not loaded, the format's documented
example rows, which import once the dataset is. Only `model` and `response` are the user's to fill in.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from warehouse.registry import Registry

MODEL = "my-model"  # the user's model name replaces it


@dataclass(frozen=True)
class Template:
    """One import format's template: its file name, its columns in order, how a sheet row (the dataset's
    `source_ref`, `lang` and, for BORSch, `dish_id`) becomes a line, and example rows for an empty warehouse."""

    format: str
    filename: str
    columns: tuple[str, ...]
    dataset: str
    examples: tuple[dict, ...]
    fixed: dict = field(default_factory=dict)  # columns every line carries unchanged
    id_column: str = "id"  # the column the item's own id goes in
    langs: tuple[str, ...] = ("uk",)  # the prompt languages asked, where a sheet row names none

    @property
    def is_csv(self) -> bool:
        return self.filename.endswith(".csv")

    def lines(self, sheet: Iterable[dict]) -> list[dict]:
        """The template's lines for `sheet` rows ({"source_ref", "lang"}: one line per prompt language when `lang`
        is None); the examples when there are none."""
        rows = [
            {column: None for column in self.columns}
            | {"model": MODEL}
            | self.fixed
            | {self.id_column: row["source_ref"], "lang": lang}
            for row in sheet
            for lang in ([row["lang"]] if row.get("lang") else self.langs)
        ]
        if not rows:
            rows = [{column: None for column in self.columns} | {"model": MODEL} | example for example in self.examples]
        return [{column: row.get(column) for column in self.columns} for row in rows]

    def render(self, sheet: Iterable[dict]) -> bytes:
        """The file's bytes: JSON lines, or CSV for the table formats."""
        lines = self.lines(sheet)
        if not self.is_csv:
            return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(self.columns), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in line.items()} for line in lines)
        return out.getvalue().encode("utf-8")


TEMPLATES: Registry[Template] = Registry("answer template", ordered=True)
TEMPLATES.add(
    "borsch",
    Template(
        "borsch",
        "borsch_answers_template.jsonl",
        ("model", "lang", "task", "variant", "dish_id", "response"),
        "borsch",
        ({"lang": "uk", "task": "origin_qa", "variant": "1", "dish_id": "1"},),
        fixed={"task": "origin_qa", "variant": "1"},
        id_column="dish_id",
    ),
)
TEMPLATES.add(
    "culturemix",
    Template(
        "culturemix",
        "culturemix_answers_template.jsonl",
        ("model", "image", "prompt", "response"),
        "culturemix",
        ({"image": "images/seed-01-sf-png.jpg", "prompt": "base"},),
        fixed={"prompt": "base"},
        id_column="image",
    ),
)
for _format, _example, _lang in (
    ("zno", "test-0", "uk"),
    ("multi30k", "test_2016_flickr/1000092795.jpg", "uk"),
    ("vqa", "262148000", "uk"),
):
    TEMPLATES.add(
        _format,
        Template(
            _format,
            f"{_format}_answers_template.jsonl",
            ("model", "id", "response", "lang"),
            _format,
            ({"id": _example, "lang": _lang},),
            langs=("uk", "en") if _format == "vqa" else ("uk",),
        ),
    )
# UACUISINE tables carry their own dishes and gold (pipeline/datasets/uacuisine.py): the template is one dish's
# seven questions (ZNO-Vision Appendix C) with example gold answers, to be replaced by the user's dataset.
UACUISINE_EXAMPLE = (
    ("Q1", "Борщ"),
    ("Q2", "Борщ"),
    ("Q3", "Борщ"),
    ("Q4", "буряк, капуста, картопля, морква, цибуля"),
    ("Q5", "Зварити бульйон, додати картоплю і капусту, потім обсмажені буряк, моркву і цибулю; варити до готовності."),
    ("Q6", "солона"),
    ("Q7", "гаряча"),
)
TEMPLATES.add(
    "uacuisine",
    Template(
        "uacuisine",
        "uacuisine_answers_template.csv",
        ("dish", "question", "gold", "model", "answer", "lang"),
        "uacuisine",
        tuple({"dish": "Борщ", "question": qid, "gold": gold, "lang": "uk"} for qid, gold in UACUISINE_EXAMPLE),
    ),
)
# BORSch's human evaluation (pipeline/answers/ratings.py): one row per dish to rate a model's description of
# (§5, Table 3), `model` the describer, `annotator` and `rating` (0..1) the user's; the dish-filter labels of §3.2
# (kind dish_filter, item a candidate, rating 1 or 0) go in the same file.
TEMPLATES.add(
    "borsch-ratings",
    Template(
        "borsch-ratings",
        "borsch_ratings_template.csv",
        ("model", "annotator", "kind", "item", "rating", "lang"),
        "borsch",
        (
            {"annotator": "annotator-1", "kind": "description", "lang": "ru", "item": "1", "rating": "0.5"},
            *(
                {"model": "", "annotator": name, "kind": "dish_filter", "lang": "ru", "item": "борщ", "rating": "1"}
                for name in ("annotator-1", "annotator-2")
            ),
        ),
        fixed={"annotator": "annotator-1", "kind": "description"},
        id_column="item",
        langs=("ru", "uk"),
    ),
)


def template(format_name: str) -> Template:
    return TEMPLATES.get(format_name)
