"""How the dashboard writes numbers, shares, language codes, countries and column headers: one place,
so every page reads the same and nobody has to decode `nan_spoken`, `0.2231` or `n_wrong`.

Text (captions, metrics, hover labels, selector options) goes through the plain functions below;
tables go through `dataframe()` (or `display()` + `columns()`), which keeps the frame's values
and only changes how they are shown, so a download of the same frame stays raw.

Conventions, everywhere:
- a share (0–1) is a percentage with one decimal ("22.3%"); a non-zero share never reads "0%"
  ("<0.1%") and one short of all never reads "100%" (">99.9%");
- a count has thousands separators ("15,000");
- a score on 0–1 that is not a share (Jaccard, similarity) has two decimals ("0.45");
- a language is "code — English name" ("yo — Yoruba", "su_loma — Sundanese (loma)");
- a country is "Name (CODE)" ("Ukraine (UA)").
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePath
from typing import Any

import pandas as pd
import streamlit as st
from babel import Locale

PCT_DIGITS = 1
SCORE_DIGITS = 2
DASH = "–"  # a missing value

# d3-format strings with the same conventions (Vega-Lite axis ticks and tooltips, app/vega.py)
D3_PCT = ".1%"
D3_PCT_AXIS = ".0%"
D3_COUNT = ",d"
D3_SCORE = ".2f"

# WorldCuisines writes a register or script after the language code (`jv_krama`, `si_formal_spoken`).
VARIANTS = {
    "formal_spoken": "formal, spoken",
    "spoken": "spoken",
    "casual": "casual",
    "formal": "formal",
    "krama": "krama",
    "ngoko": "ngoko",
    "loma": "loma",
}


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT


# --- numbers --------------------------------------------------------------------------------------


def pct(value: Any, digits: int = PCT_DIGITS) -> str:
    """A share 0–1 as a percentage: `pct(0.2231)` → "22.3%"; a tiny non-zero share is "<0.1%", never
    "0%"; a missing one "–"."""
    if _missing(value):
        return DASH
    value = float(value)
    text = f"{value:.{digits}%}"
    smallest = 10.0 ** -(digits + 2)
    if value != 0 and float(text.rstrip("%")) == 0:
        return f"<{smallest:.{digits}%}" if value > 0 else f">-{smallest:.{digits}%}"
    if value < 1 and text == f"{1:.{digits}%}":
        return f">{1 - smallest:.{digits}%}"
    return text


def count(value: Any) -> str:
    """A whole number with thousands separators: 15000 → "15,000"."""
    return DASH if _missing(value) else f"{int(value):,}"


def score(value: Any, digits: int = SCORE_DIGITS) -> str:
    """A 0–1 score that is not a share (Jaccard, similarity): 0.4478 → "0.45"."""
    return DASH if _missing(value) else f"{float(value):.{digits}f}"


def of(part: Any, whole: Any) -> str:
    """Part of a whole: "1,234 of 5,678 (21.7%)"."""
    share = (float(part) / float(whole)) if not _missing(whole) and float(whole) else None
    return f"{count(part)} of {count(whole)}" + (f" ({pct(share)})" if share is not None else "")


# --- languages and countries ----------------------------------------------------------------------


@functools.cache
def _english() -> Locale:
    return Locale("en")


@functools.cache
def language_name(code: Any) -> str:
    """The English name of a language code, with a WorldCuisines variant in brackets: "yo" → "Yoruba",
    "su_loma" → "Sundanese (loma)", "zh_cn" → "Chinese (China)", "nan_spoken" → "Min Nan Chinese
    (spoken)". An unknown code is returned as it is."""
    text = "" if _missing(code) else str(code).strip()
    if not text:
        return ""
    en = _english()
    if text in en.languages:
        return en.languages[text]
    base, _, variant = text.replace("-", "_").partition("_")
    name = en.languages.get(base.lower())
    if name is None:
        return text
    if not variant:
        return name
    extra = VARIANTS.get(variant.lower()) or en.territories.get(variant.upper()) or variant.replace("_", " ")
    return f"{name} ({extra})"


def language(code: Any) -> str:
    """A language code with its name: "yo — Yoruba", "jv_krama — Javanese (krama)"; the code alone
    when babel does not know it."""
    text = "" if _missing(code) else str(code)
    name = language_name(text)
    return text if not name or name == text else f"{text} — {name}"


def languages(codes: Iterable[Any]) -> str:
    return ", ".join(language(code) for code in codes)


