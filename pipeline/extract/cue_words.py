"""Russian and Ukrainian cue words matched by lemma (issue 49): every word form pymorphy3 gives for a cue's
lemma, so that "поширився", "поширилася", "поширившись", "поширюється", "поширені", "распространённый" and
"распространившись" are all the spread cue that "распространился" is, and a cue written for one person,
number, gender or aspect no longer misses the others ("X comes from A; it later spread to B, C and D" read as
four origins).

A form is kept when pymorphy3's most likely reading of it has one of the kind's lemmas, unless another
reading is the copula ("едят" is "есть", to eat, but "есть" itself is also "быть", "there is", and is no
cue). The forms are compiled into one regex shaped as a trie (one alternative per first letter, each
starting with that letter, so that `re` skips to where one may start and `countries._scan`'s
Aho-Corasick pass finds them in long answers), matched as whole words on lower-cased text, "ё" also as "е".

The verbs of spreading and of coming from of English, Spanish, French, Italian and Portuguese answers are
matched by their Snowball stem (`STEMMED_CUES`): "spread", "spreads", "spreading to"; "se extendió a",
"extendido a"; "s'est propagé en", "propagée en"; "comes from", "came from", "provient de"; each before a
preposition of place, so that "travelled to Russia" is spread and "travel" alone is not. A candidate is a
stem's letters at a word start (the regex) and is kept when Snowball gives the whole word that stem
(`stem_agrees`): "spreadsheet to" is no cue.

Fixed phrases that do not inflect ("по всему миру", "в том числе", "не путать") and the other cues of the other
prompt languages stay in `countries`' patterns.
"""

from __future__ import annotations

import functools
import re

# The lemmas of each kind of cue, as pymorphy3 writes them (Ukrainian gerunds are lemmas of their own there).
CUE_LEMMAS: dict[str, dict[str, tuple[str, ...]]] = {
    # Where a dish went, is popular, known, served, eaten, cooked or liked (issue 35's served questions, spread).
    "spread": {
        "ru": (
            "популярный", "популярность", "популярно", "распространить", "распространиться", "распространять",
            "распространяться", "распространение", "распространенный", "известный", "известность",
            "ресторан", "вариант", "разновидность", "попасть", "проникнуть", "перекочевать", "подавать",
            "подаваться", "готовить", "готовиться", "есть", "любить", "полюбить", "попробовать", "встречаться",
        ),
        "uk": (
            "популярний", "популярність", "популярно", "поширити", "поширитися", "поширювати", "поширюватися",
            "поширення", "поширений", "поширившись", "поширюючись", "відомий", "ресторан", "варіант", "різновид",
            "потрапити", "потрапляти", "проникнути", "перекочувати", "подавати", "подаватися", "готувати",
            "готуватися", "їсти", "любити", "полюбити", "полюбляти", "скуштувати", "зустрічатися",
        ),
    },
    # Where a dish comes from, who invented or popularised it.
    "origin": {
        "ru": (
            "происходить", "происхождение", "родина", "возникнуть", "возникать", "придумать", "придумывать",
            "зародиться", "популяризировать", "популяризовать", "популяризация",
        ),
        "uk": (
            "походити", "походження", "батьківщина", "виникнути", "виникати", "придумати", "вигадати",
            "зародитися", "популяризувати", "популяризація",
        ),
    },
    # Claims short of "comes from": where a dish is traditional or typical.
    "claim": {
        "ru": ("традиционный", "традиционно", "типичный", "типично", "типовой"),
        "uk": ("традиційний", "традиційно", "типовий", "типово"),
    },
}  # fmt: skip


# Per kind of cue, Snowball language -> (verbs, by lemma and, for an irregular stem, that form too; the prepositions
# that make them about a place). Not "introduce": "introduced to the United States by French soldiers" names both.
STEMMED_CUES: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    "spread": {
        "english": (
            ("spread", "travel", "adopt", "export", "migrate", "enjoy"),
            r"to|across|throughout|into|through|around|beyond|over",
        ),
        "spanish": (("extender", "difundir", "propagar", "expandir", "exportar"), r"a|al|en|por|hacia|hasta"),
        "french": (("propager", "diffuser", "exporter", "étendre"), r"en|à|au|aux|dans|partout|jusqu"),
        "italian": (("diffondere", "propagare", "esportare", "estendere"), r"in|a|al|nel|nei|negli|nella|nelle|anche"),
        "portuguese": (("espalhar", "difundir", "propagar", "exportar"), r"para|em|no|na|nos|nas|pelo|pela|por"),
    },
    # "comes from", "came from", "stemming from", "proviene de", "provient de", "proviene da", "provém de".
    "origin": {
        "english": (("come", "came", "hail", "stem", "derive"), r"from"),
        "spanish": (("provenir", "proviene", "proceder"), r"de|del"),
        "french": (("provenir", "provient"), r"de|du|des|d"),
        "italian": (("provenire", "proviene", "derivare"), r"da|dal|dalla|dai|dalle|dall|dallo|dagli"),
    },
}


