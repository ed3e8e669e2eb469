"""Caps on what a file from outside may make the pipeline hold: hostile or broken files (zip and gzip bombs, a
gigabyte on one line, a million Parquet columns, deeply nested JSON) stop with one line naming the file (and line)
instead of exhausting memory or the stack.

Each cap is far above anything the real inputs reach (the BORSch workbooks inflate to under 2 MB, a WorldCuisines
answer line is under 20 kB, UACUISINE tables have 6 columns) and is named in the error it raises.
bench/faults.py writes a file crossing each one; tests/pipeline/core/test_limits.py feeds them to the CLI."""

from __future__ import annotations

import csv
import io
import json
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from pipeline.core.errors import DataError

MIB = 1 << 20
MAX_LINE_BYTES = 64 * MIB  # one JSON Lines record, one corpus document or one CSV record (a 20M-letter answer fits)
MAX_XLSX_BYTES = 256 * MIB  # a workbook's members, inflated, all together
MAX_ZIP_MEMBERS = 10_000  # parts of a workbook (sheets, styles, relationships)
MAX_GZIP_RATIO = 200  # inflated / compressed bytes of a gzip shard (text compresses 3-10x; a bomb ~1000x) ...
GZIP_RATIO_AFTER = 16 * MIB  # ... checked once this much has been inflated (small files may compress better)
MAX_COLUMNS = 1024  # of a Parquet file (its schema is parsed whole before any row is read)
MAX_PARQUET_FOOTER = 8 * MIB  # its serialized schema and row-group metadata (a million columns: ~150 MB)
LITERAL_LINE_BYTES = MIB  # a line parsed as a Python literal (Python's parser holds a node per token)
LINE_TOO_LONG = f"a line longer than {MAX_LINE_BYTES // MIB} MB (the cap on one line)"


class LimitExceeded(ValueError):
    """A file crossed a cap; the message names the cap (the caller names the file)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class UnreadableJson(ValueError):
    """One JSON line that cannot be read; the message is the reason, for the importer's `file:line` error."""


def json_line(text: str) -> object:
    """The value of one JSON line. Whatever is wrong with it (malformed, nested deeper than the parser's stack, a
    number of more than 4,300 digits that Python will not convert, a lone surrogate) is one UnreadableJson, never
    another exception."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise UnreadableJson("not valid JSON (nested too deeply)") from None
    except json.JSONDecodeError as exc:
        raise UnreadableJson(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:
        raise UnreadableJson(f"not readable JSON ({exc})") from None
    reason = not_text(text, value)
    if reason:
        raise UnreadableJson(reason)
    return value


def not_text(text: str, value: object) -> str | None:
    """Why the value parsed from the JSON `text` cannot be stored as text, or None: an escaped lone surrogate
    (`"\\ud800"`) is valid JSON but no UTF-8 string, and the database refuses it."""
    if "\\ud" not in text.lower():  # a surrogate can only arrive escaped: the line itself was UTF-8
        return None
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"not text: a lone surrogate {exc.object[exc.start]!r} (\\u{ord(exc.object[exc.start]):04x})"
    return None


def lines(handle: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of a binary file (newline kept), never more than `limit` bytes of one held at a time: a longer
    line raises LimitExceeded with its number instead of being read whole."""
    number = 0
    while line := handle.readline(limit + 1):
        number += 1
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            raise LimitExceeded(
                LINE_TOO_LONG if limit == MAX_LINE_BYTES else f"a line longer than {limit:,} bytes", number
            )
        yield line


class RatioGuard(io.RawIOBase):
    """An inflating stream (gzip) that stops once it has given more than `ratio` times the compressed bytes read
    (`compressed()`), past `after` bytes: a decompression bomb, found in the first megabytes instead of after
    filling memory or the disk."""

    def __init__(self, stream: BinaryIO, compressed, ratio: int = MAX_GZIP_RATIO, after: int = GZIP_RATIO_AFTER):
        self.stream, self.compressed, self.ratio, self.after = stream, compressed, ratio, after
        self.inflated = 0

    def readable(self) -> bool:
        return True

    def _count(self, size: int) -> None:
        self.inflated += size
        if self.inflated > self.after and self.inflated > self.ratio * max(self.compressed(), 1):
            raise LimitExceeded(
                f"inflates more than {self.ratio}x ({_size(self.inflated)} from {_size(self.compressed())} read): "
                "a decompression bomb"
            )

    def readinto(self, buffer) -> int:
        n = self.stream.readinto(buffer)
        self._count(n or 0)
        return n

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self._count(len(data))
        return data

    def readline(self, size: int = -1) -> bytes:
        line = self.stream.readline(size)
        self._count(len(line))
        return line


