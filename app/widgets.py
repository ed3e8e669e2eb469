"""Widgets the pages share: controls whose value lives in the link, and the answer highlighter.

Every control that is part of a shareable view keeps its value in the query string through one
pair of functions: `seed()` reads the link once, when a session first draws the control (an
unknown value falls back, with one small warning that shows the value literally), and `mirror()`
writes the control's value back after each run (the default value stays out of the link). The
controls below (`url_select`, `url_multiselect`, `url_text`, `url_radio`, `url_slider`) are the
only callers of the two; pages never touch `st.query_params` for a control themselves.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from app.safe import code, literal

ALL = ""  # the "no filter" option of a selector; never written to the URL
MAX_TEXT = 200  # characters kept of a free-text value from a link


# --- the link as the state of the controls ------------------------------------------------------


def seed(key: str, param: str, parse: Callable[[str | None], Any], keep: Callable[[Any], Any] | None = None) -> None:
    """Set `st.session_state[key]` from `?param=` the first time a session draws the control
    (`parse` turns the link's raw text, or None, into the control's value and may warn); on later
    runs the control owns its value, and `keep` only repairs it (e.g. when its options changed)."""
    if key not in st.session_state:
        st.session_state[key] = parse(st.query_params.get(param))
    elif keep is not None:
        st.session_state[key] = keep(st.session_state[key])


def mirror(param: str, value: str | None) -> None:
    """Write a control's value to the link as `?param=value`; None or "" removes the parameter."""
    if value:
        st.query_params[param] = value
    elif param in st.query_params:
        del st.query_params[param]


def unknown_in_link(container: Any, what: str, values: Sequence[str], fallback: str | None = None) -> None:
    """The one warning about link values the page cannot use; the values are shown as code, never as
    markdown (a link is written by anyone)."""
    shown = ", ".join(code(value, limit=40) for value in values[:5]) + (" …" if len(values) > 5 else "")
    if fallback is None:
        container.warning(f"Ignoring unknown {literal(what)} in the link: {shown}")
    else:
        container.warning(f"Unknown {literal(what)} {shown} in the link; showing {literal(fallback)} instead.")


def url_select(
    label: str,
    options: Sequence[str],
    *,
    param: str,
    format_func: Callable[[str], str] = str,
    what: str | None = None,
    default: str | None = None,
    keep_default_in_url: bool = False,
    container: Any = st.sidebar,
    key: str | None = None,
    help: str | None = None,
) -> str:
    """A selectbox kept in the link as `?param=value` (the default, the first option unless given,
    is left out of the link unless keep_default_in_url). An unknown value falls back to the default."""
    options = list(options)
    default = default if default in options else options[0]
    key = key or f"url_{param}"

    def parse(raw: str | None) -> str:
        if raw in (None, "") or raw in options:
            return raw or default
        unknown_in_link(container, what or param, [raw], fallback=format_func(default))
        return default

    seed(key, param, parse, keep=lambda value: value if value in options else default)
    value = container.selectbox(label, options, key=key, format_func=format_func, help=help)
    mirror(param, value if value != default or keep_default_in_url else None)
    return value


def url_multiselect(
    label: str,
    options: Sequence[str],
    *,
    param: str,
    default: Sequence[str] = (),
    normalise: Callable[[str], str] = str.strip,
    what: str | None = None,
    format_func: Callable[[str], str] = str,
    placeholder: str = "All",
    container: Any = st.sidebar,
    key: str | None = None,
    help: str | None = None,
) -> tuple[str, ...]:
    """A multiselect kept in the link as `?param=a,b`; `default` (nothing selected unless given)
    stays out of the link. Unknown values in a link are dropped with one warning."""
    options = list(options)
    key = key or f"url_{param}"

    def parse(raw: str | None) -> list[str]:
        values = [normalise(value) for value in str(raw or "").split(",") if normalise(value)]
        unknown = [value for value in values if value not in options]
        if unknown:
            unknown_in_link(container, what or param, unknown)
        return [value for value in values if value in options] or [value for value in default if value in options]

    seed(key, param, parse, keep=lambda values: [value for value in values if value in options])
    chosen = container.multiselect(label, options, key=key, format_func=format_func, placeholder=placeholder, help=help)
    mirror(param, None if list(chosen) == list(default) else ",".join(chosen))
    return tuple(chosen)


def url_text(label: str, *, param: str, placeholder: str = "", container: Any = st) -> str:
    """A text input kept in the link as `?param=...` (empty text: no parameter)."""
    key = f"url_{param}"
    seed(key, param, lambda raw: str(raw or "")[:MAX_TEXT])
    value = container.text_input(label, key=key, placeholder=placeholder, max_chars=MAX_TEXT).strip()
    mirror(param, value)
    return value


def url_radio(
    label: str,
    options: Mapping[str, str],
    *,
    param: str,
    container: Any = st,
    horizontal: bool = True,
) -> str:
    """A radio over `options` (value -> label) kept in the link; the first option stays out of it."""
    values = list(options)
    default, key = values[0], f"url_{param}"
    seed(key, param, lambda raw: raw if raw in values else default)
    value = container.radio(label, values, key=key, format_func=options.get, horizontal=horizontal)
    mirror(param, None if value == default else value)
    return value


