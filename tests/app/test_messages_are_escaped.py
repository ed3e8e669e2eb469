"""Every value interpolated into a markdown message of the dashboard goes through app/safe.py.

Streamlit renders `st.markdown`, `st.caption`, `st.info`, `st.warning`, `st.error`, `st.success`
and the headers as markdown, so a link parameter or a stored text put there raw can become an image,
a link or a heading (SECURITY.md). This reads the source of app/ and lists every `{…}` inside an
f-string given to one of them; each must be `literal(…)` / `code(…)`, a number formatted with a
spec (`{n:,}`), or one of the reviewed expressions below, built only from constants, numbers or
already-escaped parts. A new interpolation makes this test fail until it is escaped or reviewed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO

MARKDOWN_CALLS = {"markdown", "caption", "info", "warning", "error", "success", "header", "subheader", "title", "toast"}
ESCAPERS = {"literal", "code"}
# app/fmt.py's number writers: their text is digits, separators, "%", "<", ">" and "–" only
NUMBER_WRITERS = {"fmt.count", "fmt.pct", "fmt.score", "fmt.of", "scale.label"}
REVIEWED = {
    # (file, expression): why it is safe
    ("app/views/finetune.py", "tuned or 'none saved yet'"): "model paths each escaped with code(), or a constant",
    ("app/views/probe.py", "position"): "an int from the probe queue",
    ("app/views/probe.py", "ahead"): "a constant sentence with an int",
    ("app/views/probe.py", "result.queue_position"): "an int from the probe queue",
    ("app/views/codemix.py", "SCAN"): "a constant command line",
    ("app/views/cooccurrence.py", "SCAN"): "a constant command line",
    ("app/views/review.py", "SCAN"): "a constant command line",
    ("app/views/confusion.py", "shown_note"): "numbers only",
    ("app/views/cooccurrence.py", "note"): "one of two constant sentences",
    ("app/views/dish.py", "IMAGE_NOTE"): "a constant",
    ("app/views/dish.py", "link"): "a markdown link only to a URL matching PHOTO_URL, else code()",
    ("app/views/dish.py", "more"): "a count",
    ("app/views/language_pull.py", "n_dishes"): "an integer",
    ("app/views/language_pull.py", "'es' if n_dishes != 1 else ''"): "constants",
    ("app/views/map.py", "shown"): "numbers only",
    ("app/views/codemix.py", "scope"): "one of two constant phrases",
    ("app/views/overview.py", "ui.NO_COUNTRY"): "a constant",
    ("app/views/overview.py", "ui.SCORING_METHODS[method]"): "a constant label of a known method",
    ("app/views/probe.py", "link"): "a local path with urlencode()d parameters",
    ("app/views/probe.py", "best"): "built with literal()",
    ("app/views/probe.py", "headline"): "one of three constant phrases",
    ("app/views/probe.py", "probe_queries.STORED_ANSWER_LIMIT"): "a constant",
    ("app/views/probe.py", "same"): "an integer",
    ("app/views/probe.py", "took"): "a formatted number",
    ("app/views/review.py", "'s' if len(changes) != 1 else ''"): "constants",
    ("app/widgets.py", "shown"): "built with code()",
    ("app/views/culturemix.py", "described"): "built with literal() and formatted numbers",
    ("app/empty_study.py", "', '.join((code(c) for c in chosen.columns))"): "each column name built with code()",
    ("app/findings.py", "sentence"): "sentences built with literal(), fmt numbers and app/links.py URLs",
    ("app/views/dish_names.py", "RULE_NOTES[rule]"): "a constant note of a known rule",
    ("app/views/imagined.py", "models_line(rows, tiny)"): "built with code()",
    ("app/views/imagined.py", "spearman_text(row)"): "formatted numbers only",
    ("app/views/compare.py", "INTERVAL"): "a constant",
    ("app/views/compare.py", "verdict"): "built with literal()",
    ("app/views/dish.py", "urls[c]"): "a relative link to this app built by app/links.py (urlencode()d values)",
    ("app/views/dishes.py", "ANSWERS_HELP"): "a constant",
    ("app/views/overview.py", "NATION_NOTE"): "a constant",
}


def interpolations(path: Path) -> list[tuple[int, str]]:
    """(line, expression) of every unescaped `{…}` in an f-string passed to a markdown call."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in MARKDOWN_CALLS or not node.args:
            continue
        for part in ast.walk(node.args[0]):
            if not isinstance(part, ast.FormattedValue):
                continue
            value = part.value
            if isinstance(value, ast.Call) and getattr(value.func, "id", None) in ESCAPERS:
                continue
            if part.format_spec is not None:  # a number: {n:,} {share:.0%}
                continue
            if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "len":
                continue
            if isinstance(value, ast.Call) and ast.unparse(value.func) in NUMBER_WRITERS:
                continue
            found.append((part.lineno, ast.unparse(value)))
    return found


def test_every_value_in_a_markdown_message_is_escaped_or_reviewed():
    unreviewed = []
    for path in sorted((REPO / "app").rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        for line, expression in interpolations(path):
            if (relative, expression) not in REVIEWED:
                unreviewed.append(f"{relative}:{line}: {{{expression}}}")
    assert not unreviewed, "escape with app.safe.literal()/code() or review:\n" + "\n".join(unreviewed)


def test_the_review_list_has_no_stale_entries():
    seen = set()
    for path in sorted((REPO / "app").rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        seen |= {(relative, expression) for _, expression in interpolations(path)}
    assert set(REVIEWED) <= seen, sorted(set(REVIEWED) - seen)


def test_the_check_sees_an_unescaped_value(tmp_path: Path):
    page = tmp_path / "page.py"
    page.write_text('import streamlit as st\nname = "x"\nst.warning(f"Unknown {name}; {literal(name)}, {3:,}")\n')
    assert interpolations(page) == [(3, "name")]
