"""Language switching: is an answer written in the prompt's language, in another, or in a mix?

An answer is cut into segments where its script changes and at sentence ends; each segment gets a
language: by its script where the script says it (Hangul is Korean, kana Japanese, Thai, Sinhala,
Bengali, Arabic), by the letters only one of Ukrainian and Russian has (і ї є ґ vs ы э ъ ё), and by
lingua among the candidates of its script otherwise; a short Cyrillic segment with neither kind of letter
("Борщ") is in the prompt's language when that is Russian or Ukrainian. Short segments ("Italia") are ambiguous
between related languages: there the prompt's own language wins when lingua finds it at least a third
as likely as its first choice, so only a clear switch counts as one. Prompt languages lingua does
not know (Javanese, Sundanese, Sardinian, Min Nan, Cantonese, Sinhala) are recognised by script,
and a Latin-script segment in such a prompt counts as a switch only to English: where function words say so, or
where lingua, given enough letters, takes it for English.

`analyse` returns the segments (with character offsets into the answer), the language holding most
of the letters, and a kind: `prompt`, `other`, `mixed` (the minority language holds at least 15% of
the letters), or `empty` (no letters: "2", "", a refusal emoji).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lingua import Language, LanguageDetector, LanguageDetectorBuilder

from pipeline.extract.gazetteer import lookup

DETECTOR = "switching@2"  # @2: English told apart in prompt languages lingua does not know; short Cyrillic words
MIXED_SHARE = 0.15
SHORT = 25  # letters: below this, lingua's verdict on a text alone is weak ("Italia", "Hot dog", "Борщ")

# Prompt language code (WorldCuisines variants included) -> ISO 639 code of the language asked in.
_BASE = {"si_formal_spoken": "si", "su_loma": "su", "zh_cn": "zh", "nan_spoken": "nan"}
_LINGUA = {
    "ar": Language.ARABIC,
    "az": Language.AZERBAIJANI,
    "bn": Language.BENGALI,
    "cs": Language.CZECH,
    "de": Language.GERMAN,
    "en": Language.ENGLISH,
    "es": Language.SPANISH,
    "fr": Language.FRENCH,
    "hi": Language.HINDI,
    "id": Language.INDONESIAN,
    "it": Language.ITALIAN,
    "ja": Language.JAPANESE,
    "ko": Language.KOREAN,
    "mr": Language.MARATHI,
    "ms": Language.MALAY,
    "pt": Language.PORTUGUESE,
    "ru": Language.RUSSIAN,
    "th": Language.THAI,
    "tl": Language.TAGALOG,
    "uk": Language.UKRAINIAN,
    "yo": Language.YORUBA,
    "zh": Language.CHINESE,
}
LINGUA_LANGUAGES = frozenset(_LINGUA.values())  # every language this detector may ask lingua about
_CODE = {language: code for code, language in _LINGUA.items()}
_LATIN_CANDIDATES = ("en", "es", "fr", "it", "id", "tl", "az", "cs", "yo", "de", "pt", "ms")
_HAN_LANGS = ("zh", "yue", "nan")  # written in Han characters; lingua cannot tell them apart
_UKRAINIAN_ONLY = re.compile(r"[іїєґІЇЄҐ]")
_RUSSIAN_ONLY = re.compile(r"[ыэёъЫЭЁЪ]")
_SENTENCE_END = re.compile(r"[.!?。！？\n]")
# `_runs` of an ASCII text (most answers): from the first to the last letter between two sentence ends.
_ASCII_RUN = re.compile(r"[A-Za-z](?:[^.!?\n]*[A-Za-z])?")


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    lang: str

    def as_dict(self) -> dict:
        return {"start": self.start, "end": self.end, "lang": self.lang}


@dataclass(frozen=True)
class Switching:
    prompt_lang: str
    answer_lang: str | None
    kind: str  # prompt | other | mixed | empty
    segments: tuple[Segment, ...]

    @property
    def switched(self) -> bool | None:
        return None if self.kind == "empty" else self.kind != "prompt"


def base_language(prompt_lang: str) -> str:
    """'ru_formal' -> 'ru', 'si_formal_spoken' -> 'si', 'zh_cn' -> 'zh'."""
    code = prompt_lang.strip().lower().replace("-", "_")
    return _BASE.get(code, code.split("_")[0])


@functools.cache
def _script(char: str) -> str | None:
    """The script of one character; cached, as answers draw on a few thousand characters while the Unicode name
    lookup and the searches in it cost microseconds per character."""
    if unicodedata.category(char).startswith("M"):
        return "MARK"  # a vowel sign or accent: part of the letter before it
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    for script in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "ARABIC", "DEVANAGARI", "BENGALI", "SINHALA"):
        if name.startswith(script) or f" {script} " in f" {name} ":
            return "KANA" if script in ("HIRAGANA", "KATAKANA") else script
    if "CYRILLIC" in name:
        return "CYRILLIC"
    if "LATIN" in name:
        return "LATIN"
    return "OTHER"


def _runs(text: str) -> list[tuple[int, int, str]]:
    """(start, end, script) runs: letters of one script, with what lies between them, cut at sentence
    ends; Han and kana stay together (Japanese mixes them)."""
    if text.isascii():  # one regular expression instead of a loop over the characters (same runs)
        return [(match.start(), match.end(), "LATIN") for match in _ASCII_RUN.finditer(text)]
    return _runs_by_character(text)


def _runs_by_character(text: str) -> list[tuple[int, int, str]]:
    """`_runs` of any text, character by character."""
    runs: list[list] = []
    for index, char in enumerate(text):
        script = _script(char)
        if script in ("CJK", "KANA"):
            script = "CJK"
        if script == "MARK":
            if runs:
                runs[-1][1] = index + 1
            continue
        if script is None:
            if runs and _SENTENCE_END.match(char):
                runs[-1][3] = True  # the run ends here
            continue
        if runs and runs[-1][2] == script and not runs[-1][3]:
            runs[-1][1] = index + 1
        else:
            runs.append([index, index + 1, script, False])
    return [(start, end, script) for start, end, script, _ in runs]


@functools.cache
def _detector(codes: tuple[str, ...]) -> LanguageDetector:
    return LanguageDetectorBuilder.from_languages(*(_LINGUA[c] for c in codes)).build()


Confidences = Callable[[str, tuple[str, ...]], list]


def _confidences(text: str, candidates: tuple[str, ...]) -> list:
    """lingua's confidence values for `text` among `candidates`, most likely first."""
    return _detector(candidates).compute_language_confidence_values(text)