@functools.cache
def country_name(code: Any) -> str:
    """The English name of an alpha-2 code ("UA" → "Ukraine"); the code when unknown."""
    text = "" if _missing(code) else str(code).strip().upper()
    return _english().territories.get(text, text)


def country(code: Any, name: Any = None) -> str:
    """A country as "Ukraine (UA)"; `name` (e.g. from marts.country_shapes) wins over babel's."""
    text = "" if _missing(code) else str(code)
    shown = str(name) if not _missing(name) and str(name) else country_name(text)
    return text if not shown or shown == text else f"{shown} ({text})"


# --- labels ---------------------------------------------------------------------------------------


KNOWN_CORPORA = {"ua-gec": "UA-GEC", "uagec": "UA-GEC"}  # file stems of the corpora the pipeline ships


def corpus(corpus_id: Any, lang: Any = None, n_dishes: Any = None) -> str:
    """A corpus by its name, never its path: "/data/ua-gec/train.jsonl.gz" → "train (uk — Ukrainian)"."""
    text = "" if _missing(corpus_id) else str(corpus_id)
    if "/" in text or "\\" in text:
        name = PurePath(text.replace("\\", "/")).name
        text = re.sub(r"(\.(gz|bz2|xz|zst|zstd))?$", "", name)
        text = re.sub(r"\.(jsonl|json|parquet|txt|csv|tsv)$", "", text) or name
    text = KNOWN_CORPORA.get(text.lower(), text)
    details = [language(lang)] if not _missing(lang) and str(lang) else []
    if not _missing(n_dishes):
        details.append(f"{count(n_dishes)} dishes")
    return f"{text} ({', '.join(details)})" if details else text


# Column headers: the marts' snake_case names as a reader would say them. Unknown names fall back to
# `header()`'s rule (underscores to spaces, "n_x" → "x", first letter capitalised).
HEADERS: dict[str, str] = {
    "lang": "Language",
    "language": "Language",
    "prompt_lang": "Prompt language",
    "answer_lang": "Answer language",
    "dataset": "Dataset",
    "model": "Model",
    "task": "Task",
    "country": "Country",
    "country_name": "Country name",
    "true_country": "True origin",
    "predicted_country": "Named country",
    "item_id": "Item",
    "dish_id": "Dish id",
    "dish_key": "Dish key",
    "dish": "Dish",
    "name": "Name",
    "display_name": "Dish",
    "gold": "Gold origins",
    "predicted": "Countries named",
    "response": "Answer",
    "status": "Status",
    "jaccard": "Jaccard",
    "jaccard_low": "Jaccard, 95% low",
    "jaccard_high": "Jaccard, 95% high",
    "accuracy": "Accuracy",
    "recall": "Recall",
    "share": "Share",
    "n": "Answers",
    "n_answers": "Answers",
    "n_hits": "Named it",
    "n_wrong": "Wrong answers",
    "n_pulled": "Pulled",
    "n_base_wrong": "Wrong (English base)",
    "n_base_pulled": "Pulled (English base)",
    "pull_share": "Pull",
    "base_share": "Base (English)",
    "lift": "Lift",
    "language_countries": "Countries speaking it",
    "n_dishes": "Dishes",
    "n_shared_dishes": "Shared with other countries",
    "n_items": "Items",
    "n_models": "Models",
    "n_generations": "Answers",
    "n_ru": "Naming Russia",
    "n_ua": "Naming Ukraine",
    "n_either": "Naming either",
    "ru_share": "Share naming Russia",
    "no_country_share": "No country",
    "post_soviet": "Post-Soviet",
    "docs_with_dish": "Documents with the dish",
    "docs_with_true_country": "… and a true origin",
    "docs_with_any_country": "… and any country",
    "ratio": "Ratio",
    "n_pairs": "Pairs",
    "d_range": "d range",
    "bin_range": "Range",
    "mean": "Mean",
    "mean_low": "95% low",
    "mean_high": "95% high",
    "dishes": "Dishes",
    "metric": "Measure",
    "source": "Source",
    "origins": "Origins",
    "alpha3": "ISO alpha-3",
    "file": "File",
    "kind": "Quirk",
    "severity": "Severity",
    "first_line": "First line",
    "example": "Example",
    "task_id": "Task",
    "model_id": "Model",
    "n_empty": "Empty answers",
    "corpus_id": "Corpus",
    "corpus_lang": "Corpus language",
    "mean_gap": "Mean gap (points)",
    "reason": "Commonest reason",
    "names_gold": "Gold string names the gold country",
    "names_other": "… another country",
    "names_none": "… no country",
    "uk_name": "Ukrainian name",
    "ru_name": "Russian name",
    "docs_uk_name": "Documents with the Ukrainian name",
    "docs_ru_name": "Documents with the Russian name",
    "d": "d (UK − RU documents)",
    "d_low": "d from",
    "d_high": "d to",
    "bin": "Bin",
    "line": "Line",
    "pair_id": "Pair",
    "uk_dish_key": "Ukrainian dish key",
    "ru_dish_key": "Russian dish key",
    "prediction": "Answer",
}

