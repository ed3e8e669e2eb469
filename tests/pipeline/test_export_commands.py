"""The `export NAME` commands are made from the export declarations beside the marts (pipeline/export/commands.py):
one more declaration is one more command, with its help and options, and nothing written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from pipeline.export import commands
from warehouse.marts import EXPORTS, FOLDER_EXPORTS
from warehouse.marts.contract import Export, Files, MethodOption
from warehouse.registry import Registry


def _group(exports: list[Export], calls: list, folder_exports: tuple[Export, ...] = ()) -> typer.Typer:
    group = typer.Typer(no_args_is_help=True)
    with pytest.MonkeyPatch.context() as patch:
        toy, folders = Registry("export", ordered=True), Registry("folder export", ordered=True)
        for spec in exports:
            toy.add(spec.name, spec)
        for spec in folder_exports:
            folders.add(spec.name, spec)
        patch.setattr(commands, "EXPORTS", toy)
        patch.setattr(commands, "FOLDER_EXPORTS", folders)
        commands.add_export_commands(
            group, lambda ctx, *args: calls.append(args), lambda ctx, *args: calls.append(("folder", *args))
        )
    return group


def test_a_new_declaration_is_a_command_with_its_help_and_options(tmp_path: Path) -> None:
    calls: list = []
    declared = [
        Export("paper-tables", "marts.paper_tables", "One row per cell of the papers' tables."),
        Export("dishes", "marts.dishes", "One row per dish."),
        Export("gap", "marts.gap", "Gaps.", MethodOption("atlas or paper", "atlas")),
        Export("scores", "marts.scores", "Scores.", MethodOption("paper or atlas", None)),
    ]
    group = _group(declared, calls)
    runner = CliRunner()
    listing = runner.invoke(group, ["--help"], env={"COLUMNS": "120"}).output
    rows = [line.split() for line in listing.splitlines() if line.startswith("│ ")]
    listed = [row[1] for row in rows if not row[1].startswith("-")]
    assert listed == ["dishes", "paper-tables", "gap", "scores"]  # the hand-written ones first, then build order
    assert "One row per cell of the papers' tables." in listing
    out = tmp_path / "t.csv"
    assert runner.invoke(group, ["paper-tables", "--format", "parquet", "--out", str(out)]).exit_code == 0
    assert runner.invoke(group, ["gap"]).exit_code == 0
    assert runner.invoke(group, ["scores"]).exit_code == 2  # a --method without a default is required
    assert runner.invoke(group, ["scores", "--method", "paper"]).exit_code == 0
    assert calls == [
        ("paper-tables", "parquet", out, None),
        ("gap", "csv", None, "atlas"),
        ("scores", "csv", None, "paper"),
    ]


def test_the_commands_that_were_written_by_hand_keep_their_order_and_options() -> None:
    """`export --help` and each command's options are contracts: the 16 hand-written commands, in their order."""
    assert [spec.name for spec in commands.exports_in_order()][: len(commands.LISTED)] == list(commands.LISTED)
    assert set(commands.LISTED) <= set(EXPORTS)
    assert EXPORTS["accuracy"].method == MethodOption(
        "paper: the benchmark's own rule, reproduced; atlas: our extractors.", None
    )
    assert EXPORTS["language-gap"].method.default == "atlas"


def test_a_folder_export_is_a_command_with_its_pick_out_and_data_options(tmp_path: Path) -> None:
    """A declaration with `files` (warehouse/paper_tables/paper_tables.toml) is a command after the others, taking the
    value that picks its rows, the folder and, where declared, --data (env DATA)."""
    calls: list = []
    files = Files("{study}_{table}.csv", "Folder for the files.", "study", "which study", "the data folder")
    group = _group(
        [Export("dishes", "marts.dishes", "One row per dish.")],
        calls,
        (Export("cells", "cells.t", "One CSV per table.", files=files),),
    )
    runner = CliRunner()
    listing = runner.invoke(group, ["--help"], env={"COLUMNS": "120"}).output
    rows = [line.split()[1] for line in listing.splitlines() if line.startswith("│ ")]
    assert [name for name in rows if not name.startswith("-")] == ["dishes", "cells"]
    assert runner.invoke(group, ["cells", "--out", str(tmp_path)]).exit_code == 2  # --study is required
    assert runner.invoke(group, ["cells", "--study", "s"]).exit_code == 2  # so is --out
    assert runner.invoke(group, ["cells", "--study", "s", "--out", str(tmp_path)], env={"DATA": "d"}).exit_code == 0
    assert calls == [("folder", "cells", "s", tmp_path, Path("d"))]


def test_the_paper_tables_command_is_its_declaration_s() -> None:
    """`export paper-tables --paper P --out DIR [--data D]`: the options the hand-written command had, from its
    declaration (warehouse/paper_tables/paper_tables.toml)."""
    files = FOLDER_EXPORTS["paper-tables"].files
    assert (files.name, files.pick) == ("{paper}_{table}.csv", "paper")
    assert files.out == "Folder for the PAPER_ID.csv files (one per table and figure)."
