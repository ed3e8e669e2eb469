"""The `export NAME` commands, made from the export declarations beside the marts (`warehouse.marts.EXPORTS`, read
from each mart's `NAME.toml`): one command per declaration, with its help, `--format`, `--out` and, where the table
holds several scoring methods, `--method`. An export written as a folder of files (`warehouse.marts.FOLDER_EXPORTS`:
`export paper-tables`, declared in warehouse/paper_tables/paper_tables.toml) gets `--PICK`, `--out DIR` and, where
declared, `--data`. Adding an export is a declaration, never a command written here.

The commands, their options and their help are contracts (scripts outside the repository call them): the ones that
existed when the commands were hand-written keep their order in `--help` (`LISTED`); new ones follow in build order."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from warehouse.marts import EXPORTS, FOLDER_EXPORTS
from warehouse.marts.contract import Export

FormatOption = Annotated[str, typer.Option("--format", help="csv or parquet")]
OutOption = Annotated[Path | None, typer.Option(help="Output file (default or -: standard output).")]

# `export --help` lists these first, in this order (the order of the hand-written commands they replaced).
LISTED = (
    "dishes",
    "origin-scores",
    "accuracy",
    "choice-scores",
    "language-switching",
    "culturemix",
    "cooccurrence",
    "codemix",
    "name-scores",
    "dish-links",
    "imagined",
    "language-gap",
    "uacuisine-table4",
    "zno-accuracy",
    "captions",
    "vqa-languages",
)

# What a command does once parsed: (context, export name, --format, --out, --method or None).
Action = Callable[[typer.Context, str, str, "Path | None", "str | None"], None]
# What a folder export's command does once parsed: (context, export name, the picked value, --out, --data or None).
FolderAction = Callable[[typer.Context, str, str, Path, "Path | None"], None]


def exports_in_order() -> list[Export]:
    """Every declared export, the `LISTED` ones first."""
    rank = {name: i for i, name in enumerate(LISTED)}
    return sorted(EXPORTS.values(), key=lambda spec: rank.get(spec.name, len(rank)))


def add_export_commands(group: typer.Typer, action: Action, folder_action: FolderAction) -> None:
    """Register one command per declared export on `group` (the `export` sub-command), the folder exports last."""
    for spec in exports_in_order():
        group.command(spec.name)(export_command(spec, action))
    for spec in FOLDER_EXPORTS.values():
        group.command(spec.name)(folder_command(spec, folder_action))


def export_command(spec: Export, action: Action) -> Callable[..., None]:
    """The command function of `spec`: its signature is what typer reads its options from. A required `--method`
    comes first, one with a default after `--out` (the places the hand-written commands gave them)."""

    def command(ctx: typer.Context, format: str = "csv", out: Path | None = None, method: str | None = None) -> None:
        action(ctx, spec.name, format, out, method)

    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [
        inspect.Parameter("ctx", keyword, annotation=typer.Context),
        inspect.Parameter("format", keyword, annotation=FormatOption, default="csv"),
        inspect.Parameter("out", keyword, annotation=OutOption, default=None),
    ]
    if spec.method is not None:
        option = Annotated[str, typer.Option(help=spec.method.help)]
        if spec.method.default is None:
            parameters.insert(1, inspect.Parameter("method", keyword, annotation=option))
        else:
            parameters.append(inspect.Parameter("method", keyword, annotation=option, default=spec.method.default))
    command.__signature__ = inspect.Signature(parameters, return_annotation=None)
    command.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
    command.__name__ = command.__qualname__ = "export_" + spec.name.replace("-", "_")
    command.__doc__ = spec.help
    return command


def folder_command(spec: Export, action: FolderAction) -> Callable[..., None]:
    """The command function of a folder export: `--PICK` (required), `--out DIR` (required) and, where declared,
    `--data` (env DATA), in that order."""
    files = spec.files

    def command(ctx: typer.Context, pick: str, out: Path, data: Path | None = None) -> None:
        action(ctx, spec.name, pick, out, data)

    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [
        inspect.Parameter("ctx", keyword, annotation=typer.Context),
        inspect.Parameter(
            "pick", keyword, annotation=Annotated[str, typer.Option(f"--{files.pick}", help=files.pick_help)]
        ),
        inspect.Parameter("out", keyword, annotation=Annotated[Path, typer.Option(help=files.out)]),
    ]
    if files.data is not None:
        option = Annotated[Path | None, typer.Option(envvar="DATA", help=files.data)]
        parameters.append(inspect.Parameter("data", keyword, annotation=option, default=None))
    command.__signature__ = inspect.Signature(parameters, return_annotation=None)
    command.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
    command.__name__ = command.__qualname__ = "export_" + spec.name.replace("-", "_")
    command.__doc__ = spec.help
    return command