@functools.cache
def _stemmer(language: str):
    import snowballstemmer

    return snowballstemmer.stemmer(language)


@functools.cache
def _stems(kind: str) -> dict[str, tuple[str, ...]]:
    """Snowball stem of each verb of the kind -> the languages it is a stem of ("propag": French, Spanish, Italian
    and Portuguese)."""
    found: dict[str, list[str]] = {}
    for language, (lemmas, _) in STEMMED_CUES[kind].items():
        for lemma in lemmas:
            found.setdefault(_stemmer(language).stemWord(lemma), []).append(language)
    return {stem: tuple(languages) for stem, languages in found.items()}


def stemmed_pattern(kind: str) -> str:
    """One alternative per stem: its first letter, no word letter before it, the rest of the stem, any ending, then one
    of its languages' prepositions ("s(?<!\\w.)pread\\w*\\s+(?:to|across|…)\\b")."""
    alternatives = []
    for stem, languages in sorted(_stems(kind).items()):
        words = {p for language in languages for p in STEMMED_CUES[kind][language][1].split("|")}
        alternatives.append(rf"{re.escape(stem[0])}(?<!\w.){re.escape(stem[1:])}\w*\s+(?:{'|'.join(sorted(words))})\b")
    return "|".join(alternatives)


@functools.lru_cache(maxsize=4096)
def stem_agrees(cue: str) -> bool:
    """Is a cue's first word a form of the verb whose stem it starts with (Snowball), or no stemmed cue at all?"""
    word = cue.split(None, 1)[0].lower()
    if not cue[len(word) : len(word) + 1].isspace():
        return True
    candidates = [(stem, languages) for kind in STEMMED_CUES for stem, languages in _stems(kind).items()]
    prefixes = [(stem, languages) for stem, languages in candidates if word.startswith(stem)]
    if not prefixes:
        return True
    return any(_stemmer(language).stemWord(word) == stem for stem, languages in prefixes for language in languages)


_COPULA = frozenset({"быть", "бути"})


@functools.cache
def cue_forms(kind: str) -> frozenset[str]:
    """Every Russian and Ukrainian word form of the kind's lemmas, lower case ("ё" also as "е"), kept in the
    derived-file cache (pipeline/core/derived.py, under this module's code and pymorphy3's dictionaries): reading
    pymorphy3's lexemes costs a command that extracts a third of a CPU-second, the cached forms a millisecond."""
    from pipeline.core import derived

    return derived.cached("cue-forms", kind, derived.inputs_digest("cue-forms", kind), lambda: _lexeme_forms(kind))


def _lexeme_forms(kind: str) -> frozenset[str]:
    from pipeline.core.morph import analyzer

    forms: set[str] = set()
    for lang, lemmas in CUE_LEMMAS[kind].items():
        morph, wanted = analyzer(lang), set(lemmas)
        for lemma in lemmas:
            for parse in morph.parse(lemma):
                if parse.normal_form != lemma:
                    continue
                for form in parse.lexeme:
                    word = form.word.lower()
                    readings = morph.parse(word)
                    if readings[0].normal_form in wanted and not any(p.normal_form in _COPULA for p in readings):
                        forms.update({word, word.replace("ё", "е")})
    return frozenset(forms)


def trie_pattern(words: frozenset[str] | set[str]) -> str:
    """A regex matching exactly `words` as whole words: a trie, one top-level alternative per first letter
    (its literal head, for `countries._heads`), each ending at a word boundary."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    # The word start is checked after the first letter (no word letter before it), not by a leading \b: a pattern
    # whose every alternative starts with a literal lets `re` skip to the positions where one of them starts.
    return "|".join(rf"{re.escape(char)}(?<!\w.){_node(child)}\b" for char, child in sorted(trie.items()))


def _node(node: dict) -> str:
    ends = "" in node
    branches = [re.escape(char) + _node(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 and not ends else "(?:" + "|".join(branches) + ")"
    if ends:
        return body + "?" if len(branches) == 1 and len(branches[0]) == 1 else f"(?:{'|'.join(branches)})?"
    return body
