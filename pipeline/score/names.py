"""Scoring what a model calls a dish, by each benchmark's own rule, and which dish it named.

An answer ("Это борщ.", "Borscht", "Kenchinjiru") is read into candidate names by the
`dish_names` extractor; the gold is every accepted name of the dish in the prompt's language or in
English, plus the string the dataset itself gives as the answer (WorldCuisines' `answer` in the
prompt language). Each rule is a registered metric over (`NameAnswer`, `NameGold`) -> 0..1:

- `name_exact`: a candidate equals an accepted name after `norm_name`;
- `name_lev1` (BORSch): within one Levenshtein edit of an accepted name (`metrics.name_match`);
- `name_stem` (ZNO-Vision/UACUISINE): the same set of word stems — pymorphy3 lemmas for Russian and
  Ukrainian, the Snowball stemmer of the language where one exists, the word itself otherwise;
- `name_similarity` (CultureMix): the best similarity of a candidate with an accepted name (0-1) by
  CultureMix's food-match rule, the project's only one (`food_match.food_similarity`, right
  at `SIMILARITY_THRESHOLD` = its `FOOD_THRESHOLD`; `FOOD_RULE` states it);
- `name_paper` (WorldCuisines' score.py): the gold string, lower-cased, occurs in the lower-cased
  answer — including that rule's known failures (a gold written in another script never matches).

`score_name` computes all of them at once and keeps which accepted name matched (and by which
rule); `NameIndex.named_dish` finds the knowledge-base dish an answer names when it is not the gold.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.core.morph import MORPH_LANGS
from pipeline.core.morph import analyzer as _morph
from pipeline.core.text import norm_name
from pipeline.score.food_match import FOOD_THRESHOLD, food_similarity
from pipeline.score.metrics import WORD_RE, metric, paper_substring, within_edits

SIMILARITY_THRESHOLD = FOOD_THRESHOLD  # CultureMix's food-match rule (§3.1), the one fuzzy acceptance of a name
_CYRILLIC_LETTER = re.compile("[а-яёіїєґ]")
RULES = ("exact", "lev1", "stem", "similarity", "paper")
SNOWBALL = {
    "ar": "arabic", "ca": "catalan", "cs": "czech", "da": "danish", "de": "german", "el": "greek",
    "en": "english", "es": "spanish", "eu": "basque", "fi": "finnish", "fr": "french", "hi": "hindi",
    "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian", "lt": "lithuanian",
    "ne": "nepali", "nl": "dutch", "no": "norwegian", "nb": "norwegian", "fa": "persian", "pl": "polish",
    "pt": "portuguese", "ro": "romanian", "sr": "serbian", "sv": "swedish", "ta": "tamil", "tr": "turkish",
    "ga": "irish", "et": "estonian",
}  # fmt: skip


@functools.cache
def base_lang(lang: str) -> str:
    """'ru_formal' -> 'ru', 'zh_cn' -> 'zh', 'en' -> 'en'."""
    return lang.split("_", 1)[0].lower()


@dataclass(frozen=True)
class AcceptedName:
    name: str
    lang: str


@dataclass(frozen=True)
class NameGold:
    """What an answer about one dish is compared with: its accepted names (prompt language and
    English) and the dataset's own gold string for the paper rule."""

    names: tuple[AcceptedName, ...]
    paper: str | None = None


@dataclass(frozen=True)
class NameAnswer:
    text: str | None
    candidates: tuple[str, ...]
    lang: str  # prompt language ('ru_formal', 'uk', ...)


@dataclass(frozen=True)
class NameScore:
    exact: float
    lev1: float
    stem: float
    similarity: float
    paper: float
    matched_name: str | None = None
    matched_lang: str | None = None
    matched_rule: str | None = None


# --- stems -----------------------------------------------------------------------------------


@functools.cache
def _snowball(algorithm: str):
    import snowballstemmer

    return snowballstemmer.stemmer(algorithm)


@functools.lru_cache(maxsize=1 << 18)
def stem_word(word: str, lang: str) -> str:
    """A normalised word's stem in `lang` (base code): lemma, Snowball stem, or the word itself."""
    if lang in MORPH_LANGS:
        return _morph(lang).parse(word)[0].normal_form.replace("ё", "е")
    if lang in SNOWBALL:
        return _snowball(SNOWBALL[lang]).stemWord(word)
    return word


@functools.lru_cache(maxsize=1 << 18)
def stems(text: str, lang: str) -> frozenset[str]:
    """The set of word stems of `text` (a Cyrillic word in a non-ru/uk prompt is lemmatised as Russian)."""
    code = base_lang(lang)
    out = set()
    for word in WORD_RE.findall(_norm(text)):  # metrics.tokenize, on the cached normal form
        word_lang = code
        if code not in MORPH_LANGS and _CYRILLIC_LETTER.search(word):
            word_lang = "ru"
        out.add(stem_word(word, word_lang))
    return frozenset(out)


