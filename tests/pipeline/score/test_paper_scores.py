"""`export accuracy --method paper` reproduces the accuracies WorldCuisines published, cell by cell,
on the real prediction files; `--method atlas` gives ours beside it."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl

from pipeline.score.paper_scores import compare
from tests.helpers import run_cli

# Cells where the published number evidently comes from a slightly different prediction file than the
# public one: (task, model, lang) -> answers the published number is above the paper rule on the given
# file. Each is one to three answers; no rule reading of the given file yields them (llama-3.2-11b's
# extra right answers are not in its option-text or "The correct answer is N" lines consistently).
# Listed, never adjusted.
# Two more files differ from the scored ones in a way the import makes explicit rather than hiding:
# aria-25B-moe-4B's multiple-choice file ends every answer with "<|im_end|>" (removed on import, a
# counted quirk) and molmoe-1b's starts 331 answers with a space (outer whitespace is trimmed); read
# literally, int("3<|im_end|>") fails and all 30 aria cells would drop by 4-29 points. With the
# import's reading, all their cells match exactly.
PUBLISHED_FROM_ANOTHER_FILE = {
    ("origin_mc", "llama-3.2-11b", "en"): 1,
    ("origin_mc", "llama-3.2-11b", "fr"): 1,
    ("origin_mc", "llama-3.2-11b", "it"): 2,
    ("origin_mc", "llama-3.2-11b", "ja_formal"): 1,
    ("origin_mc", "llama-3.2-11b", "ru_casual"): 2,
    ("origin_mc", "llama-3.2-11b", "ru_formal"): 2,
    ("origin_mc", "llama-3.2-11b", "su_loma"): 2,
    ("origin_mc", "llama-3.2-11b", "tl"): 3,
    ("origin_mc", "llama-3.2-11b", "yue"): 1,
    ("origin_mc", "molmoe-1b", "bn"): 1,
}


def _accuracy(warehouse: Path, method: str) -> pl.DataFrame:
    out = run_cli(warehouse, "export", "accuracy", "--method", method, "--format", "csv").stdout
    return pl.read_csv(io.StringIO(out))


def test_paper_method_reproduces_every_published_worldcuisines_cell(real_warehouse: Path, data_dir: Path) -> None:
    paper = _accuracy(real_warehouse, "paper")
    assert paper.columns[:6] == ["dataset", "model", "task", "lang", "n", "accuracy"]
    cells = compare(paper, data_dir / "worldcuisines" / "scores")
    # 12 models x 30 languages, open-ended and multiple choice: every model whose predictions are given.
    assert len(cells) == 720
    assert {c.model for c in cells} == {
        p.stem.split("_", 2)[2] for p in (data_dir / "worldcuisines/predictions").glob("task2_oe_*.jsonl")
    }
    differing = {(c.task, c.model, c.lang): c.answers_apart for c in cells if not c.matches}
    print(f"\n{len(cells) - len(differing)} of {len(cells)} published cells reproduced exactly")
    for (task, model, lang), apart in sorted(differing.items()):
        print(f"published {task} {model} {lang} differs from the given file by {apart} answer(s)")
    assert differing == PUBLISHED_FROM_ANOTHER_FILE
    assert all(c.task == "origin_mc" for c in cells if not c.matches)  # every open-ended cell is exact


def test_atlas_method_sits_beside_the_papers(real_warehouse: Path) -> None:
    paper, atlas = _accuracy(real_warehouse, "paper"), _accuracy(real_warehouse, "atlas")
    # ours also scores what no paper rule covers (the demo's CultureMix answers); compare where both exist
    atlas = atlas.filter(pl.col("dataset").is_in(paper["dataset"].unique().to_list()))
    keys = ["dataset", "model", "task", "lang"]
    both = paper.join(atlas, on=keys, suffix="_atlas")
    assert both.height == paper.height == atlas.height
    assert (both["n"] == both["n_atlas"]).all()
    open_ended = both.filter(pl.col("task") == "origin_vqa")
    # Ours credits Cantonese answers the misaligned gold strings miss: far above the paper there.
    yue = open_ended.filter(pl.col("lang") == "yue")
    assert (yue["accuracy_atlas"] - yue["accuracy"]).mean() > 15
    choice = both.filter(pl.col("task") == "origin_mc")
    assert choice["parse_rate_atlas"].min() > 0.95  # per model and language; 99.9% over all answers
    assert (choice["paper_unreadable"].sum()) > 0
