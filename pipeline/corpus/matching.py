"""One batch of documents: fold it, find every name in one Hyperscan pass, count documents per target.

A document counts once per target however often it names it. A dish counts "with a true country" when the same
document names one of its origins, "with any country" when it names any country; a country name inside a longer dish
name ("український борщ") is no country mention. Review samples are sentences naming a dish and a country that is not
one of its origins, cut from the original text.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from pipeline.corpus.compiled import Folder
from pipeline.corpus.fold import SPACE, UPPER, Folded
from pipeline.corpus.patterns import COUNTRY, DISH, Literals, PatternSet

MAX_SAMPLES = 3
MAX_SENTENCE_CHARS = 1000
# Documents decoded per dish and batch in search of a sample sentence: a dish often named near other countries but
# never in the same sentence costs no more than that.
SAMPLE_TRIES = 4 * MAX_SAMPLES
_SENTENCE_END = re.compile(r"(?:[.!?]|…)+(?=\s)|\n")


@dataclass
class Batch:
    """Documents as given (samples are cut from them) and folded (matching runs on that)."""

    column: pa.Array
    folded: Folded


def fold_column(folder: Folder, column: pa.Array | pa.ChunkedArray) -> Batch:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count:
        column = column.fill_null("")
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        column = column.cast(pa.large_string())
    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    buffers = column.buffers()
    offsets = np.frombuffer(buffers[1], dtype=width)[column.offset : column.offset + len(column) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    return Batch(column, folder(data, offsets.astype(np.int64)))


@dataclass
class Matches:
    """Whole-word matches, in document order: document, literal, and the folded span [first, last) of the name."""

    doc: np.ndarray
    literal: np.ndarray
    first: np.ndarray
    last: np.ndarray


_THREAD = threading.local()


def _scratch(database):
    """This thread's Hyperscan scratch space for `database`: a scan needs one of its own (shards are scanned by
    several threads at once)."""
    found = getattr(_THREAD, "scratch", None)
    if found is None or found[0] is not database:
        import hyperscan

        found = _THREAD.scratch = (database, hyperscan.Scratch(database))
    return found[1]


def find_matches(literals: Literals, folded: Folded) -> Matches:
    ids: list[int] = []
    ends: list[int] = []

    def on_match(literal_id: int, _from: int, to: int, _flags: int, _context) -> None:
        ids.append(literal_id)
        ends.append(to)

    literals.database.scan(folded.text.data, match_event_handler=on_match, scratch=_scratch(literals.database))
    literal = np.array(ids, dtype=np.int64)
    end = np.array(ends, dtype=np.int64)
    first = end - literals.length[literal] + 1  # the framing spaces are not part of the name
    last = end - 1
    keep = _case_ok(literals, folded, literal, first, last)
    first, last, literal = first[keep], last[keep], literal[keep]
    doc = np.searchsorted(folded.starts, first, side="right") - 1
    return Matches(doc, literal, first, last)


def _case_ok(literals: Literals, folded: Folded, literal, first, last) -> np.ndarray:
    """Case-sensitive names: capitalised ones need an upper-case first letter, acronyms upper case throughout."""
    ok = np.ones(len(literal), dtype=bool)
    capitalised = np.flatnonzero(literals.capitalised[literal])
    ok[capitalised] = (folded.case[first[capitalised]] & UPPER) != 0
    acronym = np.flatnonzero(literals.acronym[literal])
    if len(acronym):
        span = last[acronym] - first[acronym]
        good = np.ones(len(acronym), dtype=bool)
        for k in range(int(span.max())):
            pos = first[acronym] + np.minimum(k, span - 1)
            upper = (folded.case[pos] & UPPER) != 0
            good &= (k >= span) | (folded.text[pos] == SPACE) | upper
        ok[acronym] = good
    return ok


def _expand(starts: np.ndarray, flat: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR lookup: for each of `rows`, its values; returns (row position repeated, values)."""
    lengths = starts[rows + 1] - starts[rows]
    rep = np.repeat(np.arange(len(rows)), lengths)
    first = np.repeat(starts[rows], lengths)
    within = np.arange(len(rep)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return rep, flat[first + within]


def _inside_longer_dish(doc, first, last, kind) -> np.ndarray:
    """Country matches that lie inside a longer dish match of the same document."""
    inside = np.zeros(len(kind), dtype=bool)
    dish, country = kind == DISH, np.flatnonzero(kind == COUNTRY)
    if not dish.any() or not len(country):
        return inside
    big = int(last.max()) + 1
    d_key = doc[dish] * big + first[dish]
    order = np.argsort(d_key, kind="stable")
    d_key, d_doc = d_key[order], doc[dish][order]
    reach = np.maximum.accumulate(d_doc * big + last[dish][order]) - d_doc * big  # furthest end so far in the doc
    c_doc, c_first, c_last = doc[country], first[country], last[country]
    c_key = c_doc * big + c_first
    found = np.zeros(len(country), dtype=bool)
    # a dish starting before the country and reaching its end, or starting with it and reaching past it
    for side, longer in (("left", c_last), ("right", c_last + 1)):
        at = np.searchsorted(d_key, c_key, side=side) - 1
        valid = at >= 0
        at = np.maximum(at, 0)
        found |= valid & (d_doc[at] == c_doc) & (reach[at] >= longer)
    inside[country] = found
    return inside


@dataclass
class Counts:
    """Per target: documents naming it, and (dishes) naming it with a true-origin / any country; samples."""

    n_targets: int
    docs: np.ndarray = field(init=False)
    true_country: np.ndarray = field(init=False)
    any_country: np.ndarray = field(init=False)
    # BORSch §4.3's ratio is by mentions: per dish, the (document, country) pairs of the documents naming it, those
    # with a true origin and all of them (a document naming the dish, Ukraine and Poland adds 1 and 2 for a
    # Ukrainian dish).
    true_mentions: np.ndarray = field(init=False)
    any_mentions: np.ndarray = field(init=False)
    samples: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.docs = np.zeros(self.n_targets, dtype=np.int64)
        self.true_country = np.zeros(self.n_targets, dtype=np.int64)
        self.any_country = np.zeros(self.n_targets, dtype=np.int64)
        self.true_mentions = np.zeros(self.n_targets, dtype=np.int64)
        self.any_mentions = np.zeros(self.n_targets, dtype=np.int64)


@dataclass
class SampleContext:
    """Where samples come from (stored with them), and how many each dish has: `kept` by the shards before this one
    (it may grow during the scan, as shards scanned at the same time are written: fewer needless samples are cut),
    and `found` in this shard so far."""

    shard: str
    checksum: str
    kept: Mapping[int, int]
    doc_base: int = 0
    found: dict[int, int] = field(default_factory=dict)

    def wants(self, dish: int) -> bool:
        return self.kept.get(dish, 0) + self.found.get(dish, 0) < MAX_SAMPLES


def count_batch(patterns: PatternSet, batch: Batch, counts: Counts, context: SampleContext) -> None:
    literals = patterns.literals
    found = find_matches(literals, batch.folded)
    if not len(found.doc):
        return
    kinds = patterns.kinds
    rep, target = _expand(*literals.targets, found.literal)
    m_doc, m_first, m_last = found.doc[rep], found.first[rep], found.last[rep]
    keep = ~_inside_longer_dish(m_doc, m_first, m_last, kinds[target])
    target, m_doc, m_first = target[keep], m_doc[keep], m_first[keep]
    n_targets = len(patterns.targets)
    pairs = np.unique(m_doc * n_targets + target)
    p_doc, p_target = pairs // n_targets, pairs % n_targets
    counts.docs += np.bincount(p_target, minlength=n_targets)
    p_kind = kinds[p_target]
    country_keys = pairs[p_kind == COUNTRY]
    docs_with_country = np.unique(p_doc[p_kind == COUNTRY])
    dish_sel = p_kind == DISH
    d_doc, d_target = p_doc[dish_sel], p_target[dish_sel]
    has_any = np.isin(d_doc, docs_with_country)
    counts.any_country += np.bincount(d_target[has_any], minlength=n_targets)
    country_docs = p_doc[p_kind == COUNTRY]  # sorted: one entry per (document, country)
    per_doc = np.searchsorted(country_docs, d_doc, side="right") - np.searchsorted(country_docs, d_doc, side="left")
    counts.any_mentions += np.bincount(d_target, weights=per_doc, minlength=n_targets).astype(np.int64)
    o_rep, o_country = _expand(*patterns.origin_csr, d_target)
    has_true = np.zeros(len(d_target), dtype=bool)
    if len(o_rep):
        hit = np.isin(d_doc[o_rep] * n_targets + o_country, country_keys)
        true_per_pair = np.bincount(o_rep[hit], minlength=len(d_target))
        has_true = true_per_pair > 0
        counts.true_mentions += np.bincount(d_target, weights=true_per_pair, minlength=n_targets).astype(np.int64)
    counts.true_country += np.bincount(d_target[has_true], minlength=n_targets)
    _collect_samples(patterns, batch, counts, context, d_doc[has_any], d_target[has_any], m_doc, target, m_first)


def _collect_samples(patterns, batch, counts, context, docs, dishes, m_doc, target, m_first) -> None:
    # A dish with all its samples now has them for the rest of the batch too (the counts only grow): its documents
    # are dropped at once, which leaves few to look at once the first shards have filled the budget.
    wanted = [dish for dish in np.unique(dishes).tolist() if context.wants(dish)]
    keep = np.isin(dishes, wanted)
    docs, dishes = docs[keep], dishes[keep]
    los, his = np.searchsorted(m_doc, docs), np.searchsorted(m_doc, docs, side="right")  # each document's matches
    tries: dict[int, int] = {}
    for doc, dish, lo, hi in zip(docs.tolist(), dishes.tolist(), los.tolist(), his.tolist(), strict=True):
        if not context.wants(dish) or tries.get(dish, 0) >= SAMPLE_TRIES:
            continue
        dish_at, others = _near_other_countries(patterns, dish, target[lo:hi], m_first[lo:hi])
        if not others:
            continue
        tries[dish] = tries.get(dish, 0) + 1
        sample = _shared_sentence(patterns, batch, doc, dish_at, others)
        if sample is not None:
            country, sentence = sample
            counts.samples.append(
                {
                    "dish_key": patterns.targets[dish].key,
                    "country": patterns.targets[country].key,
                    "sentence": sentence,
                    "shard_path": context.shard,
                    "doc_index": context.doc_base + doc,
                    "checksum": context.checksum,
                }
            )
            context.found[dish] = context.found.get(dish, 0) + 1


def _near_other_countries(patterns: PatternSet, dish: int, targets, firsts) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Where the document names `dish`, and (position, country) of the non-origin countries named within a
    sentence's length of it."""
    dish_at = firsts[targets == dish]
    origins, near = patterns.origins.get(dish, ()), dish_at.tolist()
    others = [
        (at, t)
        for at, t, kind in zip(firsts.tolist(), targets.tolist(), patterns.kinds[targets].tolist(), strict=True)
        if kind == COUNTRY and t not in origins and min(abs(at - d) for d in near) <= MAX_SENTENCE_CHARS
    ]
    return dish_at, others


def _shared_sentence(patterns: PatternSet, batch: Batch, doc: int, dish_at, others) -> tuple[int, str] | None:
    """The first sentence of the original document that names the dish and one of `others`."""
    text = batch.column[doc].as_py() or ""
    base = int(batch.folded.starts[doc])
    if int(batch.folded.ends[doc]) - base == len(text):
        where: range | list[int] = range(len(text))  # one byte per character: nothing was dropped
    else:
        where = patterns.literals.alphabet.positions(text)  # folded offset in the document -> character index
    return shared_sentence(text, [where[int(at) - base] for at in dish_at], [(where[at - base], c) for at, c in others])


def shared_sentence(text: str, dish_at: list[int], others: list[tuple[int, int]]) -> tuple[int, str] | None:
    """(country, sentence) for the first of `others` (character index, country) in a sentence of `text` that also
    holds one of `dish_at` (character indices), the sentence with its white space collapsed; None if none does.

    Sentences end where `_SENTENCE_END` matches; only the stretch of text around the names is searched for those
    ends (a sentence end depends on the characters at it only), so a long document costs no more than a short one."""
    lo = min(min(dish_at), min(at for at, _ in others))
    hi = max(max(dish_at), max(at for at, _ in others))
    ends = []  # every sentence end after `lo`, up to the first one after `hi`
    for match in _SENTENCE_END.finditer(text, lo):
        ends.append(match.end())
        if ends[-1] > hi:
            break
    dish_sentences = {bisect.bisect_right(ends, at) for at in dish_at}  # counted from the sentence holding `lo`
    for at, country in others:
        k = bisect.bisect_right(ends, at)
        if k in dish_sentences:
            a = ends[k - 1] if k else _sentence_start(text, lo)
            b = ends[k] if k < len(ends) else len(text)
            return country, " ".join(text[a:b].split())[:MAX_SENTENCE_CHARS]
    return None


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding character `at` starts: the last sentence end at or before it (0 if none),
    searched for backwards in widening stretches."""
    width = 256
    while True:
        start = max(0, at - width)
        last = start if start == 0 else -1
        for match in _SENTENCE_END.finditer(text, start):
            if match.end() > at:
                break
            last = match.end()
        if last >= 0 and (last > start or start == 0):
            return last
        width *= 4
