"""The scanner's counts on real text equal a Python `re` reference's (issue 50).

The scanner folds text to one byte per character and finds every name in one Hyperscan pass; whichever matcher it
runs, its counts must be exactly those of the plain reading of the rules written here with `re`: a name is found
where its inflected, case- and ё-folded form stands in the text as whole words (any run of non-word characters is a
word boundary, so "по-турецьки" is "по турецьки"; combining marks are left out), capitalised country homographs
("Того", "Чад") only with a capital, acronyms ("США") only in upper case; a country named inside a longer dish name
("шарлотка польська") is no country mention; per dish, the documents naming it, naming it with one of its origins
and with any country, and the (document, country) pairs of those. Real text: the UA-GEC Ukrainian essays and the
WorldCuisines models' Russian answers, against the BORSch warehouse's Ukrainian and Russian names.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from pipeline.core.text import fold
from pipeline.corpus.compiled import Folder
from pipeline.corpus.matching import Counts, SampleContext, count_batch, fold_column
from pipeline.corpus.patterns import COUNTRY, DISH, PatternSet, build_patterns
from pipeline.corpus.uagec import export_uagec

OTHER_WORD = "\x01"  # a word character of no name: a letter outside the names' alphabet


def reference_char(ch: str) -> str:
    """One character as the rules read it: "" (left out), " " (a boundary) or a word character."""
    point, category = ord(ch), unicodedata.category(ch)
    if point > 0xFFFF:
        return " " if 0x1F000 <= point < 0x20000 else OTHER_WORD  # emoji and symbols; other scripts' letters
    if category in ("Mn", "Me") or (category == "Cf" and ch != "\u200b"):
        return ""
    if ch.isspace():
        return " "
    folded = "".join(c for c in fold(ch, keep_accents=True) if unicodedata.category(c) not in ("Mn", "Me"))
    if folded and all(c.isalnum() or c == "_" for c in folded):
        return folded if len(folded) == 1 else OTHER_WORD
    return OTHER_WORD if category == "Mc" else " "


def trie_pattern(names: list[str]) -> str:
    """A `re` alternation of `names` written as a trie ("борщ(?:у|ем)?"): the same matches as a flat alternation
    of them, without trying every name at every position."""
    trie: dict = {}
    for name in names:
        node = trie
        for ch in name:
            node = node.setdefault(ch, {})
        node[""] = {}

    def pattern(node: dict) -> str:
        branches = [re.escape(ch) + pattern(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)


def reference_counts(patterns: PatternSet, docs: list[str]) -> Counts:
    """The counts of `docs` by the rules in the module docstring, with `re` finding the names."""
    table = {ord(ch): reference_char(ch) for ch in set("".join(docs))}
    folded_docs = [doc.translate(table) for doc in docs]
    vocabulary = {word for text in folded_docs for word in text.split()}
    by_words: dict[int, dict[str, list[int]]] = {}  # names by word count: at most one matches at a position
    for index, surface in enumerate(patterns.surfaces):
        name = surface.translate({ord(ch): reference_char(ch) for ch in surface}).strip(" ")
        words = name.split()
        if words and all(word in vocabulary for word in words):  # the others cannot match: left out for speed
            by_words.setdefault(len(words), {}).setdefault(name, []).append(index)
    finders = [
        (re.compile(r"(?<!\S)(?=(" + trie_pattern(sorted(names)) + r")(?!\S))"), names) for names in by_words.values()
    ]
    kinds = patterns.kinds
    counts = Counts(len(patterns.targets))
    for doc, text in zip(docs, folded_docs, strict=True):
        original = [ch for ch in doc if table[ord(ch)]]  # the character behind each folded one
        found: list[tuple[int, int, int]] = []  # (target, first, end)
        for finder, names in finders:
            for match in finder.finditer(text):
                first, end = match.span(1)
                for surface in names[match.group(1)]:
                    if patterns.acronym[surface]:
                        if not all(ch.isupper() for ch in original[first:end] if table[ord(ch)] != " "):
                            continue
                    elif patterns.case_sensitive[surface] and not original[first].isupper():
                        continue
                    found.extend((target, first, end) for target in patterns.pattern_targets[surface])
        dish_spans = [(first, end) for target, first, end in found if kinds[target] == DISH]
        named = {
            target
            for target, first, end in found
            if kinds[target] != COUNTRY
            or not any(a <= first and end <= b and (a, b) != (first, end) for a, b in dish_spans)
        }
        countries = {target for target in named if kinds[target] == COUNTRY}
        for target in named:
            counts.docs[target] += 1
            if kinds[target] != DISH or not countries:
                continue
            true = countries & set(patterns.origins.get(target, ()))
            counts.any_country[target] += 1
            counts.any_mentions[target] += len(countries)
            counts.true_country[target] += bool(true)
            counts.true_mentions[target] += len(true)
    return counts


def scanner_counts(patterns: PatternSet, docs: list[str], batch_docs: int = 500) -> Counts:
    counts = Counts(len(patterns.targets))
    folder = Folder(patterns.literals.alphabet)
    for at in range(0, len(docs), batch_docs):
        batch = fold_column(folder, pa.array(docs[at : at + batch_docs]))
        count_batch(patterns, batch, counts, SampleContext("real", "-", {}))
    return counts


@pytest.fixture(scope="module")
def borsch_patterns(ingested_template):
    """The BORSch warehouse's Ukrainian and Russian pattern sets, from the pattern cache that the scans of the same
    warehouse use (compiled once per session)."""
    work = ingested_template("borsch").with_name("warehouse.work.duckdb")
    with duckdb.connect(str(work), read_only=True) as con:
        return {lang: build_patterns(con, lang) for lang in ("uk", "ru")}


def uagec_essays(folder: Path) -> list[str]:
    shard = export_uagec(folder / "ua-gec.jsonl")
    return [json.loads(line)["text"] for line in shard.read_text(encoding="utf-8").splitlines()]


def russian_answers(data: Path) -> list[str]:
    """Every model's open-ended Russian answers (both registers) to WorldCuisines' origin question."""
    answers = []
    for path in sorted((data / "worldcuisines" / "predictions").glob("task2_oe_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:  # the files' Python-literal lines: not needed here
                continue
            if str(record.get("lang")).startswith("ru") and isinstance(record.get("prediction"), str):
                answers.append(record["prediction"])
    return answers


def assert_same_counts(patterns: PatternSet, got: Counts, want: Counts) -> None:
    for field in ("docs", "true_country", "any_country", "true_mentions", "any_mentions"):
        differ = np.flatnonzero(getattr(got, field) != getattr(want, field))
        where = [(patterns.targets[t].key, int(getattr(got, field)[t]), int(getattr(want, field)[t])) for t in differ]
        assert not where, f"{field}: (target, scanner, re reference) {where[:10]}"


def test_ukrainian_essays_count_as_the_re_reference_counts(borsch_patterns, tmp_path: Path) -> None:
    patterns, essays = borsch_patterns["uk"], uagec_essays(tmp_path)
    want = reference_counts(patterns, essays)
    assert_same_counts(patterns, scanner_counts(patterns, essays), want)
    assert want.docs[patterns.kinds == DISH].sum() > 100 and want.any_country.sum() > 50  # the text names many
    assert (want.docs[patterns.kinds == COUNTRY] > 0).sum() > 30


def test_russian_answers_count_as_the_re_reference_counts(borsch_patterns, data_dir: Path) -> None:
    patterns, answers = borsch_patterns["ru"], russian_answers(data_dir)
    want = reference_counts(patterns, answers)
    assert_same_counts(patterns, scanner_counts(patterns, answers), want)
    assert want.true_country.sum() > 30 and (want.docs[patterns.kinds == COUNTRY] > 0).sum() > 50


def test_the_reference_reads_the_rules_as_written(borsch_patterns) -> None:
    """The reference itself, on sentences whose counts are known: inflection, ё, case, boundaries, nesting."""
    patterns = borsch_patterns["uk"]
    key = {(t.kind, t.key): i for i, t in enumerate(patterns.targets)}
    docs = ["Борщу з України!", "борщівка", "Це не Того, а того.", "БОРЩ у США; борщ у сша", "по-українськи"]
    counts = reference_counts(patterns, docs)
    borsch = next(i for i, s in enumerate(patterns.surfaces) if s == "борщ")
    (borsch,) = [t for t in patterns.pattern_targets[borsch] if patterns.targets[t].kind == DISH]
    assert counts.docs[borsch] == 2 and counts.true_country[borsch] == 1 and counts.any_country[borsch] == 2
    assert counts.docs[key[COUNTRY, "TG"]] == 1 and counts.docs[key[COUNTRY, "US"]] == 1
    assert_same_counts(patterns, scanner_counts(patterns, docs), counts)
