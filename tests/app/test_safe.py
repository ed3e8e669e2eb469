"""app/safe.py: any value put into a markdown message through literal() or code() is shown as its
own text, never as a link, an image, emphasis or HTML. Checked against a CommonMark renderer here
(markdown-it-py, the one rich ships); tests/e2e/test_security.py checks Streamlit's own renderer in
a browser (GitHub autolinks, directives, math)."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from app.safe import WORD_JOINER, code, literal
from tests.helpers import shown

RENDERER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
HOSTILE = [
    "![x](http://127.0.0.1:9/a)",
    "[click](http://evil.example)",
    "<img src=http://127.0.0.1:9/b onerror=alert(1)>",
    "<script>alert(1)</script>",
    "**bold** _it_ ~~gone~~ `code`",
    "# heading",
    "- item",
    "1. item",
    "> quote",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "[ref]: http://evil.example",
    "&lt;b&gt; &amp; &#x41;",
    "back\\slash \\*",
    "<http://evil.example>",
]


def rendered_text(markdown: str) -> str:
    """The text a reader sees, or an AssertionError if the markdown made any element beyond one paragraph."""
    out = RENDERER.render(markdown).strip()
    if not out:
        return ""
    assert out.startswith("<p>") and out.endswith("</p>"), out
    body = out[3:-4]
    assert not re.search(r"<(?!br\s*/?>)", body), f"markup in {out!r}"  # soft breaks only
    return html.unescape(body)


def test_hostile_values_render_as_their_own_text():
    for value in HOSTILE:
        expected = re.sub(r"\s*\n\s*", " ", value)
        assert rendered_text(literal(value)).replace(WORD_JOINER, "") == expected
        message = rendered_text(f"Unknown model {literal(value)} in the link").replace(WORD_JOINER, "")
        assert message == f"Unknown model {expected} in the link"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=80))
def test_any_text_renders_as_itself(value: str):
    expected = re.sub(r"\s*[\r\n]+\s*", " ", value)
    # A paragraph loses its leading and trailing whitespace; every other character comes back as itself.
    assert rendered_text(literal(value)).replace(WORD_JOINER, "").strip() == expected.replace(WORD_JOINER, "").strip()


def test_autolink_schemes_are_broken_by_an_invisible_joiner():
    assert literal("see http://evil.example and www.evil.example, mail a@evil.example") == (
        f"see http{WORD_JOINER}\\:\\/\\/evil\\.example and www{WORD_JOINER}\\.evil\\.example\\, "
        f"mail a\\@{WORD_JOINER}evil\\.example"
    )
    assert shown(literal("HTTPS://x.org")) == "HTTPS://x.org"


def test_literal_clips_and_joins_lines():
    assert shown(literal("a\n\n# b", limit=None)) == "a # b"
    assert shown(literal("x" * 50, limit=40)) == "x" * 40 + "…"
    assert literal(None) == ""


def test_code_spans_cannot_be_closed_by_the_value():
    for value in ["plain", "a`b", "``x``", "`", "[click](http://evil.example)", "/tmp/wh.duckdb", ""]:
        out = RENDERER.render(code(value)).strip()
        assert out.startswith("<p><code>") and out.endswith("</code></p>"), out
        assert html.unescape(out[len("<p><code>") : -len("</code></p>")]).strip() == value.strip()
