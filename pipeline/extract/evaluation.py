"""Measuring the country extractor against a gold file (tests/data/country_gold.tsv): micro
precision, recall and F1 over country codes, and status accuracy, per answer language. Shared by
the test suite's quality gate and bench/countries.py."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class GoldAnswer:
    id: str
    lang: str
    answer: str
    expected: tuple[str, ...]
    status: str
    style: str


@dataclass
class Scores:
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    answers: int = 0
    status_correct: int = 0
    errors: list[tuple[GoldAnswer, tuple[str, ...]]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else 1.0

    @property
    def recall(self) -> float:
        relevant = self.true_positives + self.false_negatives
        return self.true_positives / relevant if relevant else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def status_accuracy(self) -> float:
        return self.status_correct / self.answers if self.answers else 1.0


def read_gold(path: Path) -> list[GoldAnswer]:
    with open(path, encoding="utf-8", newline="") as handle:
        return [
            GoldAnswer(
                row["id"],
                row["lang"],
                row["answer"],
                tuple(c for c in row["expected"].split(",") if c),
                row["status"],
                row["style"],
            )
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        ]


def evaluate(
    gold: Iterable[GoldAnswer],
    predict: Callable[[str, str], tuple[tuple[str, ...], str | None]],
) -> dict[str, Scores]:
    """predict(answer, lang) -> (countries, status or None when the system gives no status)."""
    by_lang: dict[str, Scores] = {}
    for item in gold:
        countries, status = predict(item.answer, item.lang)
        scores = by_lang.setdefault(item.lang, Scores())
        predicted, expected = set(countries), set(item.expected)
        scores.answers += 1
        scores.true_positives += len(predicted & expected)
        scores.false_positives += len(predicted - expected)
        scores.false_negatives += len(expected - predicted)
        scores.status_correct += status == item.status
        if predicted != expected:
            scores.errors.append((item, tuple(countries)))
    return by_lang