def check_workbook(path: Path, limit: int = MAX_XLSX_BYTES) -> None:
    """Refuse an .xlsx (a zip) whose parts inflate past `limit` bytes in all, before a spreadsheet reader inflates
    them into memory. Each part is inflated here in 1 MB steps and counted (its declared size is not trusted: a
    bomb can declare a small one)."""
    try:
        with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
            members = archive.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                raise DataError(path, f"a workbook of {len(members):,} parts (the cap is {MAX_ZIP_MEMBERS:,})")
            declared = sum(member.file_size for member in members)
            if declared > limit:
                raise DataError(
                    path,
                    f"its parts declare {_size(declared)} inflated, over the {_size(limit)} cap on a workbook: "
                    "a zip bomb? — check the file",
                )
            total = 0
            for member in members:
                total = _inflate_member(raw, member, total, limit, path)
    except (zipfile.BadZipFile, zlib.error, struct.error, EOFError) as exc:
        raise DataError(path, f"cannot read as an .xlsx workbook (truncated or corrupt?): {exc}") from exc


def _size(size: int) -> str:
    return f"{size / MIB:,.0f} MB" if size >= MIB else f"{size / 1024:,.0f} kB"


def _inflated_past(limit: int) -> str:
    return (
        f"its parts inflate past the {_size(limit)} cap on a workbook (whatever sizes they declare): "
        "a zip bomb? — check the file"
    )


def _inflate_member(raw: BinaryIO, member: zipfile.ZipInfo, total: int, limit: int, path: Path) -> int:
    """`total` plus the bytes `member` inflates to, stopping past `limit`."""
    raw.seek(member.header_offset)
    header = raw.read(30)
    if header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header for {member.filename}")
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    raw.seek(member.header_offset + 30 + name_length + extra_length)
    left = member.compress_size
    if member.compress_type == zipfile.ZIP_STORED:
        total += left
        if total > limit:
            raise DataError(path, _inflated_past(limit))
        return total
    if member.compress_type != zipfile.ZIP_DEFLATED:
        raise DataError(path, f"part {member.filename} uses compression {member.compress_type}, not deflate")
    inflater = zlib.decompressobj(-15)
    while left > 0 and not inflater.eof:
        chunk = raw.read(min(left, MIB))
        if not chunk:
            raise zipfile.BadZipFile(f"{member.filename} is truncated")
        left -= len(chunk)
        while chunk and not inflater.eof:
            total += len(inflater.decompress(chunk, MIB))
            if total > limit:
                raise DataError(path, _inflated_past(limit))
            chunk = inflater.unconsumed_tail
    return total


def check_parquet(path: Path) -> None:
    """Refuse a Parquet file whose footer (schema and metadata, parsed whole by any reader) is over
    MAX_PARQUET_FOOTER or declares more than MAX_COLUMNS columns, before a reader parses it."""
    import pyarrow.parquet as pq

    with open(path, "rb") as handle:
        handle.seek(0, io.SEEK_END)
        size = handle.tell()
        if size < 12:
            return  # not Parquet at all: the reader says so
        handle.seek(size - 8)
        tail = handle.read(8)
    footer, magic = struct.unpack("<I4s", tail)
    if magic != b"PAR1":
        return
    if footer > MAX_PARQUET_FOOTER:
        raise LimitExceeded(
            f"a Parquet footer of {_size(footer)} (the cap is {_size(MAX_PARQUET_FOOTER)}: "
            f"about {MAX_COLUMNS:,} columns is the most a table here may have)"
        )
    columns = pq.read_metadata(path).num_columns
    if columns > MAX_COLUMNS:
        raise LimitExceeded(f"{columns:,} columns (the cap is {MAX_COLUMNS:,})")


def check_csv(path: Path, separator: str = ",") -> None:
    """Read a CSV/TSV once as the csv module does (strict), in bounded memory, and refuse with the line at fault:
    a NUL byte, text that is not UTF-8, a quote opened and never closed, a line or field over MAX_LINE_BYTES.
    Polars reads such files without complaint (NUL) or names no line (a quote that swallows the rest)."""
    previous = csv.field_size_limit(MAX_LINE_BYTES)
    try:
        with open(path, "rb") as handle:
            reader = csv.reader(_decoded(handle, path), delimiter=separator, strict=True)
            started = 1
            try:
                for _ in reader:
                    started = reader.line_num + 1
            except csv.Error as exc:
                why = str(exc)
                if "unexpected end of data" in why or "EOF" in why:
                    why = "a quote opened here is never closed"
                raise DataError(path, f"not a well-formed CSV: {why}", line=started) from exc
    finally:
        csv.field_size_limit(previous)


def _decoded(handle: BinaryIO, path: Path) -> Iterator[str]:
    try:
        for number, line in enumerate(lines(handle), start=1):
            nul = line.find(b"\0")
            if nul >= 0:
                raise DataError(path, f"a NUL byte at column {nul + 1}: not a text table", line=number)
            try:
                yield line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(path, f"not UTF-8 text ({exc.reason} at column {exc.start + 1})", line=number) from exc
    except LimitExceeded as exc:
        raise DataError(path, str(exc), line=exc.line) from exc