def _short(text: str) -> bool:
    """Fewer than SHORT letters: too few for lingua's verdict on the text alone."""
    return sum(map(str.isalpha, text)) < SHORT


def _choose(text: str, candidates: tuple[str, ...], prompt: str, confidences: Confidences = _confidences) -> str:
    """lingua's language among `candidates`; on a short text the prompt's language, then English (the
    usual switch), wins when lingua finds it at least a third as likely as its first choice."""
    values = confidences(text, candidates)
    if not values or values[0].value == 0:
        return prompt if prompt in candidates else candidates[0]
    top = _CODE[values[0].language]
    if _short(text):
        confidence = {_CODE[v.language]: v.value for v in values}
        for preferred in (prompt, "en"):
            if preferred in candidates and confidence.get(preferred, 0.0) >= values[0].value / 3:
                return preferred
    return top


def _segment_language(
    text: str, script: str, prompt: str, latin_prompt: bool, confidences: Confidences = _confidences
) -> str:
    if script == "CJK":
        if any(_script(ch) == "KANA" for ch in text):
            return "ja"
        return prompt if prompt in (*_HAN_LANGS, "ja") else "zh"
    simple = {"HANGUL": "ko", "THAI": "th", "ARABIC": "ar", "BENGALI": "bn", "SINHALA": "si"}
    if script in simple:
        return simple[script]
    if script == "DEVANAGARI":
        return _choose(text, ("hi", "mr"), prompt, confidences) if prompt in ("hi", "mr") else "hi"
    if script == "CYRILLIC":
        uk, ru = bool(_UKRAINIAN_ONLY.search(text)), bool(_RUSSIAN_ONLY.search(text))
        if uk != ru:
            return "uk" if uk else "ru"
        if not uk and prompt in ("ru", "uk") and _short(text):
            # No letter tells them apart and too few words to: "Борщ" is the prompt's language, not a switch (lingua
            # gives "Борщ" to Russian with confidence 1.0 and Ukrainian 0.0)
            return prompt
        return _choose(text, ("ru", "uk"), prompt, confidences)
    if script == "LATIN":
        if prompt != "en" and _looks_english(text):
            return "en"
        if prompt in _LATIN_CANDIDATES or not latin_prompt:
            return _choose(text, _LATIN_CANDIDATES, prompt, confidences)
        # A Latin-script prompt language lingua does not know (Javanese, Sundanese, Sardinian, Min Nan
        # in romanisation): only English is told apart from it, on enough letters.
        return "en" if _english_to_lingua(text, confidences) else prompt
    return "other"


_ENGLISH_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "is",
        "it",
        "its",
        "this",
        "that",
        "dish",
        "food",
        "from",
        "of",
        "and",
        "in",
        "country",
        "cuisine",
        "originated",
        "popular",
        "which",
        "was",
        "are",
    ]
)


def _looks_english(text: str) -> bool:
    """English function words make up much of it ("It is Italian", "The dish is from Indonesia"): lingua
    is unsure on a few words, and a Latin-script language it does not know would otherwise hide English."""
    words = re.findall(r"[a-z']+", text.lower())
    return len(words) >= 2 and sum(w in _ENGLISH_WORDS for w in words) >= max(2, 0.4 * len(words))


