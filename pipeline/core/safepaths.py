"""Paths built from downloaded manifests and data files stay inside their folder.

A manifest or a CSV row names where a download goes (`dest`, a `food_id`); a damaged or hostile
one could say `../..`, an absolute path or `a/b`. These checks refuse such names before anything
is written."""

from __future__ import annotations

from pathlib import Path

from pipeline.core.errors import DataError


def safe_id(value: str | None, source: Path | str) -> str:
    """An id used as one path component (a folder or file name): no separators, no `.`/`..`."""
    text = (value or "").strip()
    if not text or text in (".", "..") or any(c in text for c in "/\\\0") or ":" in text:
        raise DataError(
            source, f"id {text!r} cannot name a file — the manifest is damaged or hostile; nothing was downloaded"
        )
    return text


def inside(dest: Path, relative: str) -> Path:
    """`dest/relative`, refused unless it stays inside `dest`: no absolute path, no `..`, no
    backslash or NUL, and no symlink inside `dest` leading out of it."""
    parts = relative.split("/")
    if (
        not relative
        or relative.startswith("/")
        or any(part in ("", ".", "..") for part in parts)
        or any(c in relative for c in "\\\0")
        or ":" in parts[0]
    ):
        raise DataError(
            relative,
            f"download destination is not inside {dest} — the manifest is damaged or hostile; nothing was downloaded",
        )
    root = dest.resolve()
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        raise DataError(relative, f"download destination leads out of {dest} through a link — remove the link")
    return target
