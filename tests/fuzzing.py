"""Generated and mutated input files for the property-based tests of every importer and dataset reader (issue 51).

A strategy starts from a few valid records (seeds) and mutates them as real files go wrong: fields of the wrong type,
Unicode edge cases (lone surrogates, BOMs, combining and right-to-left marks, NULs), huge and empty fields, dropped,
unknown and duplicate keys or columns, duplicated rows, then bytes: truncation, stray bytes that are not UTF-8, CRLF
and blank lines. The property checked (`check_outcome`) is the project's rule for bad input: a result, counted quirks,
or one error naming the file (a `DataError`, which the CLI prints as one `error:` line, exit 2), never another
exception (the CLI's "this is a bug") and never a partial write.

Volume: DISH_ATLAS_FUZZ_EXAMPLES=N examples per format (default 15, what the suite runs); with
DISH_ATLAS_FUZZ_REPORT=FILE each test adds `format: inputs tried, outcomes` to FILE as a JSON line
(`bench/fuzz.py --examples 500` runs a larger volume and prints the counts).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import duckdb
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from pipeline.core.errors import DataError
from warehouse.db import table_fingerprints

EXAMPLES_ENV = "DISH_ATLAS_FUZZ_EXAMPLES"
REPORT_ENV = "DISH_ATLAS_FUZZ_REPORT"


def examples() -> int:
    return int(os.environ.get(EXAMPLES_ENV, "15"))


def fuzz_settings() -> settings:
    """Deterministic in the suite (the same inputs every run); a volume run (DISH_ATLAS_FUZZ_EXAMPLES set) draws new
    ones each time."""
    return settings(
        max_examples=examples(),
        deadline=None,
        derandomize=EXAMPLES_ENV not in os.environ,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )


HUGE = 200_000  # characters: past every field and line limit the readers set
EDGE_TEXT = (
    "",
    " ",
    "\x00",
    "\ufeff",  # a BOM inside a value
    "\u200b\u200d",  # zero-width space and joiner
    "\u202eабв",  # right-to-left override
    "е\u0301",  # a combining accent
    "Кулеб'яка ʼ ’",  # the apostrophes Ukrainian is written with
    '"; DROP TABLE x; --',
    "<script>alert(1)</script>",
    "\\u0000",
    "NaN",
    "null",
    "1e999",
    "🍲🇺🇦",
    "\ud800",  # a lone surrogate: JSON can carry it (\\ud800), UTF-8 cannot
    "x" * HUGE,
)
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(EDGE_TEXT),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)
_STRAY = (b"\xff", b"\xc3", b"\x00", b"\xef\xbb\xbf", b"\r", b"\n\n", b'"', b",", b"\t", b"{", b"\\")


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """`data`, mostly as it is, else truncated, with stray bytes put in, a BOM before it, or CRLF line ends."""
    how = draw(st.sampled_from(("keep", "keep", "truncate", "insert", "bom", "crlf", "empty")))
    if how == "truncate" and data:
        return data[: draw(st.integers(0, len(data) - 1))]
    if how == "insert":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.sampled_from(_STRAY) | st.binary(min_size=1, max_size=4)) + data[at:]
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "crlf":
        return data.replace(b"\n", b"\r\n")
    if how == "empty":
        return b""
    return data


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate becomes bytes no UTF-8 reader accepts


@st.composite
def _in_order(draw: st.DrawFn, seeds: list[dict]) -> list[dict]:
    """Every seed in its order, with up to three of them left out or repeated (a table whose row numbers mean
    something, such as WorldCuisines' knowledge base, where a row's number is its dish's id)."""
    rows = list(seeds)
    for _ in range(draw(st.integers(0, 3))):
        if rows:
            at = draw(st.integers(0, len(rows) - 1))
            if draw(st.booleans()):
                rows.pop(at)
            else:
                rows.insert(at, rows[at])
    return rows


@st.composite
def mutated_records(draw: st.DrawFn, seeds: list[dict], ordered: bool = False) -> list[dict | str]:
    """Records drawn from `seeds` (repeats included; with `ordered`, all of them in order, a few left out or
    repeated), each with up to three fields set to another value, dropped or added (most records of an ordered table
    unchanged); a record may instead be a line of JSON with a duplicate key (returned as its text)."""
    records: list[dict | str] = []
    picked = draw(_in_order(seeds)) if ordered else draw(st.lists(st.sampled_from(seeds), max_size=5))
    for seed in picked:
        record = dict(seed)
        duplicate = None
        changes = draw(st.integers(0, 3)) if not ordered or draw(st.integers(0, 9)) == 0 else 0
        for _ in range(changes):
            key = draw(st.sampled_from(sorted(record) or ["extra"]))
            how = draw(st.sampled_from(("set", "set", "drop", "add", "duplicate")))
            if how == "set":
                record[key] = draw(_VALUES)
            elif how == "drop":
                record.pop(key, None)
            elif how == "add":
                record[draw(st.sampled_from(("extra", "", "ID", " model")))] = draw(_VALUES)
            else:
                duplicate = (key, draw(_VALUES))
        if duplicate is not None:
            text = json.dumps(record, ensure_ascii=True, default=repr)
            extra = f"{json.dumps(duplicate[0])}: {json.dumps(duplicate[1], default=repr)}"
            records.append(text[:-1] + (", " if record else "") + extra + "}")
        else:
            records.append(record)
    return records


@st.composite
def json_lines(draw: st.DrawFn, seeds: list[dict]) -> bytes:
    """A JSON lines file of mutated records (some lines as Python dicts, as real prediction files have), then its
    bytes mutated."""
    lines = []
    for record in draw(mutated_records(seeds)):
        if isinstance(record, str):
            lines.append(record)
        elif draw(st.integers(0, 9)) == 0:
            lines.append(repr(record))
        else:
            lines.append(json.dumps(record, ensure_ascii=draw(st.booleans())))
    blank = draw(st.sampled_from(("", "", "\n", "\n\n")))
    return draw(mutated_bytes(_encode(blank.join(line + "\n" for line in lines))))


@st.composite
def json_document(draw: st.DrawFn, key: str, seeds: list[dict], extra: dict | None = None) -> bytes:
    """A JSON object holding a list of mutated records under `key` (the VQA layout), then its bytes mutated."""
    records = [r for r in draw(mutated_records(seeds)) if isinstance(r, dict)]
    top = {**(extra or {}), key: draw(st.sampled_from((records, records, None, "text", {"0": records})))}
    return draw(mutated_bytes(_encode(json.dumps(top, ensure_ascii=draw(st.booleans())))))


def _cell(value: object) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value, default=repr)


