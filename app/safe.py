"""The one way a value from a link, a file or the warehouse enters Streamlit's markdown.

`st.markdown`, `st.caption`, `st.info`, `st.warning`, `st.error`, `st.header`, … all render
their text as markdown (GitHub-flavoured, with Streamlit's `:red[…]` directives and `$…$` math).
A value carried by a link (`?models=![x](http://host/a)`) or stored by someone else (an answer,
a dish name, a server's error message) shown that way would become an image fetched from a
foreign host, a clickable foreign link, or a heading. So every such value goes through
`literal()` (text) or `code()` (an inline code span) before it is put into a message; the
constant parts of the message stay ordinary markdown. Tables (`st.dataframe`), `st.text` and
`st.code` show values literally and need neither.
"""

from __future__ import annotations

import re
from typing import Any

# Every ASCII punctuation character may be backslash-escaped in CommonMark, and an escaped one is
# always shown as itself: no link, image, emphasis, heading, list, table, HTML, autolink
# (`http\://`), directive (`\:red\[`) or math (`\$`) can start from the value.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*")
# Escapes do not stop GitHub's autolinks: Streamlit's renderer turns `http://…`, `www.…` and
# `a@b.c` in the *displayed* text into links after parsing. An invisible WORD JOINER (U+2060) after
# the scheme, `www` or `@` breaks those patterns without changing what a reader sees.
WORD_JOINER = "\u2060"
_AUTOLINK_STARTS = re.compile(r"(?i)(https?|www|mailto|xmpp)(?=[:.])|(@)")


def literal(value: Any, limit: int | None = None) -> str:
    """`value` as markdown that displays exactly its text (line breaks become spaces; clipped to
    `limit` characters with an ellipsis; an invisible word joiner after `http`, `www` and `@`)."""
    text = "" if value is None else str(value)
    text = _LINE_BREAKS.sub(" ", text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    text = _AUTOLINK_STARTS.sub(lambda match: match.group(0) + WORD_JOINER, text)
    return _PUNCTUATION.sub(r"\\\1", text)


def code(value: Any, limit: int | None = None) -> str:
    """`value` as an inline code span (a path, a key, a command): no markdown applies inside one;
    the fence is longer than any run of backticks in the value, so the value cannot close it."""
    text = "" if value is None else str(value)
    text = _LINE_BREAKS.sub(" ", text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"
