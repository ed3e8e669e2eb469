"""How a paper's table or figure is declared: its id as the paper numbers it, what it shows, where (§), and the
query over the marts that computes it in long form. The papers' modules declare theirs here, in one registry."""

from __future__ import annotations

from dataclasses import dataclass

from warehouse.registry import Registry


@dataclass(frozen=True)
class PaperTable:
    paper: str
    table: str
    title: str
    section: str
    sql: str  # returns row, column, value and any of published, n, low, high, method, note

    @property
    def key(self) -> str:
        return f"{self.paper}/{self.table}"


TABLES: Registry[PaperTable] = Registry("paper table", ordered=True)


def paper_table(paper: str, table: str, title: str, section: str, sql: str) -> PaperTable:
    """Declare a paper's table (called at import by the paper's module)."""
    declared = PaperTable(paper, table, title, section, sql)
    TABLES.add(declared.key, declared)
    return declared