@st.composite
def table_rows(
    draw: st.DrawFn, header: list[str], seeds: list[dict], ordered: bool = False
) -> tuple[list[str], list[list]]:
    """A header (columns dropped, added, renamed to a duplicate) and rows of mutated records in its order."""
    columns = list(header)
    how = draw(st.sampled_from(("keep", "keep", "drop", "add", "duplicate", "upper")))
    if how == "drop" and columns:
        columns.pop(draw(st.integers(0, len(columns) - 1)))
    elif how == "add":
        columns.append(draw(st.sampled_from(("extra", "", "Unnamed: 9"))))
    elif how == "duplicate" and columns:
        columns.append(columns[draw(st.integers(0, len(columns) - 1))])
    elif how == "upper":
        columns = [c.upper() for c in columns]
    rows = []
    for record in draw(mutated_records(seeds, ordered)):
        if isinstance(record, str):
            continue
        rows.append([record.get(c, record.get(c.lower())) for c in columns])
    return columns, rows


@st.composite
def csv_file(
    draw: st.DrawFn, header: list[str], seeds: list[dict], delimiter: str = ",", ordered: bool = False
) -> bytes:
    columns, rows = draw(table_rows(header, seeds, ordered))
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([_cell(v) for v in row] for row in rows)
    return draw(mutated_bytes(_encode(out.getvalue())))


@st.composite
def xlsx_file(draw: st.DrawFn, header: list[str], seeds: list[dict]) -> bytes:
    """A spreadsheet of mutated rows, cells of any type (numbers, booleans, dates, formulas, huge text), sometimes
    with its bytes cut short."""
    import xlsxwriter

    columns, rows = draw(table_rows(header, seeds))
    cells = st.sampled_from((None, 0, -1.5, True, datetime(2024, 2, 29), "=1/0", "x" * 40_000, "   "))
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_formulas": False})
    book.set_properties({"created": datetime(2024, 1, 1)})  # the same bytes for the same draws (hypothesis replays)
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, columns)
    for number, row in enumerate(rows, start=1):
        values = [_xlsx_value(v) for v in row]
        if values and draw(st.integers(0, 3)) == 0:
            values[draw(st.integers(0, len(values) - 1))] = draw(cells)
        for column, value in enumerate(values):
            if isinstance(value, datetime):
                sheet.write_datetime(number, column, value, book.add_format({"num_format": "yyyy-mm-dd"}))
            elif isinstance(value, str) and value.startswith("="):
                sheet.write_formula(number, column, value)
            elif value is not None:
                sheet.write(number, column, value)
    book.close()
    return draw(_cut_short(out.getvalue()))