# In a prompt language lingua does not know, a Latin segment of SHORT letters or more is English where lingua's
# first choice among the Latin candidates is English. Measured on the segments of 4,000 demo answers to Javanese,
# Sundanese, Sardinian and Min Nan prompts that function words alone left to the prompt: lingua chose English for
# 1,791, and each of 80 sampled across its confidence values (0.3 to 1) was English ("The image shows a plate of
# fried potato slices"); it chose another language for 908, which were Javanese, Sundanese, Sardinian, Italian or
# Indonesian in the samples ("Panganan iki yaiku thepla"). Below SHORT ("Hot dog", "Rendang") nothing is sure.
def _english_to_lingua(text: str, confidences: Confidences) -> bool:
    """Whether lingua's first choice for a long enough Latin-script text, among every Latin candidate, is English."""
    if _short(text):
        return False
    values = confidences(text, _LATIN_CANDIDATES)
    return bool(values) and values[0].value > 0 and _CODE[values[0].language] == "en"


# Prompt languages lingua does not know that are written in Latin letters.
_LATIN_UNKNOWN = frozenset({"jv_krama", "jv_ngoko", "jv", "su_loma", "su", "sc", "nan_spoken"})


def _named(text: str, prompt: str, prompt_code: str) -> str | None:
    """A short segment that is a place name as the gazetteer writes it in the prompt's language, or in
    English ("Italia" is Spanish in a Spanish answer, "Italy" is English): lingua cannot judge one word."""
    words = text.strip(" .,;:!?()\"'«»*-").split()
    if not words or len(words) > 3:
        return None
    phrase = " ".join(words)
    try:
        if lookup(phrase, prompt_code) is not None:
            return prompt
    except Exception:  # babel UnknownLocaleError: the gazetteer has no names in that language
        pass
    return "en" if lookup(phrase, "en") is not None else None


@functools.lru_cache(maxsize=1 << 17)
def analyse(text: str | None, prompt_lang: str) -> Switching:
    """The language of each segment of an answer, and whether it switched from the prompt's."""
    return _analyse(text, prompt_lang, _confidences)


def analyse_many(answers: Sequence[tuple[str | None, str]]) -> list[Switching]:
    """`analyse` of each (text, prompt language), with lingua's share of the work (most of it) sent in one batch
    per candidate set, which lingua spreads over the cores. A first pass only records which segments lingua must
    judge: which ones it is asked about depends on the segments' scripts and names, never on its answers."""
    asked: dict[tuple[str, ...], dict[str, None]] = {}
    questions = 0

    def record(text: str, candidates: tuple[str, ...]) -> list:
        nonlocal questions
        questions += 1
        asked.setdefault(candidates, {})[text] = None
        return []

    settled: list[Switching | None] = []  # an answer no segment of which went to lingua is final after one pass
    for text, prompt_lang in answers:
        before = questions
        first = _analyse(text, prompt_lang, record)
        settled.append(first if questions == before else None)
    found: dict[tuple[str, tuple[str, ...]], list] = {}
    for candidates, texts in asked.items():
        values = _detector(candidates).compute_language_confidence_values_in_parallel(list(texts))
        found.update(((text, candidates), value) for text, value in zip(texts, values, strict=True))
    return [
        first if first is not None else _analyse(text, prompt_lang, lambda t, c: found[t, c])
        for (text, prompt_lang), first in zip(answers, settled, strict=True)
    ]


def _analyse(text: str | None, prompt_lang: str, confidences: Confidences) -> Switching:
    prompt = base_language(prompt_lang)
    latin_prompt = prompt in _LATIN_CANDIDATES or prompt_lang.strip().lower() in _LATIN_UNKNOWN
    segments: list[Segment] = []
    for start, end, script in _runs(text or ""):
        piece = text[start:end]
        lang = _named(piece, prompt, prompt_lang) or _segment_language(piece, script, prompt, latin_prompt, confidences)
        if segments and segments[-1].lang == lang:
            segments[-1] = Segment(segments[-1].start, end, lang)
        else:
            segments.append(Segment(start, end, lang))
    if not segments:
        return Switching(prompt, None, "empty", ())
    letters: dict[str, int] = {}
    for segment in segments:
        count = sum(map(str.isalpha, text[segment.start : segment.end]))
        letters[segment.lang] = letters.get(segment.lang, 0) + count
    total = sum(letters.values())
    answer_lang = max(letters, key=lambda lang: (letters[lang], lang == prompt))
    in_prompt = letters.get(prompt, 0)
    if in_prompt == total:
        kind = "prompt"
    elif in_prompt == 0 or in_prompt < MIXED_SHARE * total:
        kind = "other"
    elif total - in_prompt >= MIXED_SHARE * total:
        kind = "mixed"
    else:
        kind = "prompt"
    return Switching(prompt, answer_lang, kind, tuple(segments))
