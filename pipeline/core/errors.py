"""Errors that name the input at fault, so a user can open the file and fix it."""

from __future__ import annotations

from pathlib import Path


class DataError(ValueError):
    """Bad input: names the file, the row/line when known, and what is wrong with it."""

    def __init__(self, file: str | Path, message: str, line: int | None = None) -> None:
        self.file = str(file)
        self.line = line
        self.reason = message
        where = f"{self.file}:{line}" if line is not None else self.file
        super().__init__(f"{where}: {message}")


class OfflineError(RuntimeError):
    """A download that cannot reach its host."""


class CorpusError(RuntimeError):
    """A corpus source that cannot be scanned at all (nothing matches, a remote source offline)."""