# Columns holding a share 0–1, shown as a percentage; those holding a 0–1 score, with two decimals.
SHARE_COLUMNS = frozenset(
    {
        "accuracy", "recall", "share", "pull_share", "base_share", "lift", "ru_share", "no_country_share",
        "parse_rate", "switched_share", "reason_share", "accuracy_low", "accuracy_high",
    }
)  # fmt: skip
SCORE_COLUMNS = frozenset(
    {
        "jaccard", "jaccard_low", "jaccard_high", "dice", "overlap", "similarity", "mean", "mean_low",
        "mean_high", "ratio", "intra_cosine", "inter_cosine", "qa_jaccard",
    }
)  # fmt: skip
LANGUAGE_COLUMNS = frozenset({"lang", "prompt_lang", "answer_lang", "corpus_lang"})


def header(column: str) -> str:
    """A plain header for a column name: `HEADERS` first, else "n_wrong_dishes" → "Wrong dishes"."""
    if column in HEADERS:
        return HEADERS[column]
    words = str(column).split("_")
    if len(words) > 1 and words[0] == "n":
        words = words[1:]
    text = " ".join(word for word in words if word)
    return text[:1].upper() + text[1:]


def columns(frame: pd.DataFrame, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`st.dataframe` column_config for `frame`: plain headers, shares as percentages with one decimal,
    counts with thousands separators, scores with two decimals. `overrides` (column → config or
    label) win."""
    config: dict[str, Any] = {}
    for column in frame.columns:
        label = header(str(column))
        dtype = frame[column].dtype
        if column in SHARE_COLUMNS and pd.api.types.is_numeric_dtype(dtype):
            config[column] = st.column_config.NumberColumn(label, format="percent", step=0.001)
        elif column in SCORE_COLUMNS and pd.api.types.is_numeric_dtype(dtype):
            config[column] = st.column_config.NumberColumn(label, format=f"%.{SCORE_DIGITS}f")
        elif pd.api.types.is_integer_dtype(dtype) and column not in ("item_id", "dish_id", "bin", "year"):
            config[column] = st.column_config.NumberColumn(label, format="localized", step=1)
        else:
            config[column] = label
    config.update(overrides or {})
    return config


def model(name: Any) -> str:
    """A model as people name it: a model run from a local folder (`generate --model /path/to/folder`, the demo's
    tiny model) is recorded by its path, which is the machine's business, not the reader's: its folder's name."""
    text = "" if _missing(name) else str(name)
    if text.startswith(("/", "~", "./", "../")) or "\\" in text:
        return PurePath(text.replace("\\", "/")).name or text
    return text


MODEL_COLUMNS = frozenset({"model", "model_a", "model_b", "base_model", "tuned_model"})


def _mapped(frame: pd.DataFrame, columns: frozenset[str], write: Any) -> pd.DataFrame:
    """A copy of `frame` with `write` applied to those of `columns` that hold text."""
    shown = frame.copy()
    for column in columns & set(shown.columns):
        if pd.api.types.is_object_dtype(shown[column].dtype) or pd.api.types.is_string_dtype(shown[column].dtype):
            shown[column] = shown[column].map(write)
    return shown


def models_by_name(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of `frame` whose model columns name each model as people do (`model`): every table and chart."""
    return _mapped(frame, MODEL_COLUMNS, model)


def display(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of `frame` for the eye: language codes with their names, models by name. Download the original."""
    return models_by_name(_mapped(frame, LANGUAGE_COLUMNS, language))


def dataframe(frame: pd.DataFrame, column_config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
    """`st.dataframe` of `frame` with readable headers and values (see `columns` and `display`)."""
    kwargs.setdefault("hide_index", True)
    return st.dataframe(display(frame), column_config=columns(frame, column_config), **kwargs)
