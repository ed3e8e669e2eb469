"""Items are created by their dataset module in one statement per task (datasets/base.add_items)."""

from __future__ import annotations

from pathlib import Path

from pipeline.datasets.base import add_items, ensure_task
from pipeline.tasks import get_task
from warehouse.db import Warehouse


def test_items_are_added_once_each_in_the_given_order(tmp_path: Path) -> None:
    task = get_task("borsch.origin_qa")

    def item(n: int, subset: str) -> tuple[str, str, str, str]:
        return f"{task.task_id}:ru:{n}", f"borsch:ru:{n}", f"ru:{n}", subset

    with Warehouse(tmp_path / "w.duckdb").writer() as con:
        ensure_task(con, task)
        add_items(con, task, [item(n, "full") for n in (3, 1, 2)])
        add_items(con, task, [item(n, "parallel") for n in (2, 4)])  # 2 is kept as it was, 4 is new
        add_items(con, task, [])
        rows = con.execute("SELECT item_id, task_id, dish_key, source_ref, subset FROM core.items").fetchall()
    assert rows == [
        (f"{task.task_id}:ru:3", task.task_id, "borsch:ru:3", "ru:3", "full"),
        (f"{task.task_id}:ru:1", task.task_id, "borsch:ru:1", "ru:1", "full"),
        (f"{task.task_id}:ru:2", task.task_id, "borsch:ru:2", "ru:2", "full"),
        (f"{task.task_id}:ru:4", task.task_id, "borsch:ru:4", "ru:4", "parallel"),
    ]
