"""One home for the pymorphy3 analyzers (Russian and Ukrainian).

pymorphy3 shares one tag class between languages and every new analyzer redefines its known grammemes:
a Ukrainian analyzer created after the Russian one drops Russian-only grammemes ("loc2": "в Крыму") and
inflecting a Russian word then fails with "Unknown grammeme". Every module asks here,
so both load once, Ukrainian first; Russian's set covers Ukrainian's cases.
"""

from __future__ import annotations

import functools

MORPH_LANGS = frozenset({"ru", "uk"})


@functools.cache
def _analyzers() -> dict:
    import pymorphy3  # dictionaries load only when Russian/Ukrainian text is analysed

    ukrainian = pymorphy3.MorphAnalyzer(lang="uk")
    russian = pymorphy3.MorphAnalyzer(lang="ru")
    return {"uk": ukrainian, "ru": russian}


def analyzer(lang: str):
    """The shared analyzer for `lang` ("ru" or "uk")."""
    return _analyzers()[lang]
