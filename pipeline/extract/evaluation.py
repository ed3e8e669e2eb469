"""Measuring the country extractor against the gold files: micro precision, recall and F1 over
country codes, and status accuracy, per answer language. Shared by the test suite's quality gate
and bench/countries.py.

- tests/data/country_gold.tsv: hand-written answers in ru/uk/en, one per rule (with a status).
- tests/data/country_gold_real.tsv: real answers of the 12 public WorldCuisines models in all 30
  prompt languages, sampled at random with a fixed seed and labelled by hand (countries only).
- tests/data/country_gold_wide.tsv (issue 38): 42 more real answers per prompt language, drawn by
  bench/sample_country_gold.py stratified by what the extractor found, same columns plus `stratum`."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator
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


REAL_GOLD_COLUMNS = ["model", "qa_id", "lang", "answer", "countries"]


def read_real_gold(path: Path) -> list[GoldAnswer]:
    """The real-answer gold file: one answer per line, newlines written as \\n (backslash doubled)."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [
        GoldAnswer(
            f"{row['model']}/{row['qa_id']}/{row['lang']}",
            row["lang"],
            _unescape(row["answer"]),
            tuple(c for c in row["countries"].split(",") if c),
            "ok" if row["countries"] else "",
            "real",
        )
        for row in rows
    ]


def micro_f1(scores: dict[str, Scores]) -> float:
    """F1 over the country codes of every language together."""
    tp = sum(s.true_positives for s in scores.values())
    wrong = sum(s.false_positives + s.false_negatives for s in scores.values())
    return 2 * tp / (2 * tp + wrong) if tp else 0.0


def task2_predictions(data: Path) -> Iterator[tuple[str, dict]]:
    """(model, record) of every real WorldCuisines task-2 answer under `data`, model by model in name order."""
    import json

    for path in sorted((data / "worldcuisines" / "predictions").glob("task2_oe_*.jsonl")):
        model = path.stem.removeprefix("task2_oe_")
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                yield model, json.loads(line)


def written_predictions(data: Path, gold: Iterable[GoldAnswer]) -> dict[str, str]:
    """The real task-2 predictions of the labelled answers (by gold id), as the gold files write them (carriage
    returns dropped, tabs as spaces)."""
    wanted = {item.id for item in gold}
    found = {}
    for model, record in task2_predictions(data):
        key = f"{model}/{record['qa_id']}/{record['lang']}"
        if key in wanted:
            found[key] = record["prediction"].replace("\r", "").replace("\t", " ")
    return found


def escape_answer(text: str) -> str:
    """The escaping of the real-answer gold files: carriage returns dropped, a tab written as a space,
    backslash doubled, newline as \\n (`read_real_gold` reads it back)."""
    text = text.replace("\r", "").replace("\t", " ")
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _unescape(text: str) -> str:
    out, chars = [], iter(text)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append("\n" if following == "n" else following)
        else:
            out.append(char)
    return "".join(out)


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


_CASES = {
    "ru": ("nomn", "gent", "datv", "accs", "ablt", "loct"),
    "uk": ("nomn", "gent", "datv", "accs", "ablt", "loct"),
}


def case_forms(lang: str) -> list[tuple[str, str]]:
    """(form, alpha-2) for every case of every CLDR country name in ru/uk, generated independently of
    the gazetteer's rules: each nominative word pymorphy3 knows (a hyphenated name as one word when
    pymorphy3 knows it, else each known part) inflected to the same case, other words kept
    ("Соединенным Штатам Америки", "Коста-Рике", "Буркина-Фасо")."""
    import re

    import pycountry
    from babel import Locale

    from pipeline.core.morph import analyzer as _analyzer

    morph = _analyzer(lang)

    def inflect(word: str, case: str) -> str:
        if not morph.word_is_known(word.lower()):
            return word
        parses = [p for p in morph.parse(word) if "nomn" in p.tag and p.tag.POS in ("NOUN", "ADJF")]
        parses = [p for p in parses if not {"Name", "Surn", "Patr"} & p.tag.grammemes]
        geo = [p for p in parses if "Geox" in p.tag.grammemes] or parses
        if not geo or "Fixd" in geo[0].tag.grammemes:
            return word
        inflected = geo[0].inflect({case})
        form = inflected.word if inflected is not None else word
        return form[:1].upper() + form[1:] if word[:1].isupper() else form

    territories = Locale(lang).territories
    out = set()
    for country in pycountry.countries:
        name = territories.get(country.alpha_2)
        if not name or "(" in name or "." in name:
            continue
        pieces = re.split(r"(\s+)", name)
        for case in _CASES[lang]:
            words = []
            for piece in pieces:
                if not piece.strip() or not piece[0].isalpha():
                    words.append(piece)
                elif "-" in piece and not morph.word_is_known(piece.lower()):
                    words.append("-".join(inflect(part, case) for part in piece.split("-")))
                else:
                    words.append(inflect(piece, case))
            out.add(("".join(words), country.alpha_2))
    return sorted(out)
