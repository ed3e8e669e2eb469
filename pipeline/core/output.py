"""What the CLI prints, and the one place where text from users and files is made literal.

Rich reads `[...]` as markup, so a file named `preds[red].jsonl` or a server message with brackets
would be printed wrong (or styled). Every value that came from a user, a file or a server goes
through `say` (values escaped) or `fail_line` (the whole message is plain text); only the project's
own templates carry markup."""

from __future__ import annotations

import errno as errnos
import traceback
from pathlib import Path

import duckdb
from babel.core import UnknownLocaleError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from pipeline.core.errors import DataError
from pipeline.core.scrub import scrub

console = Console(stderr=True)
results = Console()  # a command's result, for scripts (stdout); progress and messages go to stderr


def literal(value: object) -> str:
    """A value printed as it is, whatever brackets it holds."""
    return escape(str(value))


def say(template: str, *values: object, result: bool = False, **named: object) -> None:
    """Print `template` (the project's markup) with `{}` fields filled by literal values; `result`
    lines go to standard output, everything else to standard error."""
    (results if result else console).print(
        template.format(*(literal(v) for v in values), **{k: literal(v) for k, v in named.items()}),
        soft_wrap=True,
    )


def describe(exc: BaseException, warehouse: Path | None = None) -> str:
    """`WHAT[:LINE]: why — what to do` for an expected failure (no `error:` prefix)."""
    from warehouse.db import storage_failure

    if isinstance(exc, DataError):
        return str(exc)
    if isinstance(exc, (OSError, duckdb.Error)) and _about_storage(exc, warehouse):
        failure = storage_failure(exc, Path(getattr(exc, "filename", None) or warehouse or "."))
        if failure is not None:
            return str(failure)
    if isinstance(exc, OSError) and exc.filename is not None:
        why = (exc.strerror or str(exc)).lower()
        fix = {
            errnos.ENOENT: "check the path",
            errnos.EISDIR: "pass a file, not a folder",
            errnos.ENOTDIR: "check the path",
        }.get(exc.errno, "check the path and its permissions")
        return f"{exc.filename}: {why} — {fix}"
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    if isinstance(exc, UnknownLocaleError):
        return f"--lang {exc.identifier}: unknown language — use a code such as en, ru, uk (or auto)"
    if isinstance(exc, UnicodeDecodeError):
        return f"input is not UTF-8 text ({exc.reason} at byte {exc.start}) — convert it to UTF-8"
    return str(exc) or type(exc).__name__


def _about_storage(exc: BaseException, warehouse: Path | None) -> bool:
    """A disk that is full or read-only, or a file of the warehouse: not an input file the user
    named (an unreadable input is reported as such, not as a folder to make writable)."""
    if not isinstance(exc, OSError) or exc.errno in (errnos.ENOSPC, errnos.EDQUOT, errnos.EFBIG, errnos.EROFS):
        return True
    filename = getattr(exc, "filename", None)
    return bool(filename and warehouse and Path(filename).resolve().is_relative_to(warehouse.parent))


def fail_line(message: str) -> None:
    """`error: MESSAGE` as plain text: one line (newlines folded), nothing styled, no secret."""
    one_line = " ".join(message.split("\n")).strip() if "\n" in message else message
    console.print(Text("error: ", style="red") + Text(scrub(one_line)), soft_wrap=True)


def print_traceback(exc: BaseException) -> None:
    console.print(Text(scrub("".join(traceback.format_exception(exc)))), soft_wrap=True)


class ThroughputColumn(ProgressColumn):
    """items/s and tokens/s of a generation run so far."""

    def render(self, task) -> Text:
        elapsed = task.elapsed or 0.0
        if not elapsed:
            return Text("")
        tokens = task.fields.get("tokens", 0)
        return Text(f"{task.completed / elapsed:,.1f} items/s, {tokens / elapsed:,.0f} tokens/s", style="cyan")


def progress_bar(rate: bool = False) -> Progress:
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    if rate:
        columns.append(ThroughputColumn())
    return Progress(*columns, console=console)