def url_slider(
    label: str,
    *,
    param: str,
    low: int,
    high: int,
    default: int,
    container: Any = st,
    key: str | None = None,
    help: str | None = None,
) -> int:
    """An integer slider kept in the link; a value outside [low, high] is clamped, the default
    stays out of the link, text that is not a whole number is ignored with a warning."""
    key = key or f"url_{param}"

    def parse(raw: str | None) -> int:
        try:
            return int(str(raw)) if raw not in (None, "") else default
        except ValueError:
            unknown_in_link(container, f"{param} (not a whole number)", [str(raw)])
            return default

    seed(key, param, parse)
    st.session_state[key] = min(max(int(st.session_state[key]), low), high)
    value = container.slider(label, min_value=low, max_value=high, key=key, help=help)
    mirror(param, None if value == default else str(value))
    return value


# --- matched countries in an answer ---------------------------------------------------------------


@dataclass(frozen=True)
class Palette:
    """Inline styles of the marks: a gold origin named, another country, a broad region, a negated
    mention ("not from Italy")."""

    gold: str
    country: str
    region: str
    negated: str


_MARK = "border-radius:3px;padding:0 2px"
ANSWER_PALETTE = Palette(
    gold=f"background:#c8f0cf;{_MARK}",
    country=f"background:#ffe08a;{_MARK}",
    region=f"background:#ffe08a;{_MARK}",
    negated=f"background:#e6e6e6;{_MARK};text-decoration:line-through",
)
# The live probe draws gold origins green on its map, named countries orange and both violet; the
# marks in its answer use the same hues.
PROBE_PALETTE = Palette(
    gold=f"background:#dcccf5;{_MARK}",
    country=f"background:#ffd3a8;{_MARK}",
    region=f"background:#e9e4c8;{_MARK}",
    negated=ANSWER_PALETTE.negated,
)


@dataclass(frozen=True)
class Mark:
    """One matched mention: offsets into the raw answer, and what it matched."""

    start: int
    end: int
    country: str | None = None
    region: str | None = None
    negated: bool = False

    @classmethod
    def of(cls, span: Any) -> Mark:
        """From an extractor `Span` (start, end, …) or a published row (span_start, span_end, …)."""
        if isinstance(span, Mapping):
            start, end = span.get("span_start", span.get("start")), span.get("span_end", span.get("end"))
            country, region, negated = span.get("country"), span.get("region"), span.get("negated")
        else:
            start, end = span.start, span.end
            country, region, negated = span.country, span.region, span.negated
        return cls(int(start), int(end), _text_or_none(country), _text_or_none(region), _flag(negated))


def _flag(value: Any) -> bool:
    return False if value is None or (isinstance(value, float) and value != value) else bool(value)


def _text_or_none(value: Any) -> str | None:
    return None if value is None or (not isinstance(value, str) and pd.isna(value)) or value == "" else str(value)


def highlight(
    text: str | None, spans: Iterable[Any], gold: Collection[str] = (), palette: Palette = ANSWER_PALETTE
) -> str:
    """The answer as safe HTML with each matched mention in a `<mark>` (hover: its code).

    The text is HTML-escaped piece by piece, so offsets refer to the raw answer and markup in an
    answer (`<script>`) is shown, never run. Spans overlapping an earlier one or outside the text
    are skipped."""
    text = text or ""
    parts, position = [], 0
    for mark in sorted((Mark.of(span) for span in spans), key=lambda m: (m.start, -m.end)):
        if mark.start < position or mark.end > len(text) or mark.start >= mark.end:
            continue
        if mark.negated:
            style, title = palette.negated, f"negated: {mark.country or mark.region or ''}"
        elif mark.country:
            style, title = (palette.gold if mark.country in gold else palette.country), mark.country
        else:
            style, title = palette.region, f"region: {mark.region or ''}"
        parts.append(html.escape(text[position : mark.start]))
        parts.append(
            f'<mark style="{style}" title="{html.escape(title)}">{html.escape(text[mark.start : mark.end])}</mark>'
        )
        position = mark.end
    parts.append(html.escape(text[position:]))
    return "".join(parts)


def image_grid(rows: pd.DataFrame, describe: Callable[[Any], None], *, per_row: int = 4, limit: int | None = None):
    """`rows`' images (column `local_path`) in a grid, `per_row` a line, the first `limit`; under each, what
    `describe(row)` draws. A file that is not on this machine says so in its place."""
    shown = rows if limit is None else rows.iloc[:limit]
    for start in range(0, len(shown), per_row):
        for column, row in zip(st.columns(per_row), shown.iloc[start : start + per_row].itertuples(), strict=False):
            with column:
                path = Path(row.local_path) if isinstance(row.local_path, str) else None
                if path is not None and path.is_file():
                    st.image(str(path), width="stretch")
                else:
                    st.caption("(image file not available)")
                describe(row)
