"""The one scrub for text that came back from a model server.

A server (or a proxy in front of it) may echo the request, Authorization header included, in an
error body, a mid-stream error, a retry message or even an answer. Every such text passes through
`scrub` before it is raised, logged, shown on the probe page or stored, so the API key never
leaves the process."""

from __future__ import annotations

import os
import re

MASK = "***"
# `Bearer <token>` in any echoed header or message, whatever the key's value.
_BEARER = re.compile(r"(?i)\b(bearer)(\s+|%20|\+)[A-Za-z0-9._~+/=-]+")
# Environment variables that hold credentials by their name.
_SECRET_NAMES = re.compile(r"(?i)(api_?key|token|secret|password)$")
_MIN_SECRET_LEN = 8  # shorter values (test placeholders like "x") would mask ordinary words


def known_secrets(*extra: str | None) -> list[str]:
    """The values to hide: those passed, plus every credential-named environment variable."""
    values = [v for v in extra if v]
    values += [value for name, value in os.environ.items() if _SECRET_NAMES.search(name) and value]
    return sorted({v for v in values if len(v) >= _MIN_SECRET_LEN}, key=len, reverse=True)


def scrub(text: str | None, *secrets: str | None) -> str | None:
    """`text` with every known secret and every `Bearer …` token replaced by ***."""
    if not text:
        return text
    for secret in known_secrets(*secrets):
        text = text.replace(secret, MASK)
    return _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
