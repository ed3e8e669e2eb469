"""tests/data/country_gold.tsv is the hand-written gold standard the country extractor is measured
against (bench/countries.py). These checks keep the file itself well-formed."""

from __future__ import annotations

import csv
from collections import Counter

from pipeline.reference.countries import is_iso_alpha2
from tests.helpers import REPO

GOLD = REPO / "tests" / "data" / "country_gold.tsv"
STATUSES = {"ok", "no_country", "refusal", "empty"}


def rows() -> list[dict[str, str]]:
    with open(GOLD, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def test_header_and_size() -> None:
    data = rows()
    assert list(data[0]) == ["id", "lang", "answer", "expected", "status", "style"]
    per_lang = Counter(r["lang"] for r in data)
    assert len(data) >= 300 and per_lang["ru"] >= 100 and per_lang["uk"] >= 100 and per_lang["en"] >= 80
    assert len({r["id"] for r in data}) == len(data)


def test_expected_sets_are_valid_codes_consistent_with_status() -> None:
    for row in rows():
        codes = [c for c in row["expected"].split(",") if c]
        assert row["status"] in STATUSES, row
        assert all(is_iso_alpha2(c) for c in codes), row
        assert len(codes) == len(set(codes)), row
        assert (row["status"] == "ok") == bool(codes), row


def test_covers_the_answer_styles_models_use() -> None:
    styles = Counter(r["style"] for r in rows())
    for style in (
        "one_word",
        "sentence",
        "list",
        "cuisine_adjective",
        "hedged",
        "refusal",
        "code_switched",
        "negation",
    ):
        assert styles[style] >= 10, style