@st.composite
def _cut_short(draw: st.DrawFn, data: bytes) -> bytes:
    """`data`, or (one time in six) its first part: the cut is drawn as a share of the length, so a replay draws the
    same choices whatever the writer's bytes."""
    if draw(st.integers(0, 5)) == 0:
        return data[: len(data) * draw(st.integers(0, 999)) // 1000]
    return data


def _xlsx_value(value: object) -> object:
    if value is None or isinstance(value, int | float | bool):
        return value if not isinstance(value, int) or abs(value) < 2**53 else str(value)
    text = value if isinstance(value, str) else json.dumps(value)
    # a workbook's XML cannot hold control characters or lone surrogates; a cell holds at most 32,767 characters
    return "".join(ch for ch in text if ch >= " " and not 0xD800 <= ord(ch) <= 0xDFFF)[:32_767]


class Tally:
    """How many inputs a test tried and what became of them (reported with DISH_ATLAS_FUZZ_REPORT), and the tables'
    state after the last one (the next one starts from it: one scan of the tables per input)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.outcomes: Counter[str] = Counter()
        self.state: dict | None = None

    def add(self, outcome: str) -> None:
        self.outcomes[outcome] += 1

    def report(self) -> None:
        target = os.environ.get(REPORT_ENV)
        if target:
            line = {"format": self.name, "inputs": sum(self.outcomes.values()), **dict(self.outcomes)}
            with open(target, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(line) + "\n")


def check_outcome(
    con: duckdb.DuckDBPyConnection, path: Path, run: Callable[[], list[BaseException]], tally: Tally
) -> None:
    """Run an importer or reader on `path` and count its outcome ("result" or "error") in `tally`, checking the rule:
    every failure a DataError naming the file, and a failed file leaves every table as it was."""
    before = tally.state if tally.state is not None else table_fingerprints(con)
    try:
        failures = run()
    except DataError as exc:
        failures = [exc]
    assert all(isinstance(f, DataError) for f in failures), failures
    tally.state = table_fingerprints(con)
    if not failures:
        tally.add("result")
        return
    for failure in failures:
        assert path.name in str(failure) or path.parent.name in str(failure), failure
    assert tally.state == before, f"a refused file changed the warehouse: {failures[0]}"
    tally.add("error")


# --- small real-data folders the readers start from ----------------------------------------------------------------

BORSCH_ROWS = 40  # dish ids 1..40 of each list


def write_borsch(data: Path, root: Path) -> Path:
    """The first BORSch dishes of each list and the parallel pairs between them, as the three published workbooks."""
    import polars as pl

    root.mkdir(parents=True, exist_ok=True)
    for name in ("RU_DATA", "UK_DATA"):
        frame = pl.read_excel(data / "borsch" / f"{name}.xlsx", infer_schema_length=0)
        _write_xlsx(root / f"{name}.xlsx", frame.head(BORSCH_ROWS))
    pairs = pl.read_excel(data / "borsch" / "PARALLEL_RU_UK.xlsx", infer_schema_length=0)
    ids = pairs["ID RU,UK"].str.split(",")
    inside = ids.list.eval(pl.element().cast(pl.Int64, strict=False).fill_null(0) <= BORSCH_ROWS).list.all()
    _write_xlsx(root / "PARALLEL_RU_UK.xlsx", pairs.filter(inside))
    return root


def _write_xlsx(path: Path, frame) -> None:
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, frame.columns)
    for number, row in enumerate(frame.iter_rows(), start=1):
        sheet.write_row(number, 0, ["" if v is None else v for v in row])
    book.close()


def write_culturemix(data: Path, root: Path, rows: int = 40) -> Path:
    """The first rows of the CultureMix sample's images.csv (its images are not read by ingest)."""
    root.mkdir(parents=True, exist_ok=True)
    lines = (data / "culturemix-sample" / "images.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (root / "images.csv").write_text("".join(lines[: rows + 1]), encoding="utf-8")
    return root


def csv_records(path: Path) -> tuple[list[str], list[dict]]:
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


@st.composite
def text_lines(draw: st.DrawFn, seeds: list[str]) -> bytes:
    """A plain-text file, one value a line (Multi30K's image lists and captions): seed lines repeated, dropped or
    replaced by edge-case text, then its bytes mutated."""
    lines = draw(st.lists(st.sampled_from(seeds) | st.sampled_from(EDGE_TEXT) | st.text(max_size=12), max_size=6))
    return draw(mutated_bytes(_encode("".join(line + "\n" for line in lines))))


@st.composite
def parquet_file(draw: st.DrawFn, seeds: list[dict]) -> bytes:
    """A Parquet file of mutated records (a column of mixed types is written as text, as a careless export would),
    sometimes with its bytes cut short."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = [_no_surrogates(r) for r in draw(mutated_records(seeds)) if isinstance(r, dict)]
    columns = sorted({key for record in records for key in record}) or ["id"]
    try:
        table = pa.Table.from_pylist([{c: r.get(c) for c in columns} for r in records])
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        table = pa.table({c: [None if r.get(c) is None else _cell(r.get(c)) for r in records] for c in columns})
    out = io.BytesIO()
    try:
        pq.write_table(table, out)
    except pa.ArrowException:  # a type Parquet cannot hold (an empty struct): written as text instead
        out = io.BytesIO()
        pq.write_table(pa.table({c: [_cell(v) for v in table.column(c).to_pylist()] for c in table.column_names}), out)
    return draw(_cut_short(out.getvalue()))


def _no_surrogates(value: object) -> object:
    """`value` with lone surrogates replaced: Parquet strings are UTF-8 and cannot hold them at all."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    return value
