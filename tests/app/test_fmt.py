"""The shared formatting rules (app/fmt.py): what a reader sees instead of codes, raw shares and
snake_case."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from app import fmt


@pytest.mark.parametrize(
    ("code", "shown"),
    [
        ("yo", "yo — Yoruba"),
        ("uk", "uk — Ukrainian"),
        ("su_loma", "su_loma — Sundanese (loma)"),
        ("jv_krama", "jv_krama — Javanese (krama)"),
        ("nan_spoken", "nan_spoken — Min Nan Chinese (spoken)"),
        ("id_formal", "id_formal — Indonesian (formal)"),
        ("si_formal_spoken", "si_formal_spoken — Sinhala (formal, spoken)"),
        ("zh_cn", "zh_cn — Chinese (China)"),
        ("yue", "yue — Cantonese"),
        ("xx_unknown", "xx_unknown"),
        ("", ""),
    ],
)
def test_language_codes_read_with_their_english_names(code: str, shown: str) -> None:
    assert fmt.language(code) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.2231, "22.3%"),
        (0.0, "0.0%"),
        (0.0004, "<0.1%"),
        (1.0, "100.0%"),
        (0.99996, ">99.9%"),
        (-0.052, "-5.2%"),
        (None, "–"),
        (math.nan, "–"),
    ],
)
def test_a_share_is_a_percentage_that_never_reads_zero_when_it_is_not(value, shown: str) -> None:
    assert fmt.pct(value) == shown


def test_counts_scores_and_countries() -> None:
    assert fmt.count(15000) == "15,000"
    assert fmt.score(0.4478) == "0.45"
    assert fmt.of(1234, 5678) == "1,234 of 5,678 (21.7%)"
    assert fmt.country("UA") == "Ukraine (UA)"
    assert fmt.country("GB", "United Kingdom") == "United Kingdom (GB)"


def test_a_corpus_is_labelled_by_name_not_by_its_path() -> None:
    assert fmt.corpus("/data/ua-gec/train.jsonl.gz", "uk", 1234) == "train (uk — Ukrainian, 1,234 dishes)"
    assert fmt.corpus("uk:/root/.cache/dish-atlas/data/corpora/ua-gec.jsonl", "uk") == "UA-GEC (uk — Ukrainian)"
    assert fmt.corpus("my-web-crawl") == "my-web-crawl"


def test_headers_are_plain_words() -> None:
    frame = pd.DataFrame(
        {"lang": ["yo"], "n_wrong": [15000], "pull_share": [0.2231], "jaccard": [0.4478], "n_odd_things": [2]}
    )
    config = fmt.columns(frame)
    labels = {column: (value if isinstance(value, str) else value["label"]) for column, value in config.items()}
    assert labels == {
        "lang": "Language",
        "n_wrong": "Wrong answers",
        "pull_share": "Pull",
        "jaccard": "Jaccard",
        "n_odd_things": "Odd things",
    }
    assert all("_" not in label for label in labels.values())
    assert config["pull_share"]["type_config"]["format"] == "percent"
    assert config["n_wrong"]["type_config"]["format"] == "localized"
    shown = fmt.display(frame)
    assert shown["lang"].tolist() == ["yo — Yoruba"]
    assert frame["lang"].tolist() == ["yo"]  # the original (what a download holds) is unchanged
