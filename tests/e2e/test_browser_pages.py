"""The second half of the browser sweep of tests/e2e/test_browser.py (what each page must draw and must not
request is said there): a file of its own, so a second test worker draws these pages beside the first half."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import SECOND_HALF, check_pages

pytestmark = pytest.mark.e2e


def test_the_second_half_of_the_pages_draws_without_errors_or_remote_requests(app_url: str, tab) -> None:
    checked = check_pages(app_url, tab, SECOND_HALF)
    assert {"dish", "dishes", "dish_names", "dish_linked", "culturemix"} <= set(checked)
