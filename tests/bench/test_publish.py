"""bench/publish.py --statements: every mart's statements timed on a copy, the warehouse itself untouched."""

from __future__ import annotations

import hashlib
from pathlib import Path

from bench.publish import statement_seconds
from warehouse.marts import MARTS


def test_every_mart_is_timed_on_a_copy_and_the_warehouse_is_left_as_it_was(sample_warehouse: Path) -> None:
    before = hashlib.sha256(sample_warehouse.read_bytes()).hexdigest()
    answers, seconds = statement_seconds(sample_warehouse)
    assert answers == 0  # the embedded sample holds dishes, no answers
    assert {name.split(":")[0].split(" #")[0] for name in seconds} == {mart.file for mart in MARTS.values()}
    assert all(cpu >= 0 for cpu in seconds.values())
    assert hashlib.sha256(sample_warehouse.read_bytes()).hexdigest() == before
    assert [p.name for p in sample_warehouse.parent.iterdir() if "publish-statements" in p.name] == []
