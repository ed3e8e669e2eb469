"""Country-of-origin extraction: a model's free-text answer -> the countries it names as origin.

One compiled Aho-Corasick automaton per answer language holds every surface form of the gazetteer
(names, aliases, cuisine adjectives, subnational regions, broad regions; Russian and Ukrainian in
all their cases). Matching runs over a same-length normalised copy of the answer, so spans point
into the original text; word boundaries are checked per script (no check inside CJK or Thai
text, suffixes allowed after Korean, Azerbaijani and Indic names). Then:

- a mention preceded by a negation cue in its own clause ("не из России, а из Украины",
  "not from Italy") is dropped unless the country is also named without one;
- a mention that a correction overrides ("many think it's Chinese, but actually it's Japanese")
  is dropped, and so are countries named only where the answer says a dish spread to, is popular
  or has variations ("now popular in the US and Germany"), but only when it claims a country as
  origin: the countries listed after a region, a people or a claim short of a country ("from Eastern
  Europe, with variations in countries such as Poland", "traditional in many Latin American
  countries, including…") are its answer;
- what the question asked decides which mentions answer it (`reading`, declared per prompt variant
  with the task's prompts): an `origin` question keeps the countries claimed as origin (a mention
  after a spread cue in its sentence, "поширилися в Україні", is spread, a cuisine adjective is a
  claim); a `served` question (where it is served, eaten, cooked, popular, traditional) keeps every
  country named as serving, eating or liking it, origins included; negations ("не в Польше",
  "в Австрії її не їдять") and corrections drop in both, and no sentence is dropped whole;
- a cuisine adjective used for a language ("answering in English", "на русском") is no claim;
- broad regions (Central Asia, the Caucasus, the Soviet Union...) are kept as regions, never
  turned into countries;
- the status says whether the model named a country (`ok`), answered without one
  (`no_country`), declined (`refusal`), or said nothing (`empty`).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple

import ahocorasick
import numpy as np
from rapidfuzz.distance import OSA

from pipeline.core.text import fold, fold_with_offsets
from pipeline.extract.aliases_world import EXTRA_SEARCH_LANGS, LOCALE_OF
from pipeline.extract.gazetteer import Entry, entries_for, is_acronym
from pipeline.extract.language_cues import names_language_or_people

# Stored with each extraction; bumped when the gazetteer or the rules change, so `score` redoes older ones
# (2: Czech case forms and adjectives, Turkish names for Azerbaijani, Arabic alef and article;
# 3: Romance adjectives, elision, subdivisions, dish names, spread lists in every language, Arabic nisba;
# 4: hyphen/space spellings of compound names, curated names over other languages' subdivisions,
# Turkic endings only, one-edit near misses of bare one-word answers);
# 5: the question's reading (origin | served), spread cues by position in the sentence, negation after a mention;
# 6: places inside countries, older names, Natural Earth names and endonyms, continental regions, language and
# people cues, Latin-script names bounded on the right in suffixing languages, a place before its country);
# 7: spread countries dropped only when a country is claimed as origin: a list after a region, a people, "traditional
# in", "typical of" or "popularized in" is the answer (list introducers take the role of the cue before them);
# 8 (issue 49): Russian and Ukrainian spread, origin and claim cues by lemma in every form (`cue_words`), pycountry's
# ISO 3166-1 translations of country names.
EXTRACTOR = "countries@8"
# What a question asks, declared per prompt variant in the task declarations (pipeline/tasks/*.toml `asks`):
# `origin` (where a dish comes from) or `served` (where it is served, eaten, cooked, popular or traditional).
READINGS = ("origin", "served")

# Which gazetteers an answer in a given language is searched with, in order of precedence: models
# switch to English often, and Ukrainian answers mix in Russian words (surzhyk).
# Cyrillic and Latin names never collide, so every answer is also searched in ru/uk/en (models answer
# Arabic prompts with "Россия" too).
SEARCH_LANGS: dict[str, tuple[str, ...]] = {
    "en": ("en", "ru", "uk"),
    "ru": ("ru", "en", "uk"),
    "uk": ("uk", "ru", "en"),
}

# Turkic languages in Latin letters attach case and derivation endings to a name ("Çində",
# "Meksikalılar", "Puerto-Rikolular", "Türkiye'den"): after a name only a chain of those endings
# (folded: ı->i, ü->u, ç->c) continues the word, so "cinnamon" is not "Çin" + "namon" and "Kanom" is
# not the Nigerian state Kano.
_TURKIC = frozenset({"az", "tr"})
_TURKIC_MORPHEME = (
    r"l[aeə]r|l[iu]|l[aeə]|[dt][aeə]n?|[dt][iu]r|[cs]?[aeə]|y[aeə]|n[aeə]|"
    r"[nys]?[iu]n?|[cs][iu]|k[iu]|d[aeə]ki|l[iu][kq]|[aeə]"
)
_TURKIC_SUFFIXES = re.compile(f"'?(?:{_TURKIC_MORPHEME}){{1,4}}")


def _turkic_suffixes(folded: str, end: int) -> bool:
    """Is the rest of the word after a name (at `end`) a chain of Turkic endings?"""
    stop = end
    if stop < len(folded) and folded[stop] == "'":
        stop += 1
    while stop < len(folded) and _is_word_char(folded[stop]):
        stop += 1
    return _TURKIC_SUFFIXES.fullmatch(folded, end, stop) is not None


def _is_latin(char: str) -> bool:
    return char.isascii() or "\u00c0" <= char <= "\u024f" or char == "\u0259"


# A whole answer of one word, between optional spaces, quotes, asterisks and final punctuation.
# A bare one-word answer: letters and the combining marks written with them (Latin accents, Arabic vowels, the vowel
# signs of the Indic scripts from Devanagari to Sinhala, Thai's), then a chat model's end-of-turn token if it leaked
# ("वियेतनाम<|im_end|>").
_ONE_WORD = re.compile(
    r"[\s\"'«»“”*]*([^\W\d_](?:[^\W\d_]|[\u0300-\u036f\u064b-\u065f\u0900-\u0dff\u0e31-\u0e4e])*)"
    r"[\s\"'«»“”*.!?]*(?:<\|[a-z_]+\|>|</s>)?\s*"
)
_NEAR_MISS_MIN = 6
# A five-letter answer is read as a near miss only by a letter it lacks ("Itali", "Grece"): one more edit on
# so short a word reaches other words ("Samosa" -> Samoa).
_NEAR_MISS_MIN_DELETION = 5

# Neighbours of a match that end a word in every script: ASCII spaces and punctuation, not the apostrophe.
_PLAIN_EDGES = frozenset(' \t\n\r\f\v!"#$%&()*+,-./:;<=>?@[\\]^`{|}~')
_NO_SPACE_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR")
# Languages whose case endings or particles attach to the name: only the left edge is a boundary.
_SUFFIXING = frozenset({"ko", "az", "tr", "mr", "bn", "hi", "si", "ja", "ta", "te", "kn", "ml", "fi", "hu", "et"})

_CLAUSE_BREAK = re.compile(r"[.;:!?\n()\[\]]|,|\s(?:а|но|але|проте|однак|but|rather|instead|whereas)\s", re.I)
_TOKEN = re.compile(r"[\w']+")
_NEGATION = frozenset(
    {
        "не",
        "ні",
        "нет",
        "ни",
        "not",
        "no",
        "never",
        "nor",
        "isn't",
        "isnt",
        "wasn't",
        "aren't",
        "n't",
        "ніяк",
        "неправильно",
    }
)
# Where a negation word may stand (a superset of what `_Layout.negated` accepts: no boundaries, so
# the pattern stays a plain alternation, ~15x faster in `re`), found in one pass over lower case.
_NEGATION_CUE = re.compile("|".join(re.escape(word) for word in sorted(_NEGATION, key=len, reverse=True)) + "|n't")
_NEGATION_CUE_ANY_CASE = re.compile(_NEGATION_CUE.pattern, re.I)
_NOT_NEGATION_NEXT = frozenset({"только", "лише", "тільки", "лишь", "only", "just", "merely"})
_REFUSAL = re.compile(
    r"не\s+(?:могу|можу|можем|можемо|удается|вдається|в\s+состоянии|в\s+змозі)|невозможно|неможливо|"
    r"затрудняюсь|важко\s+сказати|трудно\s+сказать|не\s+знаю|не\s+уверен\w*\s+в\s+происхождении|"
    r"\bi\s+(?:can(?:no|')t|am\s+unable|'m\s+unable|am\s+not\s+able|'m\s+not\s+able|don't\s+know)|"
    r"\bunable\s+to\b|\bcannot\s+(?:determine|identify|tell)|\bcan't\s+(?:determine|identify|tell)|"
    r"\bnot\s+possible\s+to\b|\bimpossible\s+to\b|\bsorry\b|извините|вибачте|на\s+жаль|к\s+сожалению|"
    r"важко\s+(?:сказати|відповісти|визначити)|складно\s+(?:сказати|визначити)|сложно\s+(?:сказать|определить)|"
    r"не\s+впевнен|not\s+sure|(?:not|n't)\s+enough\s+information|недостаточно\s+информации|недостатньо\s+інформації",
    re.I,
)


_CORRECTION = re.compile(
    r"на\s+самом\s+деле|в\s+действительности|насправді|\bactually\b|\bin\s+fact\b|"
    r"\bin\s+reality\b|\bdespite\s+the\s+name\b",
    re.I,
)
# A sentence ends at . ; ! ? or a line break, but a line ending in a colon runs on through the bulleted list it
# introduces ("popular in many countries, including:\n* Argentina\n* Chile"): the items take its cues.
_SENTENCE_END = re.compile(r"[.;!?\n]")
_SENTENCE = re.compile(
    r"(?:[^.;!?\n:]|:(?![ \t]*\n))+(?::[ \t]*(?:\n[ \t]*(?:(?:[-*•]|\d+[.)])[^.;!?\n]*)?)+)?[.;!?\n]*"
)
# Russian and Ukrainian spread words (popular, spread, known, served, eaten, cooked, liked, variants) are matched by
# lemma, in every form (`cue_words`, issue 49); here are the fixed phrases and the other prompt languages' cues.
_SPREAD_SOURCE = (
    r"по\s+всему\s+миру|по\s+всьому\s+світу|в\s+том\s+числе|зокрема|например|наприклад|"
    r"popular|widespread|worldwide|around\s+the\s+world|well[\s-]+known\s+(?:in|across|throughout)|widely\s+known\s+(?:in|across|throughout)|restaurants?|brought\s+it|famous|also\s+(?:eaten|made|found)|"
    # where a dish went, is served, eaten, cooked or liked (issue 35: BORSch's served questions and spread clauses)
    r"served\s+(?:in|as|throughout|across)|often\s+served|usually\s+served|commonly\s+served|"
    r"typically\s+served|widely\s+served|"
    r"eaten\s+in|enjoyed\s+in|brought\s+to|"
    r"such\s+as|including|variants|versions|"
    # similar dishes elsewhere, and dishes not to be confused with it, are not where it is from
    r"похож\w*\s+блюд|схож\w*\s+страв|similar\s+dish|не\s+путать|не\s+плутати|not\s+to\s+be\s+confused|"
    # The other prompt languages: "consumato in molti paesi, tra cui…", "populaire en", "especialmente en".
    r"popolar|diffus|consumat|tra\s+cui|come\s+ad\s+esempio|populaire|répandu|repandu|notamment|"
    r"especialmente|países\s+como|paises\s+como|incluyendo|entre\s+ellos|populer|terutama|seperti|"
    r"人気|流行|受歡迎|受欢迎|인기|लोकप्रिय|นิยม|sikat|kilala"
)
# A sentence that states an origin is an origin claim even when it also says where a dish spread.
# Russian and Ukrainian origin words by lemma (`cue_words`), in every form; "родом" is a fixed adverb.
_ORIGIN_SOURCE = (
    r"originat|origin|invented|birthplace|родом|homeland|origen|originari|origine|berasal|asal|"
    r"起源|발상|기원|उत्पत्ति|ที่มา|"
    # Who made a dish popular (a WorldCuisines question, issue 38): "популяризировано в странах…, таких как…".
    r"populari[sz]|made\s+(?:\w+\s+){0,3}?popular|popolarizz|dipopulerkan"
)
# Claims short of "comes from" (issue 38): where a dish is traditional or typical. A mention after one (list
# introducers passed over) is claimed, not spread: "a traditional dish in many Latin American countries,
# including…", "typical of the Balkans, such as…"; but a sentence holding one is no origin sentence ("a
# traditional pudding, popular in many countries, including…" lists where it is eaten).
_CLAIM_SOURCE = r"traditional|typical(?!ly)|tradizional|tipic|tradicional|típic|traditionnel|typique|tradisional"
# Words that introduce a list ("such as", "including", "таких как"): a mention after one takes the role of the
# cue before the list ("traditional in many countries, including A, B" is a claim; "popular in many countries,
# including A, B" is spread); with no cue before it in its sentence, the introducer itself reads as spread.
_LIST_INTRO = re.compile(
    r"в\s+том\s+числе|зокрема|например|наприклад|such\s+as|including|tra\s+cui|come\s+ad\s+esempio|notamment|"
    r"especialmente|pa[ií]ses\s+como|incluyendo|entre\s+ellos|terutama|seperti",
    re.I,
)
# `re` matches case-insensitive alternations ~8x slower than plain ones: the cue patterns run on the
# lower-cased answer (same length in all but a few scripts; otherwise the re.I originals run).


class _Cues(NamedTuple):
    spread: re.Pattern
    origin: re.Pattern
    claim: re.Pattern


@functools.cache
def _cues() -> _Cues:
    """The spread, origin and claim patterns: each kind's Russian and Ukrainian lemmas in every form
    (`cue_words.cue_forms`, built on first use: pymorphy3's dictionaries load only then) before the other cues."""
    from pipeline.extract.cue_words import cue_forms, stemmed_pattern, trie_pattern

    def compiled(kind: str, source: str) -> re.Pattern:
        return re.compile(f"{trie_pattern(cue_forms(kind))}|{source}", re.I)

    spread = compiled("spread", f"{stemmed_pattern('spread')}|{_SPREAD_SOURCE}")
    origin = compiled("origin", f"{stemmed_pattern('origin')}|{_ORIGIN_SOURCE}")
    return _Cues(spread, origin, compiled("claim", _CLAIM_SOURCE))


def _cue_matches(pattern: re.Pattern, text: str, lowered: str | None) -> list[re.Match]:
    """Every match of a cue pattern, a stemmed verb's only where Snowball agrees (`cue_words.stem_agrees`)."""
    from pipeline.extract.cue_words import stem_agrees

    return [match for match in _finditer(pattern, text, lowered) if stem_agrees(match.group())]


# By the pattern's id, not the pattern: hashing a compiled pattern hashes its whole compiled code, which for the
# lemma tries (`cue_words`) cost more than matching them (the patterns here live as long as the module).
_LOWERED: dict[int, tuple[re.Pattern, re.Pattern]] = {}


def _lower(pattern: re.Pattern) -> re.Pattern:
    """`pattern` without re.I, for lower-cased text."""
    known = _LOWERED.get(id(pattern))
    if known is None or known[0] is not pattern:
        known = _LOWERED[id(pattern)] = (pattern, re.compile(pattern.pattern))
    return known[1]


def _lowered(text: str) -> str | None:
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else None


def _finditer(pattern: re.Pattern, text: str, lowered: str | None):
    if lowered is None:
        return pattern.finditer(text)
    return _lower(pattern).finditer(lowered) if len(lowered) < _SCAN_FROM else _scan(_lower(pattern), lowered)


def _search(pattern: re.Pattern, text: str, lowered: str | None) -> re.Match | None:
    if lowered is None:
        return pattern.search(text)
    return _lower(pattern).search(lowered) if len(lowered) < _SCAN_FROM else next(_scan(_lower(pattern), lowered), None)


# From how many characters the cue patterns are run through `_scan`: `re` tries every alternative at
# every position (~0.1 s per pattern on 1 MB), the head automaton's fixed cost only pays on long answers.
_SCAN_FROM = 4096


def _scan(pattern: re.Pattern, text: str):
    """`pattern.finditer(text)`, found faster: the literal heads of its alternatives (`_heads`) are
    found in one Aho-Corasick pass, and `re` only tries to match where one starts. Every match starts
    with a head, and `match` at a position sees the text before it as `search` does (for `\\b`), so the
    matches are the same, leftmost first and not overlapping; a pattern without heads runs as it is."""
    automaton = _head_automaton(pattern)
    if automaton is None:
        yield from pattern.finditer(text)
        return
    at = 0
    for start in sorted({end - length + 1 for end, length in automaton.iter(text)}):
        if start >= at:
            match = pattern.match(text, start)
            if match is not None:
                yield match
                at = max(match.end(), start + 1)


@functools.cache
def _head_automaton(pattern: re.Pattern) -> ahocorasick.Automaton | None:
    heads = _heads(pattern.pattern)
    if heads is None:
        return None
    automaton = ahocorasick.Automaton()
    for head in heads:
        automaton.add_word(head, len(head))
    automaton.make_automaton()
    return automaton


_REGEX_SPECIAL = frozenset("\\()[]{}?*+.^$|")


def _heads(source: str) -> tuple[str, ...] | None:
    """The literal text each top-level alternative of a regex starts with (after any `\\b`), without a
    last character a quantifier makes optional; None when an alternative starts with anything else."""
    heads = []
    for branch in _alternatives(source):
        while branch.startswith("\\b"):
            branch = branch[2:]
        head = ""
        for char in branch:
            if char in _REGEX_SPECIAL:
                if char in "?*{":
                    head = head[:-1]
                break
            head += char
        if not head:
            return None
        heads.append(head)
    return tuple(heads)


def _alternatives(source: str) -> list[str]:
    """A regex split at its top-level `|` (not inside a group, a class or an escape)."""
    parts, depth, in_class, start, index = [], 0, False, 0, 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(source[start:index])
            start = index + 1
        index += 1
    parts.append(source[start:])
    return parts


_LANGUAGE_NOUNS = frozenset(
    {"языке", "язык", "языком", "мове", "мова", "мовою", "language", "lingua", "idioma", "langue", "língua"}
)
# "in English", "translate it into English", "en español", "in italiano", "em português", "auf Deutsch".
_LANGUAGE_PREPOSITIONS = frozenset({"in", "into", "на", "по", "en", "em", "auf", "dalam", "sa"})
_PUNCT_AFTER = re.compile(r"\s*(?:[:,.!?;]|$)")


class Span(NamedTuple):
    """A matched mention, with offsets into the original answer (for highlighting). A named tuple, not
    a frozen dataclass: as immutable, and built ~5x faster (a 1 MB answer has ~86,000 mentions, and
    building their frozen dataclasses was a quarter of its time)."""

    start: int
    end: int
    text: str
    country: str | None
    region: str | None
    negated: bool = False
    # The kind of gazetteer entry that matched (name, alias, adjective, subnational, place, historic, endonym,
    # region),
    # or "near_miss": a country named through one of its places shows as "place" or "subnational".
    via: str | None = None


@dataclass(frozen=True)
class Extraction:
    countries: tuple[str, ...]  # in order of first (non-negated) mention
    regions: tuple[str, ...]
    spans: tuple[Span, ...]
    status: str  # ok | no_country | refusal | empty
    # BORSch's own rule (§4.1: NER, then the country/alias list): every country named in the answer, by a country
    # name or alias (not an adjective or a region), negated, corrected or spread alike; in order of first mention.
    mentioned: tuple[str, ...] = ()


def base_lang(lang: str) -> str:
    """'ru_formal' -> 'ru', 'zh_cn' -> 'zh', 'nan_spoken' -> 'zh_Hant': the locale of country names."""
    code = lang.strip().lower().replace("-", "_")
    if code in LOCALE_OF:
        return LOCALE_OF[code]
    return code.split("_", 1)[0]


def search_langs(lang: str) -> tuple[str, ...]:
    base = base_lang(lang)
    if base in SEARCH_LANGS:
        return SEARCH_LANGS[base]
    more = _MORE_SEARCH_LANGS.get(base, ())
    return tuple(dict.fromkeys((base, *EXTRA_SEARCH_LANGS.get(base, ()), *more, "en", "ru", "uk")))


# Issue 38: Marathi answers write many names as Hindi does, and Hindi answers as Marathi; Thai answers of the
# Chinese-trained models slip into Chinese names ("泰国").
_MORE_SEARCH_LANGS: dict[str, tuple[str, ...]] = {"mr": ("hi",), "hi": ("mr",), "th": ("zh", "zh_Hant")}


class Matcher:
    """All surfaces of the gazetteers of `langs` in one automaton; earlier langs win a surface."""

    def __init__(self, langs: tuple[str, ...]) -> None:
        self.langs = langs
        self.suffixing = bool(_SUFFIXING & {lang.split("_")[0] for lang in langs[:1]})
        self.turkic = langs[0].split("_")[0] in _TURKIC
        surfaces: dict[str, Entry] = {}
        for lang in langs:
            for key, entry in _folded_entries(lang):
                current = surfaces.get(key)
                if current is None or _overrides(entry, current):
                    surfaces[key] = entry
        # Compound names written with a hyphen for the space, or the reverse ("Puerto-Riko" for
        # CLDR's "Puerto Riko", as Azerbaijani writes it before a suffix; "Guinea Bissau").
        for key, entry in list(surfaces.items()):
            for variant in _spellings(key):
                surfaces.setdefault(variant, entry)
        self.surfaces = surfaces
        self._near_miss: tuple[list[str], list[str], dict[tuple[int, int, str], list[int]]] | None = None
        # The automaton reports surfaces by number: (length, entry) for the per-hit loop, arrays for `_find_many`.
        self._values = [(len(surface), entry) for surface, entry in surfaces.items()]
        self._entries = [entry for _, entry in self._values]
        self._lengths = np.array([length for length, _ in self._values], dtype=np.int64)
        self._case_sensitive = np.array([entry.case_sensitive for entry in self._entries], dtype=bool)
        self.automaton = ahocorasick.Automaton()
        for index, surface in enumerate(surfaces):
            self.automaton.add_word(surface, index)
        self.automaton.make_automaton()

    def find(self, text: str) -> list[tuple[int, int, Entry]]:
        """Non-overlapping mentions, longest first, as (start, end, entry)."""
        folded, positions = fold_with_offsets(text)
        hits = list(self.automaton.iter(folded))
        if len(hits) >= _MANY_HITS:
            return self._find_many(text, folded, positions, hits)
        size = len(folded)
        candidates = []
        values = self._values
        for last, index in hits:
            length, entry = values[index]
            start, end = last - length + 1, last + 1
            # Most names stand between spaces or ASCII punctuation: bounded, no per-script rules to ask.
            plain = (start == 0 or folded[start - 1] in _PLAIN_EDGES) and (end == size or folded[end] in _PLAIN_EDGES)
            if not plain and not self._bounded(folded, start, end):
                continue
            if positions is not None:  # back to offsets in the original text
                start, end = positions[start], positions[end - 1] + 1
            if not entry.case_sensitive or self._case_ok(text[start:end], entry):
                candidates.append((start, end, entry))
        # Overlapping mentions are settled longest first, then leftmost. Only mentions that overlap
        # compete, so each run of overlapping candidates (most are a single mention) is settled alone.
        candidates.sort(key=itemgetter(0))  # stable: ties keep the automaton's order, as the settling does
        taken: list[tuple[int, int, Entry]] = []
        run: list[tuple[int, int, Entry]] = []
        run_end = -1
        for candidate in candidates:
            if candidate[0] >= run_end:
                taken += _longest_first(run)
                run, run_end = [candidate], candidate[1]
            else:
                run.append(candidate)
                run_end = max(run_end, candidate[1])
        taken += _longest_first(run)
        return taken

    def _find_many(
        self, text: str, folded: str, positions: list[int] | None, hits: list[tuple[int, int]]
    ) -> list[tuple[int, int, Entry]]:
        """`find` for an answer with many hits (a long answer): the same rules over numpy arrays, so
        Python only sees the hits that need a per-script boundary rule, a case check or overlap settling
        (a few percent of them); the per-hit loop cost ~3 µs a hit, a third of a 1 MB answer's time."""
        flat = np.fromiter(itertools.chain.from_iterable(hits), dtype=np.int64, count=2 * len(hits))
        ids, ends = flat[1::2], flat[0::2] + 1
        starts = ends - self._lengths[ids]
        codes = np.frombuffer(folded.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        size = len(codes)
        keep = ((starts == 0) | _plain_edge(codes[np.maximum(starts - 1, 0)])) & (
            (ends == size) | _plain_edge(codes[np.minimum(ends, size - 1)])
        )
        for index in np.flatnonzero(~keep).tolist():
            keep[index] = self._bounded(folded, int(starts[index]), int(ends[index]))
        if positions is not None:  # back to offsets in the original text
            offsets = np.asarray(positions, dtype=np.int64)
            starts, ends = offsets[starts], offsets[ends - 1] + 1
        for index in np.flatnonzero(keep & self._case_sensitive[ids]).tolist():
            start, end = int(starts[index]), int(ends[index])
            keep[index] = self._case_ok(text[start:end], self._entries[ids[index]])
        # Sorted by start, ties in the automaton's order (a stable sort, as in `find`)
        order = np.flatnonzero(keep)
        order = order[np.argsort(starts[order], kind="stable")]
        starts, ends, ids = starts[order], ends[order], ids[order]
        # A run of overlapping candidates starts where a start reaches the furthest end so far.
        furthest = np.maximum.accumulate(ends)
        first = np.flatnonzero(np.concatenate(([True], starts[1:] >= furthest[:-1])))
        length = np.diff(np.append(first, len(starts)))
        entries = self._entries
        candidates = list(zip(starts.tolist(), ends.tolist(), [entries[i] for i in ids.tolist()], strict=True))
        taken: list[tuple[int, int, Entry]] = []
        done = 0
        for at, count in zip(first[length > 1].tolist(), length[length > 1].tolist(), strict=True):
            taken += candidates[done:at]
            taken += _longest_first(candidates[at : at + count])
            done = at + count
        taken += candidates[done:]
        return taken

    def near_miss(self, text: str) -> Span | None:
        """A bare one-word answer one edit (insertion, deletion, substitution or swap of two
        neighbours) from exactly one country's name, alias or adjective: "ASutralia", "Grreece",
        "Japenese", "Kənada", "Libanon", "Ukraina". Only the whole answer, at least six letters (an
        Arabic article not counted), never a homograph: on the 12 models' real single-word answers
        that no name matched, about 98% of what this finds is the country a reader sees."""
        match = _ONE_WORD.fullmatch(text)
        if match is None:
            return None
        word = fold(match.group(1))
        stem = word[2:] if word.startswith("ال") else word
        short = len(stem) < _NEAR_MISS_MIN
        if len(stem) < _NEAR_MISS_MIN_DELETION or not all(_is_word_char(ch) for ch in word):
            return None
        if any(ch.isdigit() for ch in word) or (short and stem != word):
            return None
        keys, countries, by_edge = self._near_miss_index()
        length = len(word)
        candidates = {
            index
            for size in ((length + 1,) if short else (length - 1, length, length + 1))
            for edge in ((0, word[:2]), (1, word[-2:]))
            for index in by_edge.get((size, *edge), ())
        }
        named = {countries[index] for index in candidates if OSA.distance(word, keys[index], score_cutoff=1) == 1}
        if len(named) != 1:
            return None
        start, end = match.span(1)
        return Span(start, end, text[start:end], named.pop(), None, via="near_miss")

    def _near_miss_index(self) -> tuple[list[str], list[str], dict[tuple[int, int, str], list[int]]]:
        """One-word surfaces that name a country (no homographs, no dish names), their countries, and the
        surfaces by (length, 0, first two letters) and (length, 1, last two letters).

        One edit changes the length by at most one and touches at most two neighbouring letters, so in
        words of six letters or more it leaves the first two or the last two as they were: only the
        surfaces sharing one of those edges (about 1% of ~7,000) need their distance computed, exactly the
        ones a scan of every surface would find (that scan cost ~150 µs per one-word answer)."""
        if self._near_miss is None:
            keys, countries = [], []
            by_edge: dict[tuple[int, int, str], list[int]] = {}
            for surface, entry in self.surfaces.items():
                wanted = entry.country and entry.kind in ("name", "alias", "adjective") and not entry.case_sensitive
                if wanted and " " not in surface and len(surface) >= _NEAR_MISS_MIN:
                    for edge in ((0, surface[:2]), (1, surface[-2:])):
                        by_edge.setdefault((len(surface), *edge), []).append(len(keys))
                    keys.append(surface)
                    countries.append(entry.country)
            self._near_miss = (keys, countries, by_edge)
        return self._near_miss

    def _bounded(self, folded: str, start: int, end: int) -> bool:
        first, last = folded[start], folded[end - 1]
        if _is_katakana(first) and start > 0 and _is_katakana(folded[start - 1]):
            return False  # "タイ" inside "スタイル" (style)
        if _is_katakana(last) and end < len(folded) and _is_katakana(folded[end]):
            return False
        if not _no_space_script(first) and _joined(folded, start - 1, -1) and not _elided(folded, start):
            return False
        if not _no_space_script(last) and _joined(folded, end, 1):
            if _is_hangul(last):
                return True
            if self.turkic and _is_latin(last):
                return _turkic_suffixes(folded, end)
            # Suffixes attach in the language's own script: an English name inside a Hindi or Korean
            # answer ends a word as in English ("Mara" is not in "Marathi", "Mila" not in "Milanese").
            return self.suffixing and not _is_latin(last)
        return True

    @staticmethod
    def _case_ok(written: str, entry: Entry) -> bool:
        if not entry.case_sensitive:
            return True
        if is_acronym(entry):
            return written.isupper()
        return written[:1].isupper()


# From how many automaton hits `find` works on arrays: numpy's fixed cost per answer (~20 µs) is a
# loss on the short answers most models give.
_MANY_HITS = 64
_PLAIN_EDGE_TABLE = np.zeros(128, dtype=bool)
_PLAIN_EDGE_TABLE[[ord(char) for char in _PLAIN_EDGES]] = True


def _plain_edge(codes: np.ndarray) -> np.ndarray:
    """Which code points are in `_PLAIN_EDGES`."""
    return (codes < 128) & _PLAIN_EDGE_TABLE[np.minimum(codes, 127)]


def _longest_first(run: list[tuple[int, int, Entry]]) -> list[tuple[int, int, Entry]]:
    """Non-overlapping mentions of one run of overlapping candidates: longest first, then leftmost;
    returned in text order."""
    if len(run) < 2:
        return run
    kept: list[tuple[int, int, Entry]] = []
    for candidate in sorted(run, key=lambda c: (c[0] - c[1], c[0])):
        if all(candidate[1] <= start or end <= candidate[0] for start, end, _ in kept):
            kept.append(candidate)
    return sorted(kept, key=lambda c: c[0])


def _overrides(entry: Entry, current: Entry) -> bool:
    """Does a later search language's claim on a surface beat an earlier one's? Only a name or a
    curated entry over a subdivision generated from pycountry's list in the earlier language:
    "Ulster" is Northern Ireland in an Indonesian answer as in an English one (the team's decision),
    not ISO's Irish province."""
    return (
        current.kind == "subnational"
        and current.rank > entry.rank
        and entry.kind in ("name", "alias", "subnational")
        and entry.lang != current.lang
    )


@functools.cache  # the surfaces of English, Russian and Ukrainian are in most languages' matchers
def _spellings(key: str) -> tuple[str, ...]:
    """The hyphen-for-space (and space-for-hyphen) spellings of a compound name in an alphabet."""
    if not any(ch.isalpha() for ch in key) or _no_space_script(next(ch for ch in key if ch.isalpha())):
        return ()
    out = []
    if " " in key:
        out.append(key.replace(" ", "-"))
    if "-" in key:
        out.append(key.replace("-", " "))
    return tuple(out)


@functools.cache
def _folded_entries(lang: str) -> tuple[tuple[str, Entry], ...]:
    """A language's entries with their folded surfaces, folded once per language: the matchers of most prompt
    languages search English, Russian and Ukrainian too."""
    return tuple((fold(entry.surface), entry) for entry in entries_for(lang))


@functools.cache
def matcher_for(lang: str) -> Matcher:
    return _matcher(search_langs(lang))


@functools.cache
def _matcher(langs: tuple[str, ...]) -> Matcher:
    """One matcher per list of searched languages: variants of a prompt language (id_casual, id_formal) search the
    same ones, and building a matcher (~0.3 s of CPU) is most of a short run's extraction cost."""
    return Matcher(langs)


def extract_countries(text: str | None, lang: str, reading: str = "origin") -> Extraction:
    """The countries (and broad regions) an answer names in answer to its question, with spans and a
    status: the claimed origins for an `origin` question, every country named as serving, eating or
    liking the dish for a `served` one (READINGS).

    Linear in the answer's length: the clause and sentence boundaries are found once, and every
    rule looks at a bounded window around a mention or at its own sentence."""
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; known: {', '.join(READINGS)}")
    if text is None or not any(ch.isalnum() for ch in text):
        return Extraction((), (), (), "empty")
    if len(text) < _LONG_ANSWER:
        return _extract(text, lang, reading)
    with cyclic_gc_paused():
        return _extract(text, lang, reading)


# From this length on, an answer's mentions are many thousands of small tuples (86,000 spans per MB of
# real answers): each allocation burst starts the cyclic garbage collector, whose full passes walk every
# object in the process (the gazetteers included) and took a quarter of a 1 MB extraction.
_LONG_ANSWER = 65_536


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Reference counting alone frees what extraction makes (it builds no reference cycles), so the
    cyclic collector is paused for one long answer (or the whole score stage, `pipeline.score.stage`) and restored as it
    was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _extract(text: str, lang: str, reading: str = "origin") -> Extraction:
    found = [
        (start, end, entry)
        for start, end, entry in matcher_for(lang).find(text)
        if entry.kind != "dish"
        and not (entry.kind == "adjective" and _names_a_language(text, start, end))
        and not names_language_or_people(text, start, end)
    ]
    if len(found) > 1:
        found = _places_in_named_countries(text, found)
    lowered = _lowered(text)
    layout = _Layout(text, lowered) if found else None
    negated = layout.negations([start for start, _, _ in found]) if layout else []
    after = layout.negated_after([end for _, end, _ in found]) if layout else []
    spans = [
        Span(start, end, text[start:end], entry.country, entry.region, before or behind, entry.kind)
        for (start, end, entry), before, behind in zip(found, negated, after, strict=True)
    ]
    # Cuisine adjectives and regions not located ("a dish from Eastern Europe", not "in Eastern Europe") claim.
    claims = {start for start, _, entry in found if entry.kind in ("adjective", "region") and not _located(text, start)}
    affirmed = _answers([s for s in spans if not s.negated], text, layout, reading, claims) if layout else []
    if not any(s.country for s in affirmed):
        near = matcher_for(lang).near_miss(text)
        if near is not None:
            spans.append(near)
            affirmed.append(near)
    countries = tuple(dict.fromkeys(s.country for s in affirmed if s.country))
    regions = tuple(dict.fromkeys(s.region for s in affirmed if s.region))
    if countries:
        status = "ok"
    elif _search(_REFUSAL, text, lowered):
        status = "refusal"
    else:
        status = "no_country"
    mentioned = tuple(dict.fromkeys(e.country for _, _, e in found if e.country and e.kind in ("name", "alias")))
    return Extraction(countries, regions, tuple(spans), status, mentioned)


# A place, region or ambiguous name followed by the country it lies in ("Macedonia, Greece", "La Marche en
# France", "Georgia, USA", "Punjab, India"): the country that follows says which place is meant.
_PLACE_IN_COUNTRY = re.compile(r"\s*(?:,|\bin\b|\ben\b|\bdi\b|\bв\b|\bу\b|\bà\b|\bof\b)?\s*(?:the\s+)?", re.I)
_PLACE_KINDS = frozenset({"place", "subnational", "historic"})
# Country names that are also a place inside another country, with that country: "Macedonia, Greece" is the Greek
# region and "Georgia, USA" the state, but "Армения, Грузия, Азербайджан" lists three countries.
_PLACE_LIKE_NAMES = {
    "macedonia": frozenset({"GR"}),
    "македония": frozenset({"GR"}),
    "македонія": frozenset({"GR"}),
    "georgia": frozenset({"US"}),
    "грузия": frozenset({"US"}),
}


def _places_in_named_countries(text: str, found: list[tuple[int, int, Entry]]) -> list[tuple[int, int, Entry]]:
    """Drop a place (or an ambiguous name) directly followed by another country that it is then read to lie in."""
    kept = []
    for index, (start, end, entry) in enumerate(found):
        following = found[index + 1] if index + 1 < len(found) else None
        placeish = entry.kind in _PLACE_KINDS or (
            entry.surface in _PLACE_LIKE_NAMES
            and following is not None
            and following[2].country in _PLACE_LIKE_NAMES[entry.surface]
        )
        if (
            placeish
            and following is not None
            and following[2].country
            and following[2].country != entry.country
            and following[2].kind in ("name", "alias", "endonym")
            and _PLACE_IN_COUNTRY.fullmatch(text, end, following[0]) is not None
        ):
            continue
        kept.append((start, end, entry))
    return kept


# How far back from a mention a negation cue is looked for: three words of any real language.
_NEGATION_WINDOW = 120


class _Layout:
    """Clause and sentence boundaries of one answer, found in one pass each, so that every rule
    asks about a mention with a binary search (numpy's, for all mentions at once) instead of
    rescanning the text before it. Each is found only when a rule asks: most answers are short
    and have no negation or spread cue, and for them no boundary is needed at all."""

    def __init__(self, text: str, lowered: str | None) -> None:
        self.text = text
        self.lowered = lowered

    @functools.cached_property
    def clause_starts(self) -> np.ndarray:
        return _positions(match.end() for match in _CLAUSE_BREAK.finditer(self.text))

    @functools.cached_property
    def cues(self) -> np.ndarray:
        text, lowered = self.text, self.lowered
        cues = _NEGATION_CUE.finditer(lowered) if lowered is not None else _NEGATION_CUE_ANY_CASE.finditer(text)
        return _positions(match.start() for match in cues)

    @functools.cached_property
    def _sentence_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        bounds = _positions(i for m in _SENTENCE.finditer(self.text) for i in m.span())
        return bounds[0::2], bounds[1::2]

    @functools.cached_property
    def spread(self) -> set[int]:
        """Sentences (by index; -1 = outside any) holding a spread cue and no origin cue, from one pass
        over the text each; none without a spread cue anywhere."""
        cues = _cue_matches(_cues().spread, self.text, self.lowered)
        if not cues:
            return set()
        spread = self._sentences_of(cues)
        return spread - self._sentences_of(self.origin_cues)

    @functools.cached_property
    def origin_cues(self) -> list[re.Match]:
        """Every origin word (`_cues().origin`), found once for the rules that ask."""
        return _cue_matches(_cues().origin, self.text, self.lowered)

    @functools.cached_property
    def origin_sentences(self) -> set[int]:
        """Sentences (by index) that state an origin, at any level ("происходит из Азии", "the culinary origin…
        is Eastern European")."""
        return self._sentences_of(self.origin_cues)

    def negations(self, starts: list[int]) -> list[bool]:
        """For each mention start: a negation cue among the last three words before it, in its clause.

        The windows with no cue at all (the common case) are ruled out for every mention at once;
        only the rest are tokenised."""
        if not starts or not len(self.cues):
            return [False] * len(starts)
        at = np.asarray(starts, dtype=np.int64)
        clause_starts = np.concatenate(([0], self.clause_starts))  # 0: the answer's first clause
        clause_start = clause_starts[np.searchsorted(clause_starts, at, side="right") - 1]
        left = np.maximum(clause_start, at - _NEGATION_WINDOW)
        cue = np.searchsorted(self.cues, left, side="left")
        reach = cue < len(self.cues)
        reach[reach] = self.cues[cue[reach]] < at[reach]
        result = [False] * len(starts)
        for index in np.flatnonzero(reach).tolist():
            result[index] = self._negated(int(left[index]), starts[index])
        return result

    def negated_after(self, ends: list[int]) -> list[bool]:
        """For each mention end: is it denied after it in its clause, a negation word right before a serve,
        eat or spread word ("в Австрії її не їдять", "в России почти не едят", "not eaten in")? Mentions
        with no negation cue within reach are ruled out at once, as in `negations`."""
        if not ends or not len(self.cues):
            return [False] * len(ends)
        at = np.asarray(ends, dtype=np.int64)
        cue = np.searchsorted(self.cues, at, side="left")
        reach = cue < len(self.cues)
        reach[reach] = self.cues[cue[reach]] < at[reach] + _NEGATION_WINDOW // 2
        result = [False] * len(ends)
        for index in np.flatnonzero(reach).tolist():
            end = ends[index]
            window = self.text[end : end + _NEGATION_WINDOW // 2]
            stop = _CLAUSE_BREAK.search(window)
            words = _TOKEN.findall((window[: stop.start()] if stop else window).lower())
            for i, word in enumerate(words):
                if word in _NEGATION and any(_cues().spread.match(w) for w in words[i + 1 : i + 3]):
                    result[index] = True
                    break
        return result

    def _negated(self, left: int, start: int) -> bool:
        """A negation word among the last three words of text[left:start] (not "not only")."""
        window = self.text[left:start].lower()
        words = _TOKEN.findall(window)
        if left > 0 and words and window[:1].isalnum() and _is_word_char(self.text[left - 1]):
            words = words[1:]  # a word cut by the window's edge
        words = words[-3:]
        for i, word in enumerate(words):
            if word in _NEGATION or word.endswith("n't"):
                following = words[i + 1] if i + 1 < len(words) else ""
                if following not in _NOT_NEGATION_NEXT:
                    return True
        return False

    def sentences(self, indices: list[int]) -> np.ndarray:
        """The sentence holding each text index (-1: between sentences)."""
        at = np.asarray(indices, dtype=np.int64)
        starts, ends = self._sentence_bounds
        if not len(starts):
            return np.full(len(at), -1)
        position = np.searchsorted(starts, at, side="right") - 1
        inside = (position >= 0) & (at < ends[np.maximum(position, 0)])
        return np.where(inside, position, -1)

    def _sentences_of(self, matches) -> set[int]:
        return set(self.sentences([match.start() for match in matches]).tolist())

    def about_spread(self, indices: list[int]) -> list[bool]:
        """Is the sentence holding each index about where a dish spread to or is popular?"""
        if not self.spread:
            return [False] * len(indices)
        return [sentence in self.spread for sentence in self.sentences(indices).tolist()]

    @functools.cached_property
    def role_cues(self) -> tuple[np.ndarray, np.ndarray]:
        """Every spread, list and origin cue: start positions in order, and the kind of each (`_CUE_*`). A spread
        word inside an origin cue ("популяр" in "популяризировано", "popular" in "popularized") is the origin cue."""
        spread = _cue_matches(_cues().spread, self.text, self.lowered)
        if not spread:
            return _positions(()), np.zeros(0, dtype=np.int8)
        origin = [*self.origin_cues, *_finditer(_cues().claim, self.text, self.lowered)]
        if origin:
            # A spread cue inside an origin cue: the origin cues by start, each with the furthest end reached so far
            # (the two patterns' matches may overlap), one binary search per spread cue, for all at once.
            origin.sort(key=lambda match: match.start())
            origin_starts = _positions(match.start() for match in origin)
            reach = np.maximum.accumulate(_positions(match.end() for match in origin))
            at = _positions(match.start() for match in spread)
            last = np.searchsorted(origin_starts, at, side="right") - 1
            inside = (last >= 0) & (reach[np.maximum(last, 0)] > at)
            spread = [match for match, covered in zip(spread, inside.tolist(), strict=True) if not covered]
        starts = np.asarray([m.start() for m in spread] + [m.start() for m in origin], dtype=np.int64)
        kinds = np.asarray([_cue_kind(m.group()) for m in spread] + [_CUE_ORIGIN] * len(origin), dtype=np.int8)
        order = np.argsort(starts, kind="stable")
        return starts[order], kinds[order]

    def spread_roles(self, indices: list[int], claims: set[int] = frozenset()) -> list[bool]:
        """Is each mention (by start) in a spread role: the nearest spread or origin cue before it in its
        sentence (list introducers passed over) is a spread cue, or only list introducers stand before it,
        or, with no cue before it, the nearest one after it is a spread cue or a list introducer, unless the
        mention is a cuisine claim (`claims`: "блюдо русской кухни, популярное также…")? None without a spread
        cue anywhere."""
        starts, kinds = self.role_cues
        if not len(starts) or not indices:
            return [False] * len(indices)
        at = np.asarray(indices, dtype=np.int64)
        sentence = self.sentences(indices)
        cue_sentence = self.sentences(starts.tolist())
        before = np.searchsorted(starts, at, side="left") - 1
        # For each cue, the kind of the nearest cue at or before it in its sentence that is no list introducer (a
        # list introducer where only list introducers stand before it): one pass, not a walk back per mention.
        decisive = kinds.tolist()
        for index in range(1, len(decisive)):
            if decisive[index] == _CUE_LIST and cue_sentence[index - 1] == cue_sentence[index]:
                decisive[index] = decisive[index - 1]
        result = []
        for position, mention_sentence, previous in zip(at.tolist(), sentence.tolist(), before.tolist(), strict=True):
            if previous >= 0 and cue_sentence[previous] == mention_sentence:
                result.append(decisive[previous] != _CUE_ORIGIN)
                continue
            following = previous + 1
            if following < len(starts) and cue_sentence[following] == mention_sentence and starts[following] > position:
                result.append(bool(kinds[following] != _CUE_ORIGIN) and position not in claims)
                continue
            result.append(False)
        return result

    def origin_adjectives(self, claims: set[int]) -> set[int]:
        """The cuisine adjectives (by start) right before an origin word in their sentence, whatever cue stands
        before them: "имеет итальянское происхождение", "of Japanese origin" claim the origin even after
        "Популярное блюдо…". None without a spread cue anywhere (then nothing is spread)."""
        if not claims or not len(self.role_cues[0]):
            return set()
        origin_starts = _positions(m.start() for m in self.origin_cues)
        at = sorted(claims)
        following = np.searchsorted(origin_starts, at, side="right").tolist()
        return {
            start
            for start, cue in zip(at, following, strict=True)
            if cue < len(origin_starts)
            and origin_starts[cue] - start <= _ADJECTIVE_BEFORE_ORIGIN
            and _SENTENCE_END.search(self.text, start, int(origin_starts[cue])) is None
        }


def _positions(values) -> np.ndarray:
    return np.fromiter(values, dtype=np.int64)


@functools.lru_cache(maxsize=4096)
def _cue_kind(cue: str) -> int:
    """A spread cue's kind, by its text: a list introducer or a spread word."""
    return _CUE_LIST if _LIST_INTRO.fullmatch(cue) else _CUE_SPREAD


# How far an origin word may start after a cuisine adjective's start to be its noun ("итальянское происхождение").
_ADJECTIVE_BEFORE_ORIGIN = 32
# The kinds of cue that give a mention its role (`_Layout.role_cues`).
_CUE_SPREAD, _CUE_LIST, _CUE_ORIGIN = 0, 1, 2


def _origin_claims(spans: list[Span], layout: _Layout, spread: list[bool]) -> list[Span]:
    """Drop countries named only where the answer talks about spread, popularity or variations (`spread`: per
    mention), but only when the answer also claims a country as origin ("Деруни походять з Білорусі. Згодом
    вони поширилися в Україні…" -> BY). A country list after a claim short of a country (a region, a people,
    "traditional in", "typical of", "popularized in") is that claim's answer, not spread (`_cues().origin`,
    `_LIST_INTRO`): "from Eastern Europe, with variations in countries such as Poland, Ukraine" keeps both."""
    origin = [s for s, about_spread in zip(spans, spread, strict=True) if s.country and not about_spread]
    regions = [s.start for s, about_spread in zip(spans, spread, strict=True) if s.region and not about_spread]
    if not origin and regions:
        # No country claimed as origin, but a region is ("a dish from Eastern Europe", "Блюдо происходит из
        # Скандинавии. Его готовят в Швеции…"): every country the answer names is its answer, spread cues or not.
        origin = [s for s in spans if s.country]
    elif not origin and layout.origin_sentences:
        # No country and no region claimed, but an origin is stated ("происходит из Азии", "from the Crimean
        # Tatars"): the countries named in the sentences that state it are its answer ("…, таких как Китай,
        # Индия"), spread cues or not; elsewhere an origin word may be about something else ("mutton originates
        # from the shoulder").
        sentences = layout.sentences([s.start for s in spans]).tolist()
        origin = [s for s, at in zip(spans, sentences, strict=True) if s.country and at in layout.origin_sentences]
    if not origin:
        # Only spread sentences and no claim at all ("a popular dessert in many countries, including the UK,
        # Ireland and Australia"): the places the answer names are all it says about where the dish belongs, so they
        # are its answer (issue 38 counts a sentence about popularity dropped whole, when it is the only place the
        # answer names countries, as a miss).
        return spans
    stated = {s.country for s in origin}
    return [s for s in spans if s.country is None or s.country in stated]


def _answers(spans: list[Span], text: str, layout: _Layout, reading: str, claims: set[int]) -> list[Span]:
    """The mentions that answer the question asked (`reading`), after corrections.

    Each mention takes the role of the nearest cue before it in its sentence (spread or origin), else of
    the nearest after it (but a cuisine adjective before any cue, "блюдо русской кухни, популярное…",
    `claims`, is an origin claim), else origin. A `served` question keeps both roles (the country a dish
    comes from is one where it is eaten); an `origin` question keeps the origin claims (`_origin_claims`)."""
    correction = _search(_CORRECTION, text, layout.lowered)
    if correction and any(s.start >= correction.end() and s.country for s in spans):
        spans = [s for s in spans if s.start >= correction.start()]
    if reading == "served":
        return spans
    roles = layout.spread_roles([s.start for s in spans], claims)
    if not any(roles):
        return spans  # every mention is a claim
    origin_adjectives = layout.origin_adjectives(claims)
    roles = [spread and s.start not in origin_adjectives for s, spread in zip(spans, roles, strict=True)]
    return _origin_claims(spans, layout, roles)


def _located(text: str, start: int) -> bool:
    """Is an adjective a place ("в грузинских ресторанах", "in Italian restaurants"), not a cuisine claim?"""
    before = _TOKEN.findall(text[max(0, start - 12) : start].lower())[-1:]
    return bool(before) and before[0] in _LOCATIVE


_LOCATIVE = frozenset({"в", "у", "во", "на", "in", "at"})


def _names_a_language(text: str, start: int, end: int) -> bool:
    """ "in English", "на русском (языке)", "українською (мовою)": a language, not a cuisine."""
    after = _TOKEN.search(text, end, end + 20)  # the first word within 20 characters after the name
    if after is not None:
        if after.group().lower() in _LANGUAGE_NOUNS:
            return True
        if not _PUNCT_AFTER.match(text, end):
            return False
    before = _TOKEN.findall(text[max(0, start - 20) : start].lower())[-1:]
    if before and before[0] in _LANGUAGE_PREPOSITIONS and _LIST_AFTER.match(text, end):
        return False  # "in Chinese, Japanese, and Korean cooking": a list of cuisines, not a language
    return (bool(before) and before[0] in _LANGUAGE_PREPOSITIONS) or text[start:end].lower().endswith("ською")


_LIST_AFTER = re.compile(r",\s+[A-Z][\w-]*(?:,|\s+(?:and|or)\b)")


def _joined(text: str, index: int, step: int) -> bool:
    """Is text[index] (the neighbour of a match) part of the same word? An apostrophe only is when
    a letter follows it ("д'Івуар"), not when it quotes ("'Ethiopia'")."""
    if not 0 <= index < len(text):
        return False
    if text[index] == "'":
        if step == 1 and text[index + 1 : index + 2] == "s" and not _joined(text, index + 2, 1):
            return False  # the English possessive: "Singapore's famous dish"
        return 0 <= index + step < len(text) and text[index + step].isalpha()
    return _is_word_char(text[index])


@functools.lru_cache(maxsize=65536)
def _is_word_char(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char) in ("Mn", "Mc")


@functools.lru_cache(maxsize=4096)
def _no_space_script(char: str) -> bool:
    name = unicodedata.name(char, "")
    return name.startswith(_NO_SPACE_SCRIPTS)


# Elided articles and prepositions before a name: French l'Inde, d'Italie; Italian dell'Ecuador,
# l'Austria; Sardinian s'India; Catalan d'Espanya.
_ELISIONS = frozenset(
    {"l", "d", "s", "dell", "dall", "nell", "sull", "all", "coll", "un", "qu", "jusqu", "lorsqu", "puisqu"}
)


def _elided(folded: str, start: int) -> bool:
    """Is the name preceded by an elided article or preposition ("l'Inde", "dell'Ecuador")?"""
    if start < 2 or folded[start - 1] != "'":
        return False
    left = start - 1
    while left > 0 and folded[left - 1].isalpha():
        left -= 1
    return folded[left : start - 1] in _ELISIONS and (left == 0 or not _is_word_char(folded[left - 1]))


def _is_katakana(char: str) -> bool:
    return "\u30a0" <= char <= "\u30ff" or char == "ー"


def _is_hangul(char: str) -> bool:
    return "\uac00" <= char <= "\ud7a3"
