"""The extract + score stage: every generation without a current extraction is parsed with its
task's declared extractor and scored with the task's declared metrics against the item's gold.

It reads core.generations / core.items / core.item_gold_countries / core.item_gold_nations (and,
for the papers' own rules and multiple choice, core.item_gold_text, core.item_options, core.item_gold_choices,
core.item_prompts; for dish names, core.dish_names and core.dish_links) and writes only
core.extractions, core.extraction_spans, core.choice_extractions, core.gold_text_checks,
core.name_matches and core.scores, in chunks that are each one
transaction: a killed run loses at most the chunk in flight, and the rerun picks up the rest.
A generation is pending when it has no extraction by the current extractor version, or one older
than the generation itself (an answer re-imported since).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from pipeline.core import derived
from pipeline.extract import get_extractor
from pipeline.extract.choice import paper_choice
from pipeline.extract.countries import cyclic_gc_paused
from pipeline.extract.zno import paper_last_bracket
from pipeline.reference.countries import UK_NATIONS
from pipeline.score import names
from pipeline.score.classes import classify_answers
from pipeline.score.metrics import get_metric
from pipeline.tasks import TASKS, Task
from warehouse.io import delete_rebuilding, insert, transaction

CHUNK = 20_000
MEMO_LIMIT = 1_000_000  # distinct inputs a scoring process keeps results of (_Memo.trim); the demo has ~300,000
# What an executor does instead of this process's loop: takes (task, chunk) pairs and the dish-name context, yields
# (task, chunk, rows by table) as `score_chunk` computes them, in any order.
ScoreElsewhere = Callable[
    [Iterator[tuple[Task, pl.DataFrame]], "names.NamesContext | None"],
    Iterator[tuple[Task, pl.DataFrame, dict[str, pl.DataFrame]]],
]


@dataclass
class ScoreSummary:
    scored: int = 0
    seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.scored / self.seconds if self.seconds else 0.0


# What an answer is scored against, per answer kind: the item's gold countries, or every name of
# the dish in the prompt's language (any of them counts as a match).
GOLD_SQL = {
    # the gold countries, then the UK nations the dataset names (GB-SCT...), which only the
    # metrics that read "nations" see
    "countries": """coalesce((SELECT list(country ORDER BY country) FROM core.item_gold_countries c
                              WHERE c.item_id = g.item_id), [])
                    || coalesce((SELECT list(nation ORDER BY nation) FROM core.item_gold_nations n
                                 WHERE n.item_id = g.item_id), [])""",
    # every name of the dish in the prompt's language or English, and the dataset's own gold string
    "dish_name": """{'names': coalesce((SELECT list({'name': n.name, 'lang': n.lang} ORDER BY n.lang, n.name)
                                        FROM core.dish_names n WHERE n.dish_key = i.dish_key
                                        AND n.lang IN (split_part(g.lang, '_', 1), 'en')), []),
                     'paper': coalesce((SELECT t.text FROM core.item_gold_text t
                                        WHERE t.item_id = g.item_id AND t.lang = g.lang),
                                       (SELECT min(n.name) FROM core.dish_names n
                                        WHERE n.dish_key = i.dish_key AND n.is_primary)),
                     'dish_key': i.dish_key}""",
    "text": "[]::VARCHAR[]",
    "choice": """(SELECT c.choice FROM core.item_gold_choices c WHERE c.item_id = g.item_id AND c.lang = g.lang)""",
}
# The gold answer as written in the prompt language (WorldCuisines answer_<lang>), for the paper's rule;
# for multiple choice, the option texts in order and the prompt (the paper's rule searches it).
EXTRA_SQL = {
    "choice": """(SELECT list(o.text ORDER BY o.option) FROM core.item_options o
                  WHERE o.item_id = g.item_id AND o.lang = g.lang) AS options,
                 (SELECT min(p.text) FROM core.item_prompts p
                  WHERE p.item_id = g.item_id AND p.lang = g.lang) AS prompt,
                 (SELECT e.letters FROM core.exam_items e WHERE e.item_id = g.item_id) AS letters""",
}
DEFAULT_EXTRA_SQL = """(SELECT t.text FROM core.item_gold_text t
                  WHERE t.item_id = g.item_id AND t.lang = g.lang) AS gold_text,
                 NULL AS prompt"""
STALE_SQL = """AND NOT EXISTS (SELECT 1 FROM {table} e WHERE e.generation_id = g.generation_id
                               AND e.extractor = ? AND e.extracted_at >= g.created_at)"""


def _pending_query(
    task: Task, extractor: str, rescore: bool, count: bool = False, langs: bool = False
) -> tuple[str, list]:
    table = "core.choice_extractions" if task.answer_kind == "choice" else "core.extractions"
    stale, params = ("", [task.task_id]) if rescore else (STALE_SQL.format(table=table), [task.task_id, extractor])
    if count or langs:
        what = "DISTINCT g.lang" if langs else "count(*)"
        sql = f"SELECT {what} FROM core.generations g JOIN core.items i USING (item_id) WHERE i.task_id = ? {stale}"
        return sql, params
    # a rescore removes every earlier row first (clear_for_rescore): nothing to look up per answer
    scored_before = (
        "false"
        if rescore
        else f"""(EXISTS (SELECT 1 FROM {table} e WHERE e.generation_id = g.generation_id)
                OR EXISTS (SELECT 1 FROM core.scores s WHERE s.generation_id = g.generation_id))"""
    )
    sql = f"""
        SELECT g.generation_id, g.lang, g.variant, g.response, {GOLD_SQL[task.answer_kind]} AS gold,
               {EXTRA_SQL.get(task.answer_kind, DEFAULT_EXTRA_SQL)},
               {scored_before} AS scored_before
        FROM core.generations g JOIN core.items i USING (item_id)
        WHERE i.task_id = ? {stale}
        ORDER BY g.generation_id
        """
    return sql, params


def pending(con: duckdb.DuckDBPyConnection, task: Task, extractor: str, rescore: bool) -> pl.DataFrame:
    """generation_id, lang, response, gold, gold_text (or options), prompt and scored_before (rows to replace) of
    what needs (re)scoring, all at once (`pending_chunks` streams them)."""
    sql, params = _pending_query(task, extractor, rescore)
    return con.sql(sql, params=params).pl()


def pending_count(con: duckdb.DuckDBPyConnection, task: Task, extractor: str, rescore: bool) -> int:
    sql, params = _pending_query(task, extractor, rescore, count=True)
    return con.execute(sql, params).fetchone()[0]


def warm_up(con: duckdb.DuckDBPyConnection, rescore: bool = False) -> list[str]:
    """Start building the gazetteers of the languages the pending answers (and their gold texts) are searched in,
    in the background (`gazetteer.prebuild`): called as soon as the answers are in, so a first score of thirty
    prompt languages finds most of them built. Returns the languages it started on."""
    from pipeline.extract.countries import search_langs
    from pipeline.extract.gazetteer import prebuild

    declared = {row[0] for row in con.execute("SELECT task_id FROM core.tasks").fetchall()}
    searched: dict[str, None] = {}
    prompts: dict[str, None] = {}  # the answer-language step looks names up in the prompt's own code ("ja_casual")
    for task in TASKS.values():
        if task.task_id in declared:
            extractor_name, _ = get_extractor(task.extractor)
            sql, params = _pending_query(task, extractor_name, rescore, langs=True)
            for (lang,) in con.execute(sql, params).fetchall():
                searched.update(dict.fromkeys(search_langs(lang)))
                prompts[lang] = None
    return prebuild([*searched, *prompts])


def pending_chunks(
    con: duckdb.DuckDBPyConnection, task: Task, extractor: str, rescore: bool, size: int
) -> Iterator[pl.DataFrame]:
    """`pending`'s rows in chunks of `size`, streamed from a cursor of their own: the stage holds one chunk of
    answers (and DuckDB, which spills what it cannot hold, the rest), never every answer (a lab's 4.7 million held
    10 GB). The cursor's query reads one snapshot, so the chunks written meanwhile on `con` do not move it. The
    countries extractor's chunks carry what each answer's question asked (the task's `asks`, issue 35)."""
    sql, params = _pending_query(task, extractor, rescore)
    cursor = con.cursor()
    try:
        for table in _rechunked(cursor.sql(sql, params=params).to_arrow_reader(size), size):
            chunk = pl.from_arrow(table)
            if task.extractor == "countries":
                readings = [task.reading(lang, v) for lang, v in zip(chunk["lang"], chunk["variant"], strict=True)]
                chunk = chunk.with_columns(reading=pl.Series(readings, dtype=pl.String))
            yield chunk
    finally:
        cursor.close()


def _rechunked(batches: Iterable[pa.RecordBatch], size: int) -> Iterator[pa.Table]:
    """Tables of exactly `size` rows (the last one fewer) from record batches of any size (DuckDB's vary)."""
    held: list[pa.RecordBatch] = []
    rows = 0
    for batch in batches:
        held.append(batch)
        rows += batch.num_rows
        while rows >= size:
            table = pa.Table.from_batches(held)
            rest = table.slice(size)
            yield table.slice(0, size)
            held, rows = rest.to_batches(), rest.num_rows
    if rows:
        yield pa.Table.from_batches(held)


def score(
    con: duckdb.DuckDBPyConnection,
    rescore: bool = False,
    on_chunk: Callable[[int, int], None] | None = None,
    elsewhere: ScoreElsewhere | None = None,
) -> ScoreSummary:
    """Extract and score every pending generation of every task in the warehouse.

    `on_chunk(done, total)` follows progress: answers just scored, and the answers known to be pending so far
    (every earlier task's plus the current one's). `elsewhere` (an executor's, pipeline/executors/): computes the
    chunks' rows on other processes or machines (`score_chunk` there) and hands them back in any order; this
    process stays the one writer."""
    summary = ScoreSummary()
    started = time.perf_counter()
    declared = {row[0] for row in con.execute("SELECT task_id FROM core.tasks").fetchall()}
    memo = _Memo()
    work = []
    for task in TASKS.values():
        if task.task_id not in declared:
            continue
        if task.answer_kind not in GOLD_SQL:
            raise ValueError(
                f"task {task.task_id}: answer kind {task.answer_kind!r} has no gold to score against "
                f"(known: {', '.join(sorted(GOLD_SQL))}); declare its gold in pipeline/score/stage.py GOLD_SQL and "
                "register an extractor for it before its answers can be scored"
            )
        extractor_name, _ = get_extractor(task.extractor)
        work.append((task, extractor_name, pending_count(con, task, extractor_name, rescore)))
    if rescore:
        clear_for_rescore(con, [task.task_id for task, _, count in work if count])
    total = sum(count for *_, count in work)
    # The stage allocates millions of small tuples and lists (keys, memo rows) beside the gazetteers and matchers:
    # each burst started the cyclic collector, whose full passes walk every object; measured 8 of the stage's 55 CPU-s,
    # with the same peak memory without it (the stage's results are freed by reference counting).
    with cyclic_gc_paused():
        dish_names = any(task.answer_kind == "dish_name" and count for task, _, count in work)
        names_context = names.NamesContext.load(con) if dish_names else None
        chunks = (
            (task, chunk)
            for task, extractor_name, count in work
            if count
            for chunk in pending_chunks(con, task, extractor_name, rescore, CHUNK)
        )
        scored = (
            ((task, chunk, score_chunk(task, chunk, names_context, memo)) for task, chunk in chunks)
            if elsewhere is None
            else elsewhere(chunks, names_context)
        )
        for _task, chunk, rows in scored:  # one writer: this process, one transaction per chunk
            store_chunk(con, chunk, rows)
            summary.scored += chunk.height
            if on_chunk:
                on_chunk(chunk.height, total)
        # Inside the pause too: the gold check builds a matcher per language of the gold strings (30 for
        # WorldCuisines), whose allocations started full collections (4.8 -> 3.8 CPU-s on a first score).
        check_gold_texts(con, rescore)
        classify_answers(con, rescore)
    summary.seconds = time.perf_counter() - started
    return summary


def gold_readings(
    texts: dict[str, set[str]], extractor_name: str, extract: Callable
) -> dict[tuple[str, str], list[str]]:
    """(text, lang) -> the countries `extract` reads in each gold text, by language. The readings are kept in the
    derived-file cache (pipeline/core/derived.py) under the extractor's code, so a new warehouse of the same benchmark
    reads none again: reading WorldCuisines' 18,000 gold strings built a matcher for each of its 30 languages, most
    of a first `score` of answers in a few of them (5 of its 8 CPU-s)."""
    found: dict[tuple[str, str], list[str]] = {}
    digest = derived.inputs_digest("gold-readings", extractor_name, derived.extractor_digest())
    for lang, wanted in sorted(texts.items()):
        path = derived.cache_path("gold-readings", f"{extractor_name.replace('@', '-')}-{lang}", digest)
        known = derived.load(path)
        known = known if isinstance(known, dict) else {}
        missing = sorted(wanted - known.keys())
        for text in missing:
            known[text] = list(extract(text, lang).countries)
        if missing:
            derived.store(path, known)
        found.update(((text, lang), list(known[text])) for text in wanted)
    return found


RESCORED_TABLES = (
    "core.extractions",
    "core.extraction_spans",
    "core.scores",
    "core.name_matches",
    "core.choice_extractions",
    "core.score_models",  # a model-computed score's model: written beside core.scores, so cleared with it
)


def clear_for_rescore(con: duckdb.DuckDBPyConnection, task_ids: list[str]) -> None:
    """Remove the earlier rows of every answer a rescore redoes (every answer of `task_ids`), one statement per
    table, before the chunks are written as a first scoring writes them: a DELETE per chunk and table scanned each
    table again for every chunk (19 s of a 468,360-answer rescore's stage, measured on a shared machine), and each
    table is rebuilt rather than deleted from (`delete_rebuilding`: the commit of the DELETEs cost 29 CPU-s on the
    demo). Committed on its own: a rescore killed after it leaves these answers unscored, which the next `score`
    (plain or --rescore) finds pending and scores, as it resumes any killed run."""
    if not task_ids:
        return
    listed = ", ".join(f"'{task_id}'" for task_id in task_ids)  # declared task ids (pipeline/tasks), not input
    rescored = f"""generation_id IN (SELECT g.generation_id FROM core.generations g JOIN core.items i USING (item_id)
                                     WHERE i.task_id IN ({listed}))"""
    with transaction(con):
        for table in RESCORED_TABLES:
            delete_rebuilding(con, table, rescored)


def check_gold_texts(con: duckdb.DuckDBPyConnection, rescore: bool = False) -> int:
    """Read each gold answer string with the country extractor: does it name the item's gold country?
    (WorldCuisines' Cantonese strings mostly name another one, which the paper's substring rule inherits.)"""
    extractor_name, extract = get_extractor("countries")
    stale = (
        ""
        if rescore
        else """AND NOT EXISTS (SELECT 1 FROM core.gold_text_checks c
                                WHERE c.item_id = t.item_id AND c.lang = t.lang AND c.extractor = $extractor)"""
    )
    rows = con.execute(
        f"""SELECT t.item_id, t.lang, t.text,
                   coalesce((SELECT list(country) FROM core.item_gold_countries g WHERE g.item_id = t.item_id), [])
            FROM core.item_gold_text t WHERE true {stale}""",
        {"extractor": extractor_name} if not rescore else {},
    ).fetchall()
    checks = []
    texts: dict[str, set[str]] = {}  # a gold string recurs across items (6,117 distinct of 18,000)
    for _, lang, text, _ in rows:
        texts.setdefault(lang, set()).add(text)
    found = gold_readings(texts, extractor_name, extract)
    for item_id, lang, text, gold in rows:
        countries = found[text, lang]
        status = "names_gold" if set(countries) & set(gold) else ("names_other" if countries else "names_none")
        checks.append(
            {"item_id": item_id, "lang": lang, "extractor": extractor_name, "countries": countries, "status": status}
        )
    if checks:
        with transaction(con):
            con.execute(
                "DELETE FROM core.gold_text_checks WHERE item_id || chr(31) || lang IN (SELECT unnest(?))",
                [[c["item_id"] + chr(31) + c["lang"] for c in checks]],
            )
            insert(con, "core.gold_text_checks", pl.DataFrame(checks, schema=_GOLD_CHECK_SCHEMA))
    return len(checks)


class _Results:
    """Results computed once per distinct input and kept by id, in columns: models repeat answers ("Italy", "2")
    across items and models, and every extractor, metric and the language detector is a pure function of its
    inputs, so a run computes each distinct input once and gathers the rows of a chunk by id."""

    def __init__(self, schema: dict[str, pl.DataType]) -> None:
        self.schema = schema
        self.ids: dict[Hashable, int] = {}
        self._new: list[list] = [[] for _ in schema]  # results not yet in the frame, by column
        self._frame = pl.DataFrame(schema=schema)

    def ids_of(self, keys: Iterable[Hashable], compute: Callable[[Any], tuple]) -> list[int]:
        """The id of each key's result; `compute(key)` (the values of `schema`'s columns, in order) only for a new
        key. No closure per row: most rows repeat an earlier key, and building one for each cost more than the
        look-up."""
        known, new, out = self.ids, self._new, []
        for key in keys:
            found = known.get(key)
            if found is None:
                found = known[key] = len(known)
                for column, value in zip(new, compute(key), strict=True):
                    column.append(value)
            out.append(found)
        return out

    @property
    def frame(self) -> pl.DataFrame:
        """Every result so far, row i holding id i."""
        if self._new and self._new[0]:
            added = pl.DataFrame([_series(n, v, t) for (n, t), v in zip(self.schema.items(), self._new, strict=True)])
            self._frame = self._frame.vstack(added)
            self._new = [[] for _ in self.schema]
        return self._frame

    def gather(self, ids: list[int]) -> pl.DataFrame:
        """One row per id, in the order given."""
        return self.frame[pl.Series(ids, dtype=pl.UInt32)]


def _series(name: str, values: list, dtype: pl.DataType) -> pl.Series:
    """A column from Python values; list columns through Arrow, which builds them many times faster than polars."""
    if isinstance(dtype, pl.List):
        return pl.Series(name, pa.array(values, type=pl.Series(dtype=dtype).to_arrow().type))
    return pl.Series(name, values, dtype=dtype)


@dataclass
class _Memo:
    """One `score` run's results by distinct input (see `_Results`), shared by the tasks of the run."""

    extractions: dict[str, _Results] = field(default_factory=dict)  # extractor -> (response, lang) -> extraction
    spans: dict[str, list[tuple]] = field(default_factory=dict)  # extractor -> span rows by extraction id
    values: dict[tuple, _Results] = field(default_factory=dict)  # metric names -> inputs -> one value each
    names: dict[tuple, _Results] = field(default_factory=dict)  # metric names -> name inputs -> values + match
    choices: dict[str, _Results] = field(default_factory=dict)  # extractor -> (response, lang, options) -> reading
    papers: _Results = field(default_factory=lambda: _Results(_PAPER_SCHEMA))  # (response, prompt) -> paper rule
    paper_reads: list = field(default_factory=list)  # the paper rule's number by paper id, as the metric reads it
    metrics: dict[str, dict] = field(default_factory=dict)  # task id -> its metric functions by name

    def trim(self, limit: int) -> None:
        """Forget every result once more than `limit` distinct inputs are kept: the memo holds its inputs' texts,
        and a lab's millions of answers (distinct ones growing with every model) would all stay in memory. Real
        answers repeat within a few chunks ("Italy", "2"), so a memo emptied now and then still finds most repeats;
        results are pure functions of their inputs, so the rows are the same."""
        kept = sum(len(r.ids) for group in (self.extractions, self.values, self.names, self.choices)
                   for r in group.values()) + len(self.papers.ids)  # fmt: skip
        if kept > limit:
            metrics = self.metrics
            self.__init__()
            self.metrics = metrics


def score_chunk(
    task: Task, chunk: pl.DataFrame, names_context: names.NamesContext | None, memo: _Memo
) -> dict[str, pl.DataFrame]:
    """The rows one chunk of a task's pending answers adds, by table: a pure function of the chunk (and the dish-name
    context), so any process can compute it (`--executor ray`) while one writes it (`store_chunk`). `memo` keeps
    the results of distinct inputs across the chunks one process scores."""
    memo.trim(MEMO_LIMIT)
    extractor_name, extract = get_extractor(task.extractor)
    metrics = memo.metrics.get(task.task_id)
    if metrics is None:
        metrics = memo.metrics[task.task_id] = {name: get_metric(name) for name in task.metrics}
    if task.answer_kind == "choice":
        return _choice_rows(chunk, extractor_name, extract, metrics, memo, task.dataset)
    return _answer_rows(chunk, extractor_name, extract, metrics, task.answer_kind, names_context, memo)


def store_chunk(con: duckdb.DuckDBPyConnection, chunk: pl.DataFrame, rows: dict[str, pl.DataFrame]) -> None:
    """One chunk's rows in one transaction, after removing its answers' earlier rows from the same tables."""
    with transaction(con):
        for table in rows:
            _delete(con, table, chunk)
        for table, frame in rows.items():
            insert(con, table, frame)


def _answer_rows(
    chunk: pl.DataFrame,
    extractor_name: str,
    extract,
    metrics: dict,
    answer_kind: str,
    names_context: names.NamesContext | None,
    memo: _Memo,
) -> dict[str, pl.DataFrame]:
    now = datetime.now(UTC).replace(tzinfo=None)
    ids, langs, responses = chunk["generation_id"], chunk["lang"].to_list(), chunk["response"].to_list()
    extracted = memo.extractions.setdefault(extractor_name, _Results(_EXTRACTED_SCHEMA))
    spans_of = memo.spans.setdefault(extractor_name, [])

    readings = chunk["reading"].to_list() if "reading" in chunk.columns else [None] * chunk.height

    def extraction(response: str | None, lang: str, reading: str | None) -> tuple:
        result = extract(response, lang) if reading is None else extract(response, lang, reading=reading)
        spans_of.append(tuple((s.start, s.end, s.text, s.country, s.region, s.negated, s.via) for s in result.spans))
        return (
            result.status,
            list(result.countries),
            list(result.regions),
            list(result.dish_names),
            reading,
            None if reading is None else list(result.mentioned),
        )

    keys = extracted.ids_of(zip(responses, langs, readings, strict=True), lambda key: extraction(*key))
    extractions = extracted.gather(keys).with_columns(
        generation_id=ids,
        extractor=pl.lit(extractor_name),
        extracted_at=pl.lit(now, dtype=pl.Datetime("us")),
    )
    span_rows = [(generation_id, *span) for generation_id, key in zip(ids, keys, strict=True) for span in spans_of[key]]
    spans = pl.DataFrame(
        [_series(n, list(v), t) for (n, t), v in zip(_SPAN_SCHEMA.items(), zip(*span_rows, strict=True), strict=True)]
        if span_rows
        else None,
        schema=_SPAN_SCHEMA,
    )
    name_matches = pl.DataFrame(schema=_NAME_MATCH_SCHEMA)
    if answer_kind == "dish_name" and names_context is not None:
        scores, name_matches = _name_scores(memo, names_context, chunk, responses, langs, extractions, metrics)
    else:
        scores = _metric_scores(memo, chunk, responses, extractions, metrics)
    return {
        "core.extractions": extractions.select(list(_EXTRACTION_SCHEMA)),
        "core.extraction_spans": spans,
        "core.scores": scores,
        "core.name_matches": name_matches,
        SCORE_MODELS: _score_models(scores, metrics),
    }


# A metric computed by a model (BERTScore) names it with `scored_by()`; the model is stored per answer.
SCORE_MODELS = "core.score_models"


def _score_models(scores: pl.DataFrame, metrics: dict) -> pl.DataFrame:
    """(generation_id, metric, model) for each stored score of a metric that a model computed."""
    models = {name: fn.scored_by() for name, fn in metrics.items() if hasattr(fn, "scored_by")}
    schema = {"generation_id": pl.String, "metric": pl.String, "model": pl.String}
    if not models or not scores.height:
        return pl.DataFrame(schema=schema)
    return (
        scores.filter(pl.col("metric").is_in(list(models)))
        .select(
            "generation_id", "metric", pl.col("metric").replace_strict(models, return_dtype=pl.String).alias("model")
        )
        .select(list(schema))
    )


def _metric_scores(
    memo: _Memo, chunk: pl.DataFrame, responses: list, extractions: pl.DataFrame, metrics: dict
) -> pl.DataFrame:
    """The declared metrics of each answer, each computed once per distinct input: the extracted countries
    against the gold countries, the answer's text against the gold text, (only where the gold names a UK
    nation) the countries and regions against the gold with its nations, or (where the extractor kept them)
    every country the answer names, BORSch's rule (§4.1), against the gold countries."""
    frames = []
    by_input: dict[str, list[str]] = {"extracted": [], "text": [], "nations": [], "paper_countries": []}
    for name, fn in metrics.items():
        by_input.get(_reads(fn), by_input["extracted"]).append(name)
    countries, regions = extractions["countries"].to_list(), extractions["regions"].to_list()
    golds = chunk["gold"].to_list()
    gold_texts = chunk["gold_text"].to_list() if "gold_text" in chunk.columns else [None] * chunk.height
    for reads, names_ in by_input.items():
        if not names_:
            continue
        results = memo.values.setdefault((reads, *names_), _Results(dict.fromkeys(names_, pl.Float64)))
        fns = [metrics[name] for name in names_]
        rows = range(chunk.height)
        if reads == "text":
            keys = results.ids_of(zip(responses, gold_texts, strict=True), lambda pair, fns=fns: _values(fns, *pair))
        elif reads == "nations":  # only where the gold names a UK nation; the regions name nations too
            rows = [row for row, gold in enumerate(golds) if any(code in UK_NATIONS for code in gold)]
            keys = results.ids_of(
                ((tuple(countries[row]), tuple(regions[row]), tuple(golds[row])) for row in rows),
                lambda key, fns=fns: _values(fns, [*key[0], *key[1]], list(key[2])),
            )
        else:  # the countries of the gold (without its UK nations)
            if reads == "paper_countries":  # NULL where the extractor keeps no paper reading: no score stored
                read = extractions["paper_countries"].to_list()
                rows = [row for row, named in enumerate(read) if named is not None]
            else:
                read = countries
            keys = results.ids_of(
                ((tuple(read[row]), tuple(code for code in golds[row] if code not in UK_NATIONS)) for row in rows),
                lambda key, fns=fns: _values(fns, list(key[0]), list(key[1])),
            )
        ids = chunk["generation_id"] if isinstance(rows, range) else chunk["generation_id"].gather(rows)
        frames.append(results.gather(keys).with_columns(generation_id=ids))
    return _long_scores(frames)


def _values(fns: list, pred, gold) -> tuple[float, ...]:
    return tuple(float(fn(pred, gold)) for fn in fns)


def _long_scores(frames: list[pl.DataFrame]) -> pl.DataFrame:
    """(generation_id, metric, value) rows from frames of one column per metric."""
    long = [frame.unpivot(index="generation_id", variable_name="metric", value_name="value") for frame in frames]
    return pl.concat(long).select(list(_SCORE_SCHEMA)) if long else pl.DataFrame(schema=_SCORE_SCHEMA)


def _name_scores(
    memo: _Memo,
    context: names.NamesContext,
    chunk: pl.DataFrame,
    responses: list,
    langs: list,
    extractions: pl.DataFrame,
    metrics: dict,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """NamesContext.score once per distinct (answer, language, candidates, gold): its metric values and the
    core.name_matches row."""
    results = memo.names.setdefault(
        tuple(metrics), _Results({**dict.fromkeys(metrics, pl.Float64), **_NAME_MATCH_VALUES})
    )

    def compute(key: tuple) -> tuple:
        response, lang, candidates, gold_names, paper, dish_key = key
        gold = {"names": [{"name": n, "lang": g} for n, g in gold_names], "paper": paper, "dish_key": dish_key}
        values, match = context.score("", response, lang, candidates, gold, metrics)
        return (*(values[name] for name in metrics), *(match[column] for column in _NAME_MATCH_VALUES))

    keys = results.ids_of(
        (
            (
                response,
                lang,
                tuple(candidates),
                tuple((n["name"], n["lang"]) for n in gold["names"]),
                gold.get("paper"),
                gold.get("dish_key"),
            )
            for response, lang, candidates, gold in zip(
                responses, langs, extractions["dish_names"].to_list(), chunk["gold"].to_list(), strict=True
            )
        ),
        compute,
    )
    rows = results.gather(keys).with_columns(generation_id=chunk["generation_id"])
    scores = _long_scores([rows.select("generation_id", *metrics)] if metrics else [])
    return scores, rows.select(list(_NAME_MATCH_SCHEMA))


def _delete(con, table: str, chunk: pl.DataFrame) -> None:
    """Remove a chunk's earlier rows (a rescore, or an answer re-imported since); a first scoring has none."""
    earlier = chunk.filter("scored_before").select("generation_id")
    if not earlier.height:
        return
    con.register("_chunk_ids", earlier)
    try:
        con.execute(f"DELETE FROM {table} WHERE generation_id IN (SELECT generation_id FROM _chunk_ids)")
    finally:
        con.unregister("_chunk_ids")


def _reads(metric) -> str:
    return getattr(metric, "reads", "extracted")


def _choice_rows(
    chunk: pl.DataFrame, extractor_name: str, extract, metrics: dict, memo: _Memo, dataset: str = ""
) -> dict[str, pl.DataFrame]:
    """Multiple choice: our reading and the paper's rule's reading of each answer, and both scores. The paper's
    rule is WorldCuisines' number parsing, or ZNO-Vision's last bracketed letter for the ZNO exam."""
    now = datetime.now(UTC).replace(tzinfo=None)
    ids, langs, responses = chunk["generation_id"], chunk["lang"].to_list(), chunk["response"].to_list()
    readings = memo.choices.setdefault(extractor_name, _Results(_READING_SCHEMA))
    papers = memo.papers

    def reading(response: str | None, lang: str, options: tuple) -> tuple:
        result = extract(response, lang, options)
        return result.status, result.choices[0] if result.status == "ok" else None, list(result.choices)

    def paper(response: str | None, prompt: str | None, letters: str | None) -> tuple:
        found = paper_last_bracket(response, letters) if letters is not None else paper_choice(response, prompt)
        memo.paper_reads.append(found.choice)
        return found.status, found.choice if found.choice is not None and abs(found.choice) < 2**31 else None

    reading_keys = readings.ids_of(
        (
            (response, lang, tuple(options or ()))
            for response, lang, options in zip(responses, langs, chunk["options"].to_list(), strict=True)
        ),
        lambda key: reading(*key),
    )
    letters = chunk["letters"].to_list() if dataset == "zno" else [None] * chunk.height
    paper_keys = papers.ids_of(zip(responses, chunk["prompt"].to_list(), letters, strict=True), lambda key: paper(*key))
    ours, theirs = readings.gather(reading_keys), papers.gather(paper_keys)
    extractions = pl.DataFrame(
        {
            "generation_id": ids,
            "extractor": extractor_name,
            "status": ours["status"],
            "choice": ours["choice"],
            "choices": ours["choices"],
            "paper_choice": theirs["paper_choice"],
            "paper_status": theirs["paper_status"],
            "extracted_at": now,
        },
        schema=_CHOICE_SCHEMA,
    )
    names_ = list(metrics)
    values = memo.values.setdefault(("choice", *names_), _Results(dict.fromkeys(names_, pl.Float64)))
    fns = [metrics[name] for name in names_]

    def scored(choice, paper_read, gold) -> tuple:
        read = {"choice": choice, "paper_choice": paper_read}
        return tuple(float(fn(read.get(_reads(fn)), gold)) for fn in fns)

    keys = values.ids_of(
        zip(
            ours["choice"].to_list(),
            [memo.paper_reads[key] for key in paper_keys],
            chunk["gold"].to_list(),
            strict=True,
        ),
        lambda key: scored(*key),
    )
    scores = _long_scores([values.gather(keys).with_columns(generation_id=ids)] if names_ else [])
    return {"core.choice_extractions": extractions, "core.scores": scores}


_EXTRACTION_SCHEMA = {
    "generation_id": pl.String,
    "extractor": pl.String,
    "status": pl.String,
    "countries": pl.List(pl.String),
    "regions": pl.List(pl.String),
    "dish_names": pl.List(pl.String),
    "extracted_at": pl.Datetime("us"),
    "reading": pl.String,
    "paper_countries": pl.List(pl.String),
}
_SPAN_SCHEMA = {
    "generation_id": pl.String,
    "span_start": pl.Int32,
    "span_end": pl.Int32,
    "text": pl.String,
    "country": pl.String,
    "region": pl.String,
    "negated": pl.Boolean,
    "via": pl.String,  # issue 38: the kind of name that found it (place, historic, near_miss, ...)
}
_CHOICE_SCHEMA = {
    "generation_id": pl.String,
    "extractor": pl.String,
    "status": pl.String,
    "choice": pl.Int32,
    "choices": pl.List(pl.Int32),
    "paper_choice": pl.Int64,
    "paper_status": pl.String,
    "extracted_at": pl.Datetime("us"),
}
_GOLD_CHECK_SCHEMA = {
    "item_id": pl.String,
    "lang": pl.String,
    "extractor": pl.String,
    "countries": pl.List(pl.String),
    "status": pl.String,
}
# what an extraction is, per distinct (answer, language), before it is tied to a generation (the answer's language,
# a function of its text alone, is added then), before it is tied to a generation
_EXTRACTED_SCHEMA = {
    "status": pl.String,
    "countries": pl.List(pl.String),
    "regions": pl.List(pl.String),
    "dish_names": pl.List(pl.String),
    "reading": pl.String,  # what the question asked (origin | served), for the countries extractor
    "paper_countries": pl.List(pl.String),  # BORSch's rule (§4.1): every country named, for the countries extractor
}
_READING_SCHEMA = {"status": pl.String, "choice": pl.Int32, "choices": pl.List(pl.Int32)}
# the paper rule's reading as core.choice_extractions keeps it (a number beyond int32 is not kept)
_PAPER_SCHEMA = {"paper_status": pl.String, "paper_choice": pl.Int64}
_SCORE_SCHEMA = {"generation_id": pl.String, "metric": pl.String, "value": pl.Float64}
_NAME_MATCH_VALUES = {
    "matched_name": pl.String,
    "matched_lang": pl.String,
    "matched_rule": pl.String,
    "named_dish_key": pl.String,
    "named_name": pl.String,
    "candidates": pl.List(pl.String),
}
_NAME_MATCH_SCHEMA = {"generation_id": pl.String, **_NAME_MATCH_VALUES}
