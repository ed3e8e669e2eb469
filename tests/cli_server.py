"""Imported once by the fork server of tests/cli_process.py, before it forks a process per CLI command: the
libraries whose import costs a command seconds, and lingua's language models, which the languages step of every
`score` pipeline loads; also the smaller libraries most commands import (argument parsing, progress bars, outlines,
lemmas: ~0.1 CPU-s a command over the suite's ~300 commands) and the `openai` client (~0.5 CPU-s a served-model
command).

Nothing of the pipeline's own state is built here (no gazetteer, cache file, console or setting): a command run
from the fork finds its modules as a new interpreter would, only with these imports and models already in memory.
Nothing here may start a thread: a forked child keeps only the thread that forked it, so a thread pool started
here (lingua's parallel detection, torch's intra-op pool, polars) would hang the children that use it."""

from __future__ import annotations

import gc
import tomllib  # noqa: F401

import babel.numbers  # noqa: F401
import duckdb  # noqa: F401
import filelock  # noqa: F401
import numpy  # noqa: F401
import openai  # noqa: F401  (half a CPU-second: the probe's and the served models' commands)
import pandas  # noqa: F401
import PIL.Image  # noqa: F401
import polars  # noqa: F401
import pyarrow  # noqa: F401
import pymorphy3  # noqa: F401
import rich.console
import rich.live
import rich.progress  # noqa: F401
import shapely.geometry  # noqa: F401
import tabulate  # noqa: F401
import torch  # noqa: F401
import transformers  # noqa: F401
import typer
import typer._adapters  # (and pydantic: every command parses its arguments with them)
import typer.rich_utils  # noqa: F401  (and rich.markdown, markdown_it: every command's Typer app imports them)
import xxhash  # noqa: F401
from diffusers import FluxPipeline  # noqa: F401
from lingua import LanguageDetectorBuilder

from pipeline.extract import switching

# One text per script the detectors meet: lingua loads the models of the candidate languages of a text's script on
# first use, into memory every detector shares, and loading them one text at a time keeps to this thread.
SCRIPT_SAMPLES = (
    "This dish is from Poland",
    "Это блюдо из Грузии",
    "هذا الطبق من مصر",
    "यह व्यंजन भारत का है",
    "এই খাবার ভারতের",
    "อาหารนี้มาจากไทย",
    "この料理は日本のです",
    "이 음식은 한국",
    "这道菜来自中国",
)

_detector = LanguageDetectorBuilder.from_languages(*switching.LINGUA_LANGUAGES).build()
for _text in SCRIPT_SAMPLES:
    _detector.compute_language_confidence_values(_text)

# Every object made above moves to the permanent generation: a command's `gc.collect()` (a model backend's `close`
# runs one to give the model's memory back) no longer walks the server's millions of library objects (half a
# CPU-second each time), and the children stop writing to the pages they share with the server.
gc.freeze()
