"""Print the `columns` blocks of a mart's declaration from what the marts build: for a new mart (its file and its
`Mart(...)` entry written, its NAME.toml not yet), or one whose tables gained a column (a publish stops and names
what differs), copy the blocks into NAME.toml. Data tests and the export are written by hand.

    python tools/mart_declaration.py --warehouse W/warehouse.duckdb marts.paper_tables [marts.other ...]

Every mart is built, unchecked, into a scratch copy of the working database beside W; nothing of W is changed.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as a script from anywhere: the project's packages are importable
    sys.path.insert(0, str(REPO))


def columns_block(found: list[tuple[str, str]], table: str) -> str:
    """The `["marts.T".columns]` block of a table whose (column, type) pairs are `found`, in order."""
    lines = [f"[{json.dumps(table)}.columns]"]
    for column, kind in found:
        key = column if re.fullmatch(r"[A-Za-z0-9_-]+", column) else json.dumps(column, ensure_ascii=False)
        lines.append(f"{key} = {json.dumps(kind)}")
    return "\n".join(lines)


def built(working: Path) -> dict[str, list[tuple[str, str]]]:
    """Every table's (column, type) pairs once every mart is built, unchecked, into a scratch copy of `working`."""
    from warehouse.connect import connect
    from warehouse.marts import MARTS
    from warehouse.marts.contract import built_columns
    from warehouse.migrate import migrate

    with tempfile.TemporaryDirectory(prefix="mart-declaration-") as folder:
        scratch = Path(folder) / "scratch.duckdb"
        shutil.copyfile(working, scratch)
        con = connect(str(scratch))
        try:
            migrate(con, working)
            for mart in MARTS.values():
                mart.run(con)
            return built_columns(con)
        finally:
            con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", type=Path, required=True, help="the published snapshot (its .work beside it)")
    parser.add_argument("tables", nargs="+", help="marts.NAME ...")
    args = parser.parse_args()
    working = args.warehouse.with_name(args.warehouse.stem + ".work" + args.warehouse.suffix)
    found = built(working)
    missing = [table for table in args.tables if table not in found]
    if missing:
        raise SystemExit(f"{working}: the marts build no table {', '.join(missing)}")
    print("\n\n".join(columns_block(found[table], table) for table in args.tables))


if __name__ == "__main__":
    main()
