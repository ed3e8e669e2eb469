"""The shard readers (pipeline/corpus/readers.py): a mapped file is cut into the same blocks as a stream, and a line
over the cap is refused with the same line number, whatever the block and cap sizes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.core import limits
from pipeline.corpus import readers
from pipeline.corpus.readers import iter_documents

LINES = st.lists(st.integers(min_value=0, max_value=40), min_size=0, max_size=30)


def _blocks(reader) -> tuple[list[bytes], int | None]:
    """The blocks a reader hands out, and the line number of the error that stopped it (None if none did)."""
    found: list[bytes] = []
    try:
        for block in reader:
            found.append(block)
    except limits.LimitExceeded as exc:
        return found, exc.line
    return found, None


@settings(max_examples=150, deadline=None)
@given(lengths=LINES, block=st.integers(min_value=1, max_value=50), cap=st.integers(min_value=1, max_value=45),
       last_newline=st.booleans())  # fmt: skip
def test_a_mapped_file_is_cut_like_a_stream(lengths, block, cap, last_newline) -> None:
    data = b"\n".join(bytes([97 + i % 26]) * n for i, n in enumerate(lengths)) + (b"\n" if last_newline else b"")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(readers, "BLOCK_BYTES", block)
        patch.setattr(limits, "MAX_LINE_BYTES", cap)
        streamed = _blocks(readers._line_blocks(io.BufferedReader(io.BytesIO(data))))
        mapped = _blocks(readers._MappedBlocks(data))
    assert mapped == streamed


def test_a_mapped_shard_names_the_line_over_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers, "BLOCK_BYTES", 64)
    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 100)
    shard = tmp_path / "long.jsonl"
    shard.write_bytes(b'{"text": "short"}\n' * 9 + b'{"text": "' + b"a" * 200 + b'"}\n{"text": "after"}\n')
    with pytest.raises(readers.CorruptShard, match=r"^line 10: "):
        list(iter_documents(shard))
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert list(iter_documents(empty)) == []


def test_a_file_system_that_cannot_map_the_shard_has_it_read_as_a_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.corpus.scan import checksum_file

    shard = tmp_path / "shard.jsonl"
    shard.write_bytes(b"".join(b'{"text": "doc %d"}\n' % i for i in range(50)))
    expected = [(column.to_pylist(), done) for column, done in iter_documents(shard)]
    digest = checksum_file(str(shard))

    def refuse(*args, **kwargs):
        raise OSError(19, "No such device")

    monkeypatch.setattr(readers.mmap, "mmap", refuse)
    assert [(column.to_pylist(), done) for column, done in iter_documents(shard)] == expected
    assert checksum_file(str(shard)) == digest
