"""Shared set-up of the dashboard tests: AppTest runs share one process, and st.cache_data /
st.cache_resource live as long as it does, so every test starts and ends with empty caches."""

from __future__ import annotations

import pytest
import streamlit as st


@pytest.fixture(autouse=True)
def fresh_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()
