"""Secure by default, checked as a user meets it: the dashboard listens on loopback only when started
as README.md and docs/deployment.md say, and hostile links render as plain text in a real browser.

A link is written by anyone, so `?models=![x](http://127.0.0.1:9/a),[click](http://evil.example)`
must show those characters, make no <img> or <a> for them, and make the browser request nothing
from the hosts they name. Stored text (answers, dish names, server messages) goes through the same
helper (app/safe.py); `literal_app.py` renders hostile text through it in every kind of markdown
element Streamlit has, against Streamlit's real renderer (GitHub autolinks, `:red[…]` directives,
`$…$` math).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from tests.e2e.conftest import RUN_TIMEOUT_MS, listening, serve
from tests.helpers import REPO

IMAGE = "![x](http://127.0.0.1:9/a)"
LINK = "[click](http://evil.example)"
BAD_HOSTS = {("127.0.0.1", 9), ("evil.example", None)}
WORD_JOINER = "\u2060"  # app.safe.literal's invisible autolink breaker


def bad(url: str) -> bool:
    """A URL that points at one of the hosts the hostile values name."""
    parts = urlsplit(url)
    return (parts.hostname, parts.port) in BAD_HOSTS or (parts.hostname, None) in BAD_HOSTS


def open_and_inspect(page, url: str) -> tuple[str, list[str], list[str], list[str]]:
    """Open `url` in the tab `page`, wait for the script run; the page's visible text, its <img> sources, its <a>
    targets and every URL the browser requested."""
    requested: list[str] = []
    with listening(page, request=lambda request: requested.append(request.url)):
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("[data-test-script-state='notRunning']", state="attached", timeout=RUN_TIMEOUT_MS)
        page.wait_for_selector("[data-testid='stMain']", timeout=RUN_TIMEOUT_MS)
        page.wait_for_timeout(1_000)  # late images or links would load now
        text = page.locator("body").inner_text().replace(WORD_JOINER, "")
        images = page.locator("img").evaluate_all("els => els.map(e => e.src)")
        anchors = page.locator("a").evaluate_all("els => els.map(e => e.href)")
        assert page.locator("[data-testid='stException']").count() == 0, f"{url}: an exception is shown"
    return text, images, anchors, requested


HOSTILE_LINKS = [
    # (page and link parameters, text the page must show literally)
    (f"/map?dataset=worldcuisines&models={quote(IMAGE)},{quote(LINK)}", [IMAGE, LINK, "unknown models"]),
    (f"/language-pull?dataset=worldcuisines&langs={quote(LINK)},{quote(IMAGE)}", [IMAGE, LINK, "unknown langs"]),
    (f"/confusion?dataset=worldcuisines&countries={quote(IMAGE)},{quote(LINK)}", [IMAGE.upper(), LINK.upper()]),
    (f"/dish?dataset=worldcuisines&dish={quote(LINK)}", [LINK, "Unknown dish"]),
    (f"/?dataset={quote(IMAGE)}", [IMAGE, "Unknown dataset"]),
]


@pytest.mark.e2e
@pytest.mark.parametrize(("path", "expected"), HOSTILE_LINKS, ids=["models", "langs", "countries", "dish", "dataset"])
def test_markdown_in_link_parameters_is_shown_as_text(app_url: str, tab, path: str, expected: list[str]):
    text, images, anchors, requested = open_and_inspect(tab, app_url + path)
    for literal_text in expected:
        assert literal_text in text, f"{path}: {literal_text!r} is not shown literally"
    assert not [src for src in images if bad(src)], f"{path}: images from the link: {images}"
    assert not [href for href in anchors if bad(href)], f"{path}: links from the link: {anchors}"
    assert not [url for url in requested if bad(url)], f"{path}: the browser fetched from the link's hosts"


STORED_TEXT = (
    f"{IMAGE} {LINK} http://evil.example www.evil.example a@evil.example <img src=http://127.0.0.1:9/b> "
    "<script>document.title='owned'</script> :red[red] $x^2$ **bold** # h `c` ~~s~~ [ref]: http://evil.example"
)


@pytest.fixture(scope="module")
def literal_url() -> str:
    with serve("tests/e2e/literal_app.py", {}) as url:
        yield url


@pytest.mark.e2e
def test_escaped_text_is_literal_in_every_markdown_element(literal_url: str, tab):
    text, images, anchors, requested = open_and_inspect(tab, f"{literal_url}/?text={quote(STORED_TEXT)}")
    for label in ("markdown", "caption", "info", "warning", "error", "code"):
        assert f"{label}: {STORED_TEXT}" in re.sub(r"[ \n]+", " ", text), f"{label}: not shown literally"
    assert not [src for src in images if bad(src)], images
    assert not [href for href in anchors if bad(href)], anchors
    assert not [url for url in requested if bad(url)]


@pytest.mark.e2e
def test_a_chart_tooltip_shows_stored_text_as_text(literal_url: str, tab):
    """Chart labels and tooltips (Vega-Lite, app/vega.py) show a hostile name as text: no element is
    made from it and nothing is requested from the hosts it names."""
    page, requested = tab, []
    with listening(page, request=lambda request: requested.append(request.url)):
        page.goto(f"{literal_url}/?text={quote(STORED_TEXT)}", wait_until="domcontentloaded")
        bar = page.locator("[data-testid='stVegaLiteChart'] .mark-rect.role-mark path").first
        bar.wait_for(state="visible")
        bar.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = bar.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        tooltip = page.locator("#vg-tooltip-element")
        tooltip.wait_for(state="visible")
        assert STORED_TEXT in tooltip.inner_text()
        assert tooltip.locator("img, a, script, b").count() == 0
        assert page.evaluate("() => document.title") != "owned"
        assert not [url for url in requested if bad(url)]


# --- loopback by default -------------------------------------------------------------------------


def listening_addresses(port: int) -> set[str]:
    """Local addresses of the sockets listening on `port` (Linux /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        lines = Path(table).read_text().splitlines()[1:] if Path(table).exists() else []
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


LOOPBACK = {"0100007F", "00000000000000000000000001000000"}  # 127.0.0.1, ::1 as /proc writes them


def test_the_dashboard_listens_on_loopback_only_when_started_as_readme_says(tmp_path: Path):
    # As README.md and `make app` start it: no address on the command line, the repository's config.
    with serve("app/main.py", {"DISH_ATLAS_WAREHOUSE": str(tmp_path / "none.duckdb")}, address=None) as url:
        addresses = listening_addresses(urlsplit(url).port)
    assert addresses, "no listening socket found"
    assert addresses <= LOOPBACK, f"listening on non-loopback addresses: {addresses}"


def test_make_app_and_docker_instructions_keep_to_loopback():
    makefile = (REPO / "Makefile").read_text()
    assert "ADDRESS ?= 127.0.0.1" in makefile and "--server.address $(ADDRESS)" in makefile
    readme = (REPO / "README.md").read_text() + (REPO / "docs" / "deployment.md").read_text()
    runs = re.findall(r"docker run [^`\n]*", readme.replace("\\\n", " "))  # a command continued over lines is one
    assert runs and all("-p 127.0.0.1:8501:8501" in run for run in runs), runs
    assert "no login" in readme and "--server.address 0.0.0.0" in readme
    # Inside the container the app must listen on all interfaces, or the published port reaches nothing.
    assert "--server.address=0.0.0.0" in (REPO / "Dockerfile").read_text()
