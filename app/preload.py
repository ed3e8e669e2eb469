"""Fetch a page's frontend parts while its first run computes.

A browser loads Streamlit's script for a map (deck.gl: 3 MB, then WebGL), a chart (Vega) or a
table (the data grid) only when the first such element arrives, which on a cold first draw is
after the page's queries: the browser then waits while the server is idle. A page declares the
kinds it draws; `start` sends a tiny empty element of each first thing in the run, at the top of
the sidebar, and `done` removes them when the run ends, so the scripts load while the queries run.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

Kind = Literal["map", "chart", "table"]
KINDS: tuple[Kind, ...] = ("map", "chart", "table")
EMPTY_CHART = {"mark": "point", "data": {"values": []}, "width": 1, "height": 1}


def start(kinds: Collection[Kind]) -> list[DeltaGenerator]:
    """Draw a 1-pixel empty element of each of `kinds`; returns their slots for `done`."""
    slots = []
    for kind in KINDS:
        if kind not in kinds:
            continue
        slot = st.sidebar.empty()
        if kind == "map":
            import pydeck as pdk

            slot.pydeck_chart(pdk.Deck(layers=[], map_provider=None), height=1)
        elif kind == "chart":
            slot.vega_lite_chart(spec=EMPTY_CHART)
        else:
            slot.dataframe({"": []}, height=1, hide_index=True)
        slots.append(slot)
    return slots


def done(slots: Sequence[DeltaGenerator]) -> None:
    """Remove what `start` drew."""
    for slot in slots:
        slot.empty()
