"""Czech case forms of country names, by rule (no Czech morphology package installs offline).

Models answering in Czech decline the country: "v Japonsku", "s Čínou", "z Mexika", "v Itálii". CLDR only has the
nominative, so a third of the Czech WorldCuisines answers found no country. The rules cover the declension patterns
country names follow (singular only, as names are):

* feminine in -a (Čína, Kuba, Amerika): -y/-ě/-u/-ou, with the usual consonant changes before -ě (Amerika → Americe);
  after a soft consonant (Keňa) -i/-i/-u/-ou;
* feminine in -ie/-ye (Itálie, Libye): -ii, -ií;
* neuter in -o (Japonsko, Mexiko): -a/-u/-em;
* masculine ending in a consonant (Vietnam, Írán): -u/-em, soft ones (Bangladéš) -e/-i/-em;
* adjectives agreeing with the noun after them (Velká Británie → Velké Británii, Nový Zéland → Novém Zélandu).

Indeclinable names (Peru, Mali, Chile) and plurals (Spojené státy) are left as written; the plural forms of the few
plural names are aliases.
"""

from __future__ import annotations

import re

CASES = ("gen", "dat", "acc", "loc", "ins")
_SOFT = "ňťďjcčšžř"
# before the dative/locative -ě of feminine nouns: Amerika → Americe, Praha → Praze, Riga → Rize
_SOFTENED = (("ch", "še"), ("k", "ce"), ("h", "ze"), ("g", "ze"), ("r", "ře"), ("l", "le"), ("s", "se"), ("z", "ze"))
_HARD_ADJECTIVE = {  # ending of the nominative -> per gender, the endings of CASES
    "f": {"gen": "é", "dat": "é", "acc": "ou", "loc": "é", "ins": "ou"},
    "m": {"gen": "ého", "dat": "ému", "acc": "ý", "loc": "ém", "ins": "ým"},
    "n": {"gen": "ého", "dat": "ému", "acc": "é", "loc": "ém", "ins": "ým"},
}
_SOFT_ADJECTIVE = {
    "f": dict.fromkeys(CASES, "í"),
    "m": {"gen": "ího", "dat": "ímu", "acc": "í", "loc": "ím", "ins": "ím"},
    "n": {"gen": "ího", "dat": "ímu", "acc": "í", "loc": "ím", "ins": "ím"},
}
_WORD = re.compile(r"[^\W\d_]+")
# spelling: ň, ť, ď are written n, t, d before i, í and ě (Keňa -> Keni)
_SPELLING = re.compile(r"([ňťď])([iíě])")
_PLAIN = {"ň": "n", "ť": "t", "ď": "d"}


def _spell(word: str) -> str:
    return _SPELLING.sub(lambda m: _PLAIN[m.group(1)] + m.group(2), word)


def _noun(word: str) -> tuple[str, dict[str, str]] | None:
    """(gender, case -> form) of a declinable noun, or None."""
    if len(word) < 3:
        return None
    if word.endswith(("ie", "ye")):
        stem = word[:-1]
        return "f", {"gen": word, "dat": stem + "i", "acc": stem + "i", "loc": stem + "i", "ins": stem + "í"}
    if word.endswith("a"):
        stem = word[:-1]
        if stem[-1] in _SOFT:
            return "f", {"gen": stem + "i", "dat": stem + "i", "acc": stem + "u", "loc": stem + "i", "ins": stem + "ou"}
        soft = next((stem[: -len(end)] + new for end, new in _SOFTENED if stem.endswith(end)), stem + "ě")
        return "f", {"gen": stem + "y", "dat": soft, "acc": stem + "u", "loc": soft, "ins": stem + "ou"}
    if word.endswith("o"):
        stem = word[:-1]
        return "n", {"gen": stem + "a", "dat": stem + "u", "acc": word, "loc": stem + "u", "ins": stem + "em"}
    if word[-1].isalpha() and word[-1] not in "aeiouyáéíóúůý":
        if word[-1] in _SOFT:
            return "m", {"gen": word + "e", "dat": word + "i", "acc": word, "loc": word + "i", "ins": word + "em"}
        return "m", {"gen": word + "u", "dat": word + "u", "acc": word, "loc": word + "u", "ins": word + "em"}
    return None


def _adjective(word: str, gender: str) -> dict[str, str] | None:
    if word.endswith(("ý", "á", "é")) and len(word) > 3:
        return {case: word[:-1] + end for case, end in _HARD_ADJECTIVE[gender].items()}
    if word.endswith("í") and len(word) > 3:
        return {case: word[:-1] + end for case, end in _SOFT_ADJECTIVE[gender].items()}
    return None


def forms(phrase: str) -> set[str]:
    """The phrase (lower case, normalised) and its case forms: the last declinable word is the head noun, the
    adjectives before it agree with it, other words stay."""
    parts = _WORD.split(phrase)
    words = _WORD.findall(phrase)
    if not words:
        return {phrase}
    head, noun = next(((i, n) for i in range(len(words) - 1, -1, -1) if (n := _noun(words[i]))), (None, None))
    if noun is None:
        return {phrase}
    gender, head_forms = noun
    declined = {head: head_forms}
    for i in range(head - 1, -1, -1):
        adjective = _adjective(words[i], gender)
        if adjective is None:
            break
        declined[i] = adjective
    found = {phrase}
    for case in CASES:
        out = [_spell(declined[i][case]) if i in declined else word for i, word in enumerate(words)]
        found.add("".join(part + word for part, word in zip(parts, [*out, ""], strict=True)))
    return found


def adjective_forms(stem: str) -> set[str]:
    """Every singular form of a hard adjective from its stem ("česk" -> český, česká, českého, českou, ...)."""
    return {stem + end for end in ("ý", "á", "é", "ého", "ému", "ém", "ým", "ou", "ých", "ými")}
