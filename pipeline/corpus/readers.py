"""Corpus shards as batches of documents (Arrow string arrays), in bounded memory.

Formats, by file name (each may end in ``.gz``):

* ``.jsonl`` / ``.json``: JSON Lines, one document per line, its text in ``text_field`` (other fields are ignored),
  read in blocks of whole lines by polars (its SIMD JSON reader parses about three times faster than pyarrow's);
* ``.parquet``: the ``text_field`` column, read one record batch at a time;
* ``.txt``: plain text, **one document per line** (invalid UTF-8 is replaced, not fatal).

JSON Lines and text shards that are not compressed are mapped into memory and cut into blocks there (the scan's
checksum reads the same mapping): each block is copied once, where reading through a stream cost a read into a
buffer, a second one to join the block with the rest of its last line and a pass to count its lines. Compressed
ones are read as a stream, through the gzip-bomb guard.

Anything a reader cannot read (bad gzip, invalid JSON, unreadable Parquet, a missing text field) raises
:class:`CorruptShard` with the reason.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import mmap
import os
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.core import limits

BLOCK_BYTES = 16 << 20
PARQUET_BATCH_ROWS = 4096
FORMATS = ("jsonl", "parquet", "txt")


class CorruptShard(Exception):
    """A shard that cannot be read; the message is the reason recorded in core.corpus_shards."""


def shard_format(path: str | Path) -> tuple[str, bool]:
    """(format, gzipped) from the file name."""
    name = str(path).lower()
    gz = name.endswith(".gz")
    if gz:
        name = name[:-3]
    for suffix, fmt in ((".jsonl", "jsonl"), (".json", "jsonl"), (".ndjson", "jsonl"), (".parquet", "parquet")):
        if name.endswith(suffix):
            return fmt, gz
    if name.endswith(".txt"):
        return "txt", gz
    raise ValueError(f"{path}: unknown corpus format (expected .jsonl, .json, .parquet or .txt, optionally .gz)")


class _Counting(io.RawIOBase):
    """A file whose bytes read so far are counted (progress in on-disk bytes)."""

    def __init__(self, handle) -> None:
        self.handle = handle
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.handle.readinto(buffer)
        self.count += n or 0
        return n

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.count += len(data)
        return data

    def readline(self, size: int = -1) -> bytes:  # the handle's own (buffered) readline, not one read(1) per byte
        line = self.handle.readline(size)
        self.count += len(line)
        return line


def iter_documents(path: Path, text_field: str = "text") -> Iterator[tuple[pa.Array, int]]:
    """Batches of documents as (string array, on-disk bytes read so far)."""
    fmt, gz = shard_format(path)
    try:
        if fmt == "parquet":
            yield from _parquet(path, text_field, gz)
            return
        with open(path, "rb") as raw:
            with mapped(raw) if not gz else contextlib.nullcontext() as memory:
                if memory is not None:  # blocks cut from the page cache, with no stream copies in between
                    blocks = _MappedBlocks(memory)
                    reader = _jsonl(blocks, text_field, path, gz) if fmt == "jsonl" else _text(blocks)
                    for batch in reader:
                        yield batch, blocks.done
                    return
            counting = _Counting(raw)
            # a gzip bomb stops within its first megabytes (limits.MAX_GZIP_RATIO), a bounded amount of work
            stream = limits.RatioGuard(gzip.GzipFile(fileobj=counting), lambda: counting.count) if gz else counting
            blocks = _line_blocks(stream)
            reader = _jsonl(blocks, text_field, path, gz) if fmt == "jsonl" else _text(blocks)
            for batch in reader:
                yield batch, counting.count
    except CorruptShard:
        raise
    except limits.LimitExceeded as exc:
        raise CorruptShard(f"line {exc.line}: {exc}" if exc.line else str(exc)) from exc
    except (OSError, EOFError, zlib.error, pa.ArrowException, UnicodeDecodeError, ValueError) as exc:
        raise CorruptShard(f"{type(exc).__name__}: {exc}") from exc


@contextlib.contextmanager
def mapped(handle) -> Iterator[mmap.mmap | bytes | None]:
    """The whole file as read-only memory (`b""` for an empty one, which cannot be mapped): hashed and cut into
    blocks in place, with no reads into buffers in between. None where the file system cannot map it: the caller
    reads it as a stream."""
    if os.fstat(handle.fileno()).st_size == 0:
        yield b""
        return
    try:
        memory = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        yield None
        return
    with memory:
        yield memory


def _jsonl(blocks: Iterator[bytes], text_field: str, path: Path, gz: bool) -> Iterator[pa.Array]:
    schema = {text_field: pl.String}
    offset = 0  # of the block, in the decompressed stream
    for block in blocks:
        try:
            frame = pl.read_ndjson(block, schema=schema)
        except pl.exceptions.PolarsError as exc:
            first_line = _lines_before(path, gz, offset) + 1
            raise CorruptShard(_first_bad_line(block, first_line) or f"invalid JSON Lines: {exc}") from exc
        column = frame.get_column(text_field)
        if frame.height and column.null_count() == frame.height:
            line = _lines_before(path, gz, offset) + 1
            raise CorruptShard(f"no documents have a string field {text_field!r} (lines {line}-)")
        offset += len(block)
        yield column.to_arrow()


def _lines_before(path: Path, gz: bool, offset: int) -> int:
    """Line ends in the first `offset` bytes of the (decompressed) file: only read again to name a bad line."""
    count = 0
    with gzip.open(path, "rb") if gz else open(path, "rb") as handle:
        while offset > 0:
            block = handle.read(min(offset, BLOCK_BYTES))
            if not block:
                break
            count += block.count(b"\n")
            offset -= len(block)
    return count


def _first_bad_line(block: bytes, first_line: int) -> str | None:
    """ "line N: what is wrong", for the first line of `block` that is not a JSON object."""
    for number, text in enumerate(block.split(b"\n"), start=first_line):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except RecursionError:
            return f"line {number}: invalid JSON (nested too deeply)"
        except ValueError as exc:
            return f"line {number}: invalid JSON ({exc})"
        if not isinstance(value, dict):
            return f"line {number}: not a JSON object"
    return None


def _line_blocks(stream) -> Iterator[bytes]:
    """The stream in blocks of about BLOCK_BYTES that end at a line end (the last one may not); a line longer than
    limits.MAX_LINE_BYTES raises LimitExceeded (with its number) instead of being read whole."""
    lines_before = 0
    while block := stream.read(BLOCK_BYTES):
        if not block.endswith(b"\n"):
            rest = stream.readline(limits.MAX_LINE_BYTES + 1)
            block += rest
            start = block.rfind(b"\n", 0, len(block) - len(rest)) + 1  # where the line that crosses the block began
            if len(block) - start - block.endswith(b"\n") > limits.MAX_LINE_BYTES:
                number = lines_before + block.count(b"\n", 0, start) + 1
                raise limits.LimitExceeded(limits.LINE_TOO_LONG, number)
        lines_before += block.count(b"\n")
        yield block


class _MappedBlocks:
    """`_line_blocks` of a mapped file: the same blocks (about BLOCK_BYTES, ending at a line end) each copied once out
    of the mapping, and the same LimitExceeded for a line longer than limits.MAX_LINE_BYTES, whose number is counted
    only then. `done`: the bytes handed out so far."""

    def __init__(self, memory: mmap.mmap | bytes) -> None:
        self.memory, self.done = memory, 0

    def __iter__(self) -> Iterator[bytes]:
        memory, size, cap = self.memory, len(self.memory), limits.MAX_LINE_BYTES
        while self.done < size:
            start = self.done
            end = min(start + BLOCK_BYTES, size)
            if memory[end - 1 : end] != b"\n":  # the line crossing the block's end (or the file's last), up to its cap
                found = memory.find(b"\n", end, end + cap + 1)
                rest = min(end + cap + 1, size) if found < 0 else found + 1
                first = memory.rfind(b"\n", start, end) + 1 or start  # where that line began
                if rest - first - (memory[rest - 1 : rest] == b"\n") > cap:
                    raise limits.LimitExceeded(limits.LINE_TOO_LONG, self._lines_before(first) + 1)
                end = rest
            self.done = end
            yield memory[start:end]

    def _lines_before(self, offset: int) -> int:
        """Line ends before `offset` (read again only to name a line that is too long)."""
        return sum(self.memory[at : min(at + BLOCK_BYTES, offset)].count(b"\n") for at in range(0, offset, BLOCK_BYTES))


def _text(blocks: Iterator[bytes]) -> Iterator[pa.Array]:
    for block in blocks:
        yield _lines(block if block.endswith(b"\n") else block + b"\n")


def _lines(data: bytes) -> pa.Array:
    """Newline-terminated lines -> a string array without the newlines (no Python strings made)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        data = data.decode("utf-8", errors="replace").encode("utf-8")
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    offsets = np.concatenate(([0], ends + 1)).astype(np.int64)
    # Each value keeps its trailing "\n": a non-word character, harmless to matching; samples strip it.
    return pa.LargeStringArray.from_buffers(len(ends), pa.py_buffer(offsets), pa.py_buffer(data))


