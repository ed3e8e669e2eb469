"""The DuckDB warehouse: schema migrations, the single-writer working database and the
published read-only snapshot the dashboard opens."""
