"""The Russian and Ukrainian analyzers live together whatever module asks for them first.

pymorphy3 shares one tag class between languages and every new analyzer redefines its known
grammemes. The regression this guards against: the name scorer created a Ukrainian analyzer after the
gazetteer's Russian one, after which
inflecting a Russian name to the second locative ("в летнем саду") failed with "Unknown grammeme: loc2". Each
case runs in a fresh interpreter, since the analyzers are cached per process.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

ORDERS = {
    "the gazetteer, then Ukrainian dish names scored, then the gazetteer": (
        "from pipeline.extract.gazetteer import inflect\n"
        "from pipeline.score.names import stems\n"
        "inflect('франция', 'ru')\n"
        "stems('борщ український', 'uk')\n"
        "forms = inflect('летний сад', 'ru')\n"
    ),
    "the gazetteer, then ingredient lemmas, then the gazetteer": (
        "from pipeline.score.uacuisine import lemmas\n"
        "from pipeline.extract.gazetteer import inflect\n"
        "inflect('франция', 'ru')\n"
        "lemmas('капусту і буряк')\n"
        "forms = inflect('летний сад', 'ru')\n"
    ),
}


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_russian_second_locative_survives_any_load_order(order: str) -> None:
    code = ORDERS[order] + "assert 'летнем саду' in forms, sorted(forms)\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]


def test_every_module_shares_one_analyzer_per_language() -> None:
    from pipeline.core import morph
    from pipeline.extract import gazetteer
    from pipeline.score import names
    from pipeline.score import uacuisine as uacuisine_metrics

    for lang in ("ru", "uk"):
        assert gazetteer._analyzer(lang) is morph.analyzer(lang)
        assert names._morph(lang) is morph.analyzer(lang)
        assert uacuisine_metrics._analyzer(lang) is morph.analyzer(lang)
