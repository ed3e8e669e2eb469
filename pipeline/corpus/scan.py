"""Scan a text corpus for dish and country mentions (co-occurrence, RU/UK code mixing, review samples).

A batch of documents is lower-cased (ё→е) by Arrow, framed as ``\\n doc0 \\n doc1 \\n ...`` and scanned in ONE
Hyperscan pass of literal surfaces (:mod:`pipeline.corpus.patterns`); match offsets go back to documents through the
cumulative offsets (``searchsorted``). Whole words only: the character before and after a match must not be a letter
or digit (checked on the UTF-8 bytes with numpy: ASCII letters/digits, Latin and Cyrillic letters are word
characters; ASCII punctuation, Latin-1 punctuation such as « » and no-break space, and general punctuation such as
— … ’ are not). A country surface inside a dish name ("український борщ") is not a country mention.

Each shard (file) is one transaction: its partial counts go to ``core.corpus_shard_*`` and the totals are recomputed
from them, so a killed scan never double counts; a shard already scanned (same sha256, same patterns) is skipped.
"""

from __future__ import annotations

import bisect
import glob
import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.corpus.patterns import COUNTRY, DISH, RU_NAME, UK_NAME, PatternSet, build_patterns
from pipeline.corpus.readers import CorruptShard, iter_documents, shard_format
from pipeline.errors import CorpusError
from pipeline.ingest.common import insert, transaction

MAX_SAMPLES = 3
MAX_SENTENCE_CHARS = 1000
_SENTENCE_END = re.compile(rb"(?:[.!?]|\xe2\x80\xa6)+(?=\s)|\n")


@dataclass(frozen=True)
class Progress:
    shard: str
    shards_done: int
    shards_total: int
    bytes_done: int
    bytes_total: int
    docs: int
    mb_per_s: float


@dataclass
class ScanSummary:
    corpus_id: str
    lang: str
    source: str
    shards_total: int = 0
    shards_scanned: int = 0
    shards_skipped: int = 0
    corrupt: list[tuple[str, str]] = field(default_factory=list)
    n_docs: int = 0
    n_bytes: int = 0
    seconds: float = 0.0

    @property
    def mb_per_s(self) -> float:
        return self.n_bytes / 1e6 / self.seconds if self.seconds else 0.0


def corpus_id_for(lang: str, source: str, text_field: str = "text") -> str:
    suffix = "" if text_field == "text" else f"#{text_field}"
    return f"{lang}:{source}{suffix}"


def resolve_shards(source: str, text_field: str = "text") -> list[str]:
    """Local files of a path, directory or glob (sorted); `hf://` sources are first copied to
    local Parquet shards by DuckDB, which reads Hugging Face paths natively."""
    if source.startswith("hf://"):
        return fetch_remote_shards(source, text_field)
    path = Path(source)
    if path.is_dir():
        found = sorted(str(p) for p in path.rglob("*") if p.is_file() and _known(p))
    elif path.is_file():
        found = [str(path)]
    else:
        found = sorted(p for p in glob.glob(source, recursive=True) if Path(p).is_file() and _known(Path(p)))
    if not found:
        raise CorpusError(f"{source}: no corpus files (.jsonl, .json, .parquet, .txt, optionally .gz)")
    return found


def fetch_remote_shards(source: str, text_field: str, cache: Path | None = None) -> list[str]:
    """Each remote file of an `hf://` path or glob, as a local Parquet shard of its text column
    (cached by URL, so a rerun reuses it and the shard checksums skip what was scanned)."""
    from pipeline.settings import default_data_dir

    cache = cache or default_data_dir() / "corpora" / "hf"
    cache.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        try:
            files = [row[0] for row in con.execute("SELECT file FROM glob(?) ORDER BY file", [source]).fetchall()]
        except duckdb.Error as exc:
            raise CorpusError(
                f"{source}: cannot list the remote files ({exc}). hf:// needs network access; offline, "
                "download the shards and pass a local path or glob"
            ) from exc
        if not files:
            raise CorpusError(f"{source}: no remote files match")
        local = []
        for remote in files:
            target = cache / (hashlib.sha256(remote.encode()).hexdigest()[:24] + ".parquet")
            if not target.exists():
                reader = "read_parquet" if ".parquet" in remote else "read_json_auto"
                partial = target.with_suffix(".part")
                try:
                    con.execute(
                        f"COPY (SELECT CAST({_quote(text_field)} AS VARCHAR) AS {_quote(text_field)} "
                        f"FROM {reader}(?)) TO '{partial}' (FORMAT parquet)",
                        [remote],
                    )
                except duckdb.Error as exc:
                    partial.unlink(missing_ok=True)
                    raise CorpusError(f"{remote}: cannot read ({exc})") from exc
                partial.replace(target)
            local.append(str(target))
        return local
    finally:
        con.close()


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _known(path: Path) -> bool:
    try:
        shard_format(path)
    except ValueError:
        return False
    return True


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


