"""The dish's name taken out of its description before translation (BORSch §5: the name "is redacted in the rare
case where it is part of a model's output"), so the text-to-image model draws what the description says, not
what it knows of the name. The stored description keeps its words; only the translation request is redacted."""

from __future__ import annotations

import re

REDACTED = "[DISH]"
_VOWELS = "аеёиоуыэюяіїєaeiouy"


def _pattern(name: str) -> str:
    """A name's words with their case endings (Russian and Ukrainian inflect: "борщ", "борща", "борщем")."""
    words = re.findall(r"[\w'’]+", name.lower())
    if not words:
        return ""
    stems = [w[:-1] if len(w) > 4 and w[-1] in _VOWELS else w for w in words]
    return r"\b" + r"[\s-]+".join(re.escape(stem) + r"\w{0,3}" for stem in stems) + r"\b"


def redact(text: str, names: list[str]) -> str:
    """`text` with every name in `names` (any case, any case ending) replaced by REDACTED, longest names first."""
    for name in sorted({n for n in names if n and n.strip()}, key=len, reverse=True):
        pattern = _pattern(name)
        if pattern:
            text = re.sub(pattern, REDACTED, text, flags=re.IGNORECASE)
    return text