@functools.lru_cache(maxsize=1 << 18)
def _norm(name: str) -> str:
    """norm_name, cached: scoring compares each candidate with every accepted name under several rules."""
    return norm_name(name)


# --- the rules -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1 << 18)
def _food_similarity(candidate: str, accepted: str) -> float:
    """CultureMix's food-match similarity of one pair of names, cached (answers repeat their names)."""
    return food_similarity(candidate, accepted)


@functools.lru_cache(maxsize=1 << 18)
def _within_one_edit(candidate: str, accepted: str) -> float:
    """BORSch's rule (`metrics.name_match`) on one pair of names, on their cached normal forms."""
    predicted, gold = _norm(candidate), _norm(accepted)
    return 1.0 if predicted and gold and (predicted == gold or within_edits(predicted, gold)) else 0.0


def _paper(prediction: str | None, gold: str | None) -> float:
    """WorldCuisines' own rule (metrics.paper_substring); an answer with no gold string is not right."""
    return 0.0 if gold is None else paper_substring(prediction, gold)


def score_name(answer: NameAnswer, gold: NameGold) -> NameScore:
    """Every rule at once, and the accepted name the answer matched under the strictest rule."""
    candidates = [c for c in answer.candidates if _norm(c)]
    matched: tuple[AcceptedName, str] | None = None
    exact = lev1 = stem = 0.0
    best_similarity, similar_name = 0.0, None
    prompt_lang = base_lang(answer.lang)
    for accepted in gold.names:
        for candidate in candidates:
            if _norm(candidate) == _norm(accepted.name):
                exact = lev1 = 1.0
                matched = matched if matched and matched[1] == "exact" else (accepted, "exact")
            elif _within_one_edit(candidate, accepted.name):
                lev1 = 1.0
                matched = matched or (accepted, "lev1")
            similarity = _food_similarity(candidate, accepted.name)
            if similarity > best_similarity:
                best_similarity, similar_name = similarity, accepted
    candidate_stems = {stems(c, answer.lang) for c in candidates}  # once, not once per accepted name
    for accepted in gold.names:
        gold_stems = stems(accepted.name, accepted.lang if accepted.lang != "en" else prompt_lang)
        if gold_stems and gold_stems in candidate_stems:
            stem = 1.0
            matched = matched or (accepted, "stem")
            break
    paper = _paper(answer.text, gold.paper)
    if matched is None and similar_name is not None and best_similarity >= SIMILARITY_THRESHOLD:
        matched = (similar_name, "similarity")
    if matched is None and paper:
        paper_lang = next((n.lang for n in gold.names if n.name == gold.paper), None)
        matched = (AcceptedName(gold.paper or "", paper_lang or prompt_lang), "paper")
    return NameScore(
        exact=exact,
        lev1=lev1,
        stem=stem,
        similarity=round(best_similarity, 4),
        paper=paper,
        matched_name=matched[0].name if matched else None,
        matched_lang=matched[0].lang if matched else None,
        matched_rule=matched[1] if matched else None,
    )


@metric("name_exact")
def name_exact(answer: NameAnswer, gold: NameGold) -> float:
    """1 if a candidate name equals an accepted name after normalisation."""
    return score_name(answer, gold).exact


@metric("name_lev1")
def name_lev1(answer: NameAnswer, gold: NameGold) -> float:
    """BORSch: 1 if a candidate is within one Levenshtein edit of an accepted name."""
    return score_name(answer, gold).lev1


@metric("name_stem")
def name_stem(answer: NameAnswer, gold: NameGold) -> float:
    """UACUISINE: 1 if a candidate has the same set of stems (lemmas) as an accepted name."""
    return score_name(answer, gold).stem


@metric("name_similarity")
def name_similarity(answer: NameAnswer, gold: NameGold) -> float:
    """CultureMix: the best food-match similarity of a candidate with an accepted name (0-1)."""
    return score_name(answer, gold).similarity


@metric("name_paper")
def name_paper(answer: NameAnswer, gold: NameGold) -> float:
    """WorldCuisines: 1 if the dataset's gold string occurs in the answer (case-insensitive)."""
    return score_name(answer, gold).paper


@metric("name_contains_lev1")
def name_contains_lev1(answer: NameAnswer, gold: NameGold) -> float:
    """BORSch as published (Appendix I, §4.2): 1 if the answer *contains* an accepted name within one edit (any
    stretch of the normalised answer at most one Levenshtein edit from the name), not only as a whole candidate."""
    text = _norm(answer.text or "")[:_CONTAINS_LIMIT]
    return float(any(_contains_within_one_edit(text, _norm(accepted.name)) for accepted in gold.names))


