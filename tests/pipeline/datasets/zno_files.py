"""Small ZNO-Vision files written in code, in the published layout pipeline/datasets/zno.py reads
(data/<split>-00000-of-00001.parquet, the `datasets` Image feature as {bytes, path}), with answers whose
scores are worked out by hand in the tests."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl


def png(shade: int) -> bytes:
    """A 4x4 grey PNG, one per shade (distinct bytes, distinct content hashes)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (shade, shade, shade)).save(buffer, format="PNG")
    return buffer.getvalue()


def _options(letters: str) -> list[dict]:
    return [{"marker": letter, "text": f"варіант {letter}"} for letter in letters]


# id, split, subject, year, letters, right letter(s), image shade (None: no image)
QUESTIONS = [
    ("v1", "validation", "Mathematics", 2021, "АБВГ", ["А"], 10),
    ("v2", "validation", "Mathematics", 2022, "АБВГ", ["В"], 20),
    ("v3", "validation", "History", 2020, "АБВГД", ["А"], 30),
    ("t1", "test", "Chemistry", 2019, "АБВГД", ["Б"], 40),
    ("t2", "test", "Chemistry", 2023, "АБВГ", ["А"], 50),
    ("t3", "test", "Chemistry", 2023, "АБВГ", ["А", "Б"], 60),  # two right letters: left out
    ("t4", "test", "Physics", 2023, "АБВГ", ["Г"], None),  # no image: left out
    ("t5", "test", "Physics", 2023, "АБВГ", ["Г"], (70, 80)),  # two images: left out, as the paper did
]
VISUAL_ONLY = {"v1", "t1"}  # Tables 7-8: questions whose text is only in the image (the flag's assumed column)
# model m1's answers and how each reading scores them (gold in brackets):
ANSWERS = [
    ("m1", "v1", "Спершу [Б], але ні: правильно [А]"),  # [А] paper: last bracket А, right; ours: several, wrong
    ("m1", "v2", "[В]"),  # [В] both right
    ("m1", "v3", "Думаю, [Г]"),  # [А] both wrong
    ("m1", "t1", "Б"),  # [Б] paper: no brackets, wrong; ours: Б, right
    ("m1", "t2", "[A]"),  # [А] paper: a Latin A is not the letter, wrong; ours: А, right
    ("m2", "v1", "[А]"),  # m2: right on v1 only
    ("m2", "t1", "[А]"),
]


def _images(qid: str, shade: int | tuple[int, ...] | None) -> dict:
    """The `datasets` Image feature: `image` for one, `images` (a list) for several."""
    if isinstance(shade, tuple):
        return {"image": None, "images": [{"bytes": png(s), "path": f"{qid}-{s}.png"} for s in shade]}
    return {"image": {"bytes": png(shade) if shade is not None else None, "path": f"{qid}.png"}, "images": None}


def write_zno(root: Path) -> Path:
    """The ZNO-Vision folder: one parquet file per split."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    for split in ("validation", "test"):
        rows = [
            {"id": qid, "question": f"Питання {qid}?", "answers": _options(letters), "correct_answers": right,
             "subject": subject, "year": year,
             "visual_only": qid in VISUAL_ONLY, **_images(qid, shade)}
            for qid, s, subject, year, letters, right, shade in QUESTIONS if s == split
        ]  # fmt: skip
        pl.DataFrame(rows).write_parquet(root / "data" / f"{split}-00000-of-00001.parquet")
    return root


def write_answers(path: Path, answers: list[tuple[str, str, str | None]] = ANSWERS) -> Path:
    path.write_text(
        "".join(json.dumps({"model": m, "id": q, "response": r}, ensure_ascii=False) + "\n" for m, q, r in answers),
        encoding="utf-8",
    )
    return path