def _parquet(path: Path, text_field: str, gz: bool) -> Iterator[tuple[pa.Array, int]]:
    with tempfile.TemporaryDirectory() as tmp:
        source = path
        if gz:
            source = Path(tmp) / "shard.parquet"
            with open(path, "rb") as raw, open(source, "wb") as dst:
                counting = _Counting(raw)
                shutil.copyfileobj(limits.RatioGuard(gzip.GzipFile(fileobj=counting), lambda: counting.count), dst)
        limits.check_parquet(source)  # a million columns stop here, before the schema is parsed
        try:
            handle = pq.ParquetFile(source)
        except Exception as exc:
            raise CorruptShard(f"unreadable Parquet: {exc}") from exc
        if text_field not in handle.schema_arrow.names:
            raise CorruptShard(f"no column {text_field!r} (columns: {', '.join(handle.schema_arrow.names)})")
        total = path.stat().st_size
        rows = max(handle.metadata.num_rows, 1)
        done = 0
        try:
            for batch in handle.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=[text_field]):
                done += batch.num_rows
                column = batch.column(0)
                if not pa.types.is_string(column.type) and not pa.types.is_large_string(column.type):
                    column = column.cast(pa.string())
                yield column, int(total * done / rows)
        except (OSError, pa.ArrowException) as exc:
            raise CorruptShard(f"unreadable Parquet: {exc}") from exc