@metric("name_stem_exact")
def name_stem_exact(answer: NameAnswer, gold: NameGold) -> float:
    """UACUISINE Q1-Q3 as published (ZNO-Vision Appendix C, Eq. 1: EM(y, ŷ) = 1(y = ŷ) "on the stem level"): the
    *whole* answer against an accepted name, word for word up to stems ("Борщ" is right, "Це борщ" is not). Ours,
    `name_stem`, matches a candidate name found in the answer. NaN when the dish has no accepted name."""
    from pipeline.score.uacuisine_paper import stem_exact

    values = [v for v in (stem_exact(answer.text, accepted.name) for accepted in gold.names) if v == v]
    return max(values) if values else float("nan")


_CONTAINS_LIMIT = 20_000  # characters of an answer searched (200 new tokens are far fewer)


def _contains_within_one_edit(text: str, name: str) -> bool:
    if not name or not text:
        return False
    if name in text:
        return True
    from rapidfuzz.distance import Levenshtein

    for size in (len(name) - 1, len(name), len(name) + 1):
        if size < 1:
            continue
        for start in range(len(text) - size + 1):
            if Levenshtein.distance(name, text[start : start + size], score_cutoff=1) <= 1:
                return True
    return False


NAME_METRICS = {rule: f"name_{rule}" for rule in RULES}


# --- which dish an answer names --------------------------------------------------------------


class NameIndex:
    """Every name of every dish in the warehouse, to tell which dish an answer names."""

    def __init__(self, rows: Iterable[tuple[str, str, str, str]]) -> None:
        """`rows`: (dish_key, lang, name, norm_name)."""
        self._by_norm: dict[str, list[tuple[str, str, str]]] = {}
        for dish_key, lang, name, norm in rows:
            if norm:
                self._by_norm.setdefault(norm, []).append((dish_key, lang, name))

    def named_dish(self, candidates: Sequence[str], lang: str, prefer: Sequence[str] = ()) -> tuple[str, str] | None:
        """(dish_key, name) of the first candidate that is a known dish name: among several dishes
        with that name, one in `prefer` (the gold dish and its links), then one named in the prompt
        language, then English, then any (in key order)."""
        code = base_lang(lang)
        for candidate in candidates:
            found = self._by_norm.get(_norm(candidate))
            if not found:
                continue
            ranked = sorted(
                found,
                key=lambda f: (f[0] not in prefer, f[1] != code, f[1] != "en", f[0]),
            )
            return ranked[0][0], candidate
        return None


# --- the score stage's view --------------------------------------------------------------------


class NamesContext:
    """What the score stage needs to score dish-name answers: the name index and the dish links."""

    def __init__(self, index: NameIndex, links: dict[str, set[str]]) -> None:
        self.index = index
        self.links = links

    @classmethod
    def load(cls, con) -> NamesContext:
        rows = con.execute("SELECT dish_key, lang, name, norm_name FROM core.dish_names ORDER BY dish_key").fetchall()
        links: dict[str, set[str]] = {}
        for a, b in con.execute("SELECT dish_key, linked_dish_key FROM core.dish_links WHERE score >= 0.5").fetchall():
            links.setdefault(a, set()).add(b)
        return cls(NameIndex(rows), links)

    def score(
        self,
        generation_id: str,
        response: str | None,
        lang: str,
        candidates: Sequence[str],
        gold: dict,
        metrics: dict,
    ) -> tuple[dict[str, float], dict]:
        """(metric values by declared metric name, the core.name_matches row) of one answer."""
        answer = NameAnswer(response, tuple(candidates), lang)
        accepted = [AcceptedName(n["name"], n["lang"]) for n in gold["names"]]
        if gold.get("paper") and all(a.name != gold["paper"] for a in accepted):
            accepted.append(AcceptedName(gold["paper"], base_lang(lang)))
        name_gold = NameGold(tuple(accepted), gold.get("paper"))
        result = score_name(answer, name_gold)
        by_metric = {f"name_{rule}": getattr(result, rule) for rule in RULES}
        values = {
            name: float(by_metric[name]) if name in by_metric else float(fn(answer, name_gold))
            for name, fn in metrics.items()
        }
        gold_key = gold.get("dish_key")
        if result.matched_rule in ("exact", "lev1", "stem") and gold_key:
            named = (gold_key, result.matched_name)
        else:
            named = self.index.named_dish(candidates, lang, prefer=[gold_key, *sorted(self.links.get(gold_key, ()))])
        return values, {
            "generation_id": generation_id,
            "matched_name": result.matched_name,
            "matched_lang": result.matched_lang,
            "matched_rule": result.matched_rule,
            "named_dish_key": named[0] if named else None,
            "named_name": named[1] if named else None,
            "candidates": list(candidates),
        }