# --- Matching -------------------------------------------------------------------------------------------------------

_ASCII_WORD = np.zeros(256, dtype=bool)
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_":
    _ASCII_WORD[_c] = True


def _word_before(buf: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Is the character ending just before byte `pos` a word character?"""
    b1 = buf[pos - 1]
    b2 = buf[np.maximum(pos - 2, 0)]
    b3 = buf[np.maximum(pos - 3, 0)]
    ascii_ = b1 < 0x80
    two = (~ascii_) & (b2 >= 0xC0) & (b2 < 0xE0)
    three = (~ascii_) & (~two) & (b3 >= 0xE0) & (b3 < 0xF0)
    word = np.where(ascii_, _ASCII_WORD[b1], True)
    word &= ~(two & (b2 == 0xC2))  # U+0080..U+00BF: no-break space, « », punctuation
    word &= ~(three & (b3 == 0xE2))  # U+2000..U+2FFF: general punctuation, symbols
    return word


def _word_after(buf: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Is the character starting at byte `pos` a word character?"""
    b = buf[pos]
    return np.where(b < 0x80, _ASCII_WORD[b], (b != 0xC2) & (b != 0xE2))


@dataclass
class _Batch:
    """Documents back to back (no separator): document i spans [starts[i], ends[i]) of `buf`."""

    buf: np.ndarray  # lower-cased, ё→е UTF-8 bytes
    original: np.ndarray | None  # the original bytes when every offset agrees (case checks, samples)
    starts: np.ndarray
    ends: np.ndarray


def _frame(column: pa.Array) -> _Batch:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    column = column.fill_null("")
    lowered = pc.utf8_lower(column)
    buf, offsets = _values(lowered)
    if _has_yo(buf):  # "ё": rare outside Russian, so only replaced where present
        buf, offsets = _values(pc.replace_substring(lowered, "ё", "е"))
    orig_buf, orig_offsets = _values(column)
    original = orig_buf if np.array_equal(orig_offsets - orig_offsets[0], offsets - offsets[0]) else None
    rel = offsets - offsets[0]
    return _Batch(buf, original, rel[:-1], rel[1:])


def _has_yo(buf: np.ndarray) -> bool:
    """Does the lower-cased UTF-8 text contain "ё" (D1 91)?"""
    hits = np.flatnonzero(buf[1:] == 0x91)
    return bool(len(hits)) and bool((buf[hits] == 0xD1).any())


def _values(column: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    buffers = column.buffers()
    offsets = np.frombuffer(buffers[1], dtype=width)[column.offset : column.offset + len(column) + 1].astype(np.int64)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    return data[offsets[0] : offsets[-1]], offsets


def find_matches(patterns: PatternSet, batch: _Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Whole-word matches as arrays (doc, surface, start, end), byte offsets into batch.buf."""
    ids: list[int] = []
    ends: list[int] = []

    def on_match(variant_id: int, _from: int, to: int, _flags: int, _context) -> None:
        ids.append(variant_id)
        ends.append(to)

    database = patterns.database
    database.scan(batch.buf.data, match_event_handler=on_match)
    if not ids:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    variant = np.array(ids, dtype=np.int64)
    end = np.array(ends, dtype=np.int64)
    start = end - patterns.variant_length[variant]
    pattern = patterns.variant_surface[variant]
    doc = np.searchsorted(batch.starts, start, side="right") - 1
    doc_start, doc_end = batch.starts[doc], batch.ends[doc]
    size = len(batch.buf)
    before = (start > doc_start) & _word_before(batch.buf, np.maximum(start, 1))
    after = (end < doc_end) & _word_after(batch.buf, np.minimum(end, size - 1))
    keep = (end <= doc_end) & ~before & ~after
    sensitive = patterns.sensitive_mask[pattern] & keep
    for i in np.flatnonzero(sensitive):
        keep[i] = batch.original is not None and patterns.case_ok(
            int(pattern[i]), bytes(batch.original[start[i] : end[i]]).decode("utf-8", "replace")
        )
    return doc[keep], pattern[keep], start[keep], end[keep]


def _expand(starts: np.ndarray, flat: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR lookup: for each of `rows`, its values; returns (row position repeated, values)."""
    lengths = starts[rows + 1] - starts[rows]
    rep = np.repeat(np.arange(len(rows)), lengths)
    first = np.repeat(starts[rows], lengths)
    within = np.arange(len(rep)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return rep, flat[first + within]


# --- Counting -------------------------------------------------------------------------------------------------------


@dataclass
class _Counts:
    n_targets: int
    docs: np.ndarray = None  # per target: documents naming it
    true_country: np.ndarray = None
    any_country: np.ndarray = None
    samples: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.docs = np.zeros(self.n_targets, dtype=np.int64)
        self.true_country = np.zeros(self.n_targets, dtype=np.int64)
        self.any_country = np.zeros(self.n_targets, dtype=np.int64)


def count_batch(
    patterns: PatternSet,
    batch: _Batch,
    counts: _Counts,
    sample_budget: dict[int, int],
    shard: str,
    sha: str,
    doc_base: int,
) -> None:
    doc, pattern, start, end = find_matches(patterns, batch)
    if not len(doc):
        return
    kinds = patterns.kinds
    rep, target = _expand(*patterns.csr, pattern)
    m_doc, m_start, m_end = doc[rep], start[rep], end[rep]
    kind = kinds[target]
    # a country surface inside a dish name ("український борщ") is no country mention
    is_country = kind == COUNTRY
    if is_country.any() and (kind == DISH).any():
        dish_spans: dict[int, list[tuple[int, int]]] = {}
        for d, s, e in zip(m_doc[kind == DISH], m_start[kind == DISH], m_end[kind == DISH], strict=True):
            dish_spans.setdefault(int(d), []).append((int(s), int(e)))
        inside = np.zeros(len(target), dtype=bool)
        for i in np.flatnonzero(is_country):
            for s, e in dish_spans.get(int(m_doc[i]), ()):
                if s <= m_start[i] and m_end[i] <= e and (s, e) != (m_start[i], m_end[i]):
                    inside[i] = True
                    break
        keep = ~inside
        target, m_doc, m_start, m_end, kind = target[keep], m_doc[keep], m_start[keep], m_end[keep], kind[keep]
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
    o_rep, o_country = _expand(*patterns.origin_csr, d_target)
    if len(o_rep):
        hit = np.isin(d_doc[o_rep] * n_targets + o_country, country_keys)
        has_true = np.bincount(o_rep[hit], minlength=len(d_target)) > 0
    else:
        has_true = np.zeros(len(d_target), dtype=bool)
    counts.true_country += np.bincount(d_target[has_true], minlength=n_targets)
    # review samples: a dish and a non-origin country in the same sentence
    for i in np.flatnonzero(has_any):
        t = int(d_target[i])
        if sample_budget.get(t, 0) >= MAX_SAMPLES:
            continue
        _sample(patterns, batch, counts, sample_budget, t, int(d_doc[i]), m_doc, target, m_start, shard, sha, doc_base)


def _sample(patterns, batch, counts, budget, dish, doc, m_doc, target, m_start, shard, sha, doc_base) -> None:
    origins = set(patterns.origins.get(dish, ()))
    in_doc = m_doc == doc
    kinds = patterns.kinds
    dish_pos = m_start[in_doc & (target == dish)]
    countries = [
        (int(s), int(t))
        for s, t in zip(m_start[in_doc], target[in_doc], strict=True)
        if kinds[t] == COUNTRY and int(t) not in origins
    ]
    if not countries:
        return
    lo, hi = int(batch.starts[doc]), int(batch.ends[doc])
    text = (batch.original if batch.original is not None else batch.buf)[lo:hi].tobytes()
    bounds = [m.end() for m in _SENTENCE_END.finditer(text)]

    def sentence(pos: int) -> int:
        return bisect.bisect_right(bounds, pos - lo)

    dish_sentences = {sentence(int(p)) for p in dish_pos}
    for pos, country in countries:
        k = sentence(pos)
        if k in dish_sentences:
            a = bounds[k - 1] if k else 0
            b = bounds[k] if k < len(bounds) else len(text)
            sentence_text = " ".join(text[a:b].decode("utf-8", "replace").split())[:MAX_SENTENCE_CHARS]
            counts.samples.append(
                {
                    "dish_key": patterns.targets[dish].key,
                    "country": patterns.targets[country].key,
                    "sentence": sentence_text,
                    "shard_path": shard,
                    "doc_index": doc_base + doc,
                    "sha256": sha,
                }
            )
            budget[dish] = budget.get(dish, 0) + 1
            return


# --- The scan -------------------------------------------------------------------------------------------------------


def scan_corpus(
    con: duckdb.DuckDBPyConnection,
    lang: str,
    source: str,
    text_field: str = "text",
    run_id: str = "",
    on_progress: Callable[[Progress], None] | None = None,
) -> ScanSummary:
    """Scan every shard of `source` not yet scanned with the current patterns; see the module docstring."""
    if not source.startswith("hf://") and not any(ch in source for ch in "*?["):
        source = str(Path(source).resolve())
    shards = resolve_shards(source, text_field)
    corpus_id = corpus_id_for(lang, source, text_field)
    patterns = build_patterns(con, lang)
    _prepare(patterns)
    summary = ScanSummary(corpus_id, lang, source, shards_total=len(shards))
    with transaction(con):
        con.execute("DELETE FROM core.corpora WHERE corpus_id = ?", [corpus_id])
        insert(
            con,
            "core.corpora",
            [
                {
                    "corpus_id": corpus_id,
                    "lang": lang,
                    "source": source,
                    "text_field": text_field,
                    "n_docs": 0,
                    "n_bytes": 0,
                }
            ],
        )
        _recompute_totals(con, corpus_id, patterns)
    done_shards = {
        sha: status
        for sha, status in con.execute(
            "SELECT sha256, status FROM core.corpus_shards WHERE corpus_id = ? AND patterns = ?",
            [corpus_id, patterns.fingerprint],
        ).fetchall()
    }
    budget: dict[int, int] = {}
    key_to_target = {t.key: i for i, t in enumerate(patterns.targets) if t.kind == DISH}
    for key, n in con.execute(
        "SELECT dish_key, count(*) FROM core.corpus_samples WHERE corpus_id = ? GROUP BY dish_key", [corpus_id]
    ).fetchall():
        if key in key_to_target:
            budget[key_to_target[key]] = n
    sizes = [Path(p).stat().st_size for p in shards]
    total_bytes, bytes_before = sum(sizes), 0
    began = time.perf_counter()
    for index, (shard, size) in enumerate(zip(shards, sizes, strict=True)):
        sha = sha256_file(shard)
        if done_shards.get(sha) == "ok":
            summary.shards_skipped += 1
            bytes_before += size
            continue
        counts = _Counts(len(patterns.targets))
        shard_budget = dict(budget)
        n_docs, status, reason = 0, "ok", None
        try:
            for column, read in iter_documents(Path(shard), text_field):
                batch = _frame(column)
                count_batch(patterns, batch, counts, shard_budget, shard, sha, n_docs)
                n_docs += len(column)
                if on_progress is not None:
                    elapsed = time.perf_counter() - began
                    done = bytes_before + read
                    on_progress(
                        Progress(
                            shard,
                            index,
                            len(shards),
                            done,
                            total_bytes,
                            summary.n_docs + n_docs,
                            done / 1e6 / elapsed if elapsed else 0.0,
                        )
                    )
        except CorruptShard as exc:
            status, reason = "corrupt", str(exc)[:500]
        with transaction(con):
            _write_shard(con, corpus_id, patterns, shard, sha, size, n_docs, status, reason, run_id, counts)
        bytes_before += size
        if status == "ok":
            budget = shard_budget
            summary.shards_scanned += 1
            summary.n_docs += n_docs
            summary.n_bytes += size
        else:
            summary.corrupt.append((shard, reason))
    summary.seconds = time.perf_counter() - began
    return summary


def _prepare(patterns: PatternSet) -> None:
    """Per-pattern arrays the matcher needs (byte length, case-sensitivity)."""
    patterns.sensitive_mask = np.array(patterns.case_sensitive, dtype=bool).reshape(-1)
    _ = patterns.database  # compile now, not inside the first shard's timing

    def case_ok(pattern_id: int, written: str) -> bool:
        if patterns.acronym[pattern_id]:
            return written.isupper()
        return written[:1].isupper()

    patterns.case_ok = case_ok


def _write_shard(con, corpus_id, patterns, shard, sha, size, n_docs, status, reason, run_id, counts) -> None:
    con.execute("DELETE FROM core.corpus_shards WHERE corpus_id = ? AND sha256 = ?", [corpus_id, sha])
    for table in ("core.corpus_shard_dish_counts", "core.corpus_shard_name_counts", "core.corpus_samples"):
        con.execute(f"DELETE FROM {table} WHERE corpus_id = ? AND sha256 = ?", [corpus_id, sha])
    insert(
        con,
        "core.corpus_shards",
        [
            {
                "corpus_id": corpus_id,
                "path": shard,
                "sha256": sha,
                "status": status,
                "reason": reason,
                "n_docs": n_docs if status == "ok" else None,
                "n_bytes": size,
                "patterns": patterns.fingerprint,
                "run_id": run_id,
            }
        ],
    )
    if status == "ok":
        dish_rows = [
            {
                "corpus_id": corpus_id,
                "sha256": sha,
                "dish_key": patterns.targets[t].key,
                "docs_with_dish": int(counts.docs[t]),
                "docs_with_true_country": int(counts.true_country[t]),
                "docs_with_any_country": int(counts.any_country[t]),
            }
            for t in np.flatnonzero((patterns.kinds == DISH) & (counts.docs > 0))
        ]
        insert(con, "core.corpus_shard_dish_counts", dish_rows)
        names: dict[int, list[int]] = {}
        for t in np.flatnonzero(((patterns.kinds == UK_NAME) | (patterns.kinds == RU_NAME)) & (counts.docs > 0)):
            target = patterns.targets[t]
            names.setdefault(int(target.key), [0, 0])[0 if target.kind == UK_NAME else 1] = int(counts.docs[t])
        insert(
            con,
            "core.corpus_shard_name_counts",
            [
                {"corpus_id": corpus_id, "sha256": sha, "pair_id": pair, "docs_uk_name": uk, "docs_ru_name": ru}
                for pair, (uk, ru) in names.items()
            ],
        )
        insert(con, "core.corpus_samples", [{"corpus_id": corpus_id, **row} for row in counts.samples])
    _recompute_totals(con, corpus_id, patterns)


def _recompute_totals(con: duckdb.DuckDBPyConnection, corpus_id: str, patterns: PatternSet) -> None:
    """Totals = sums over the corpus's ok shards scanned with the current patterns; every dish and pair gets a row."""
    dishes = [t.key for t in patterns.targets if t.kind == DISH]
    pairs = sorted({int(t.key) for t in patterns.targets if t.kind in (UK_NAME, RU_NAME)})
    params = {"corpus": corpus_id, "patterns": patterns.fingerprint}
    ok = "SELECT sha256 FROM core.corpus_shards WHERE corpus_id = $corpus AND status = 'ok' AND patterns = $patterns"
    con.execute("DELETE FROM core.corpus_dish_counts WHERE corpus_id = ?", [corpus_id])
    con.execute(
        f"""
        INSERT INTO core.corpus_dish_counts
        SELECT $corpus, k.dish_key, coalesce(sum(c.docs_with_dish), 0), coalesce(sum(c.docs_with_true_country), 0),
               coalesce(sum(c.docs_with_any_country), 0)
        FROM unnest($dishes::TEXT[]) AS k(dish_key)
        LEFT JOIN core.corpus_shard_dish_counts c
               ON c.dish_key = k.dish_key AND c.corpus_id = $corpus AND c.sha256 IN ({ok})
        GROUP BY k.dish_key
        """,
        {**params, "dishes": dishes},
    )
    con.execute("DELETE FROM core.corpus_name_counts WHERE corpus_id = ?", [corpus_id])
    con.execute(
        f"""
        INSERT INTO core.corpus_name_counts
        SELECT $corpus, k.pair_id, coalesce(sum(c.docs_uk_name), 0), coalesce(sum(c.docs_ru_name), 0)
        FROM unnest($pairs::INTEGER[]) AS k(pair_id)
        LEFT JOIN core.corpus_shard_name_counts c
               ON c.pair_id = k.pair_id AND c.corpus_id = $corpus AND c.sha256 IN ({ok})
        GROUP BY k.pair_id
        """,
        {**params, "pairs": pairs},
    )
    con.execute(
        f"""
        UPDATE core.corpora SET
            n_docs = (SELECT coalesce(sum(n_docs), 0) FROM core.corpus_shards
                      WHERE sha256 IN ({ok}) AND corpus_id = $corpus),
            n_bytes = (SELECT coalesce(sum(n_bytes), 0) FROM core.corpus_shards
                       WHERE sha256 IN ({ok}) AND corpus_id = $corpus)
        WHERE corpus_id = $corpus
        """,
        params,
    )
