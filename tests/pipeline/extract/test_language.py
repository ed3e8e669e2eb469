"""The answer language's lingua half: texts that fold to one `lingua_text` share one lingua call, and every text
still gets the verdict its own call gives."""

from __future__ import annotations

import pytest

from pipeline.extract import language

# Pairs and groups that fold together (case, punctuation, digits, spacing) and near misses that must not
# (accents, non-ASCII capitals, a capital sigma, Cyrillic).
TRICKY = [
    ("?latin", "Pizza!"),
    ("?latin", "pizza"),
    ("?latin", "  PIZZA... 2"),
    ("?latin", "Hamburger"),
    ("?latin", "hamburger."),
    ("?latin", "Borscht is from Ukraine, I think."),
    ("?latin", "borscht  is from ukraine i think"),
    ("?latin", "it's a dish from Italy"),
    ("?latin", "it s a dish from italy"),
    ("?latin", "C'est la paella, de Valence"),
    ("?latin", "Es paella de Valencia (España)"),
    ("?latin", "ES PAELLA DE VALENCIA ESPAÑA"),
    ("?latin", "Ñandú asado"),
    ("?latin", "ñandú asado"),
    ("?latin", "Tom-yum goong, Thailand"),
    ("?latin", "tom yum goong thailand"),
    ("?latin", "Σ.a Moussaka from Greece"),
    ("?latin", "Σ a moussaka from greece"),
    ("?latin", "寿司 sushi, Japan"),
    ("?latin", "Nasi goreng berasal dari Indonesia"),
    ("?latin", "Ang adobo ay mula sa Pilipinas"),
    ("?latin", "Das Gericht kommt aus Deutschland"),
    ("?latin", "das gericht kommt aus deutschland!"),
    ("?cyrillic", "Паста карбонара"),
    ("?cyrillic", "ПАСТА, карбонара"),
    ("?cyrillic", "паста карбонара 2"),
    ("?cyrillic", "Це страва з Італії"),
]


def test_shared_calls_give_each_text_its_own_verdict() -> None:
    language._shared.clear()
    direct = [language.lingua_verdict(ask, text) for ask, text in TRICKY]
    assert language.by_lingua(TRICKY) == direct
    assert len(language._shared) < len(TRICKY)  # some texts shared a call
    assert language.by_lingua(list(reversed(TRICKY))) == direct[::-1]  # whichever text of a group came first


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Pizza!", "pizza"),
        ("  PIZZA... 2", "pizza"),
        ("it's a dish", "it s a dish"),
        ("Ñandú, asado.", "Ñandú asado"),  # non-ASCII capitals are left to lingua
        ("Σ.a moussaka", "Σ.a moussaka"),  # a capital sigma lower-cases by its neighbours: kept as written
        ("寿司 sushi", "寿司 sushi"),
    ],
)
def test_lingua_text_folds_only_what_lingua_never_reads(text: str, read: str) -> None:
    assert language.lingua_text(text) == read
