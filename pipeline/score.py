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

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb
import polars as pl

from pipeline import names
from pipeline.countries import UK_NATIONS
from pipeline.extract import get_extractor
from pipeline.extract.choice import paper_choice
from pipeline.extract.language import answer_language
from pipeline.metrics import get_metric
from pipeline.tasks import Task, registry
from warehouse.io import insert, transaction

CHUNK = 20_000


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
    "text": "[]",
    "choice": """(SELECT c.choice FROM core.item_gold_choices c WHERE c.item_id = g.item_id AND c.lang = g.lang)""",
}
# The gold answer as written in the prompt language (WorldCuisines answer_<lang>), for the paper's rule;
# for multiple choice, the option texts in order and the prompt (the paper's rule searches it).
EXTRA_SQL = {
    "choice": """(SELECT list(o.text ORDER BY o.option) FROM core.item_options o
                  WHERE o.item_id = g.item_id AND o.lang = g.lang) AS options,
                 (SELECT min(p.text) FROM core.item_prompts p
                  WHERE p.item_id = g.item_id AND p.lang = g.lang) AS prompt""",
}
DEFAULT_EXTRA_SQL = """(SELECT t.text FROM core.item_gold_text t
                  WHERE t.item_id = g.item_id AND t.lang = g.lang) AS gold_text,
                 NULL AS prompt"""
STALE_SQL = """AND NOT EXISTS (SELECT 1 FROM {table} e WHERE e.generation_id = g.generation_id
                               AND e.extractor = ? AND e.extracted_at >= g.created_at)"""


def pending(con: duckdb.DuckDBPyConnection, task: Task, extractor: str, rescore: bool) -> list[tuple]:
    """(generation_id, lang, response, gold, gold_text or options, prompt) of what needs (re)scoring."""
    table = "core.choice_extractions" if task.answer_kind == "choice" else "core.extractions"
    stale, params = ("", [task.task_id]) if rescore else (STALE_SQL.format(table=table), [task.task_id, extractor])
    return con.execute(
        f"""
        SELECT g.generation_id, g.lang, g.response, {GOLD_SQL[task.answer_kind]} AS gold,
               {EXTRA_SQL.get(task.answer_kind, DEFAULT_EXTRA_SQL)}
        FROM core.generations g JOIN core.items i USING (item_id)
        WHERE i.task_id = ? {stale}
        ORDER BY g.generation_id
        """,
        params,
    ).fetchall()


def score(
    con: duckdb.DuckDBPyConnection,
    rescore: bool = False,
    on_chunk: Callable[[int, int], None] | None = None,
) -> ScoreSummary:
    """Extract and score every pending generation of every task in the warehouse."""
    summary = ScoreSummary()
    started = time.perf_counter()
    declared = {row[0] for row in con.execute("SELECT task_id FROM core.tasks").fetchall()}
    names_context: names.NamesContext | None = None
    for task in registry().values():
        if task.task_id not in declared:
            continue
        if task.answer_kind not in GOLD_SQL:
            raise ValueError(
                f"task {task.task_id}: answer kind {task.answer_kind!r} has no gold to score against "
                f"(known: {', '.join(sorted(GOLD_SQL))}); declare its gold in pipeline/score.py GOLD_SQL and "
                "register an extractor for it before its answers can be scored"
            )
        extractor_name, extract = get_extractor(task.extractor)
        metrics = {name: get_metric(name) for name in task.metrics}
        rows = pending(con, task, extractor_name, rescore)
        if rows and task.answer_kind == "dish_name" and names_context is None:
            names_context = names.NamesContext.load(con)
        for chunk in _chunks(rows, CHUNK):
            if task.answer_kind == "choice":
                _write_choices(con, chunk, extractor_name, extract, metrics, task.answer_kind)
            else:
                _write(con, chunk, extractor_name, extract, metrics, task.answer_kind, names_context)
            summary.scored += len(chunk)
            if on_chunk:
                on_chunk(len(chunk), len(rows))
    check_gold_texts(con, rescore)
    summary.seconds = time.perf_counter() - started
    return summary


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
    for item_id, lang, text, gold in rows:
        countries = list(extract(text, lang).countries)
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


def _write(
    con,
    chunk: list[tuple],
    extractor_name: str,
    extract,
    metrics: dict,
    answer_kind: str,
    names_context: names.NamesContext | None = None,
) -> None:
    now = datetime.now(UTC).replace(tzinfo=None)
    extractions, spans, scores, name_matches = [], [], [], []
    extract = functools.lru_cache(maxsize=1 << 16)(extract)  # models repeat short answers ("Italy") a lot
    for generation_id, lang, response, gold, gold_text, _prompt in chunk:
        result = extract(response, lang)
        extractions.append(
            {
                "generation_id": generation_id,
                "extractor": extractor_name,
                "status": result.status,
                "answer_lang": _answer_language(response),
                "countries": list(result.countries),
                "regions": list(result.regions),
                "dish_names": list(result.dish_names),
                "extracted_at": now,
            }
        )
        spans.extend(
            {
                "generation_id": generation_id,
                "span_start": s.start,
                "span_end": s.end,
                "text": s.text,
                "country": s.country,
                "region": s.region,
                "negated": s.negated,
            }
            for s in result.spans
        )
        if answer_kind == "dish_name" and names_context is not None:
            values, match = names_context.score(generation_id, response, lang, result.dish_names, gold, metrics)
            scores.extend({"generation_id": generation_id, "metric": k, "value": v} for k, v in values.items())
            name_matches.append(match)
            continue
        predicted = list(result.countries)
        nations = [code for code in gold if code in UK_NATIONS]
        countries = [code for code in gold if code not in UK_NATIONS] if nations else gold
        for name, fn in metrics.items():
            kind = _reads(fn)
            if kind == "nations":
                if not nations:
                    continue  # nation-level scoring applies only where the gold names a UK nation
                value = fn([*predicted, *result.regions], gold)
            else:
                value = fn(response, gold_text) if kind == "text" else fn(predicted, countries)
            scores.append({"generation_id": generation_id, "metric": name, "value": float(value)})
    ids = [row[0] for row in chunk]
    with transaction(con):
        for table in ("core.extractions", "core.extraction_spans", "core.scores", "core.name_matches"):
            con.execute(f"DELETE FROM {table} WHERE generation_id IN (SELECT unnest(?))", [ids])
        insert(con, "core.extractions", pl.DataFrame(extractions, schema=_EXTRACTION_SCHEMA))
        insert(con, "core.extraction_spans", pl.DataFrame(spans, schema=_SPAN_SCHEMA))
        insert(con, "core.scores", pl.DataFrame(scores, schema=_SCORE_SCHEMA))
        insert(con, "core.name_matches", pl.DataFrame(name_matches, schema=_NAME_MATCH_SCHEMA))


def _reads(metric) -> str:
    return getattr(metric, "reads", "extracted")


def _write_choices(con, chunk: list[tuple], extractor_name: str, extract, metrics: dict, answer_kind: str) -> None:
    """Multiple choice: our reading and the paper's rule's reading of each answer, and both scores."""
    now = datetime.now(UTC).replace(tzinfo=None)
    extractions, scores = [], []
    for generation_id, lang, response, gold, options, prompt in chunk:
        result = extract(response, lang, tuple(options or ()))
        paper = paper_choice(response, prompt)
        choice = result.choices[0] if result.status == "ok" else None
        extractions.append(
            {
                "generation_id": generation_id,
                "extractor": extractor_name,
                "status": result.status,
                "choice": choice,
                "choices": list(result.choices),
                "paper_choice": paper.choice if paper.choice is not None and abs(paper.choice) < 2**31 else None,
                "paper_status": paper.status,
                "extracted_at": now,
            }
        )
        read = {"choice": choice, "paper_choice": paper.choice}
        scores.extend(
            {"generation_id": generation_id, "metric": name, "value": float(fn(read.get(_reads(fn)), gold))}
            for name, fn in metrics.items()
        )
    ids = [row[0] for row in chunk]
    with transaction(con):
        for table in ("core.choice_extractions", "core.scores"):
            con.execute(f"DELETE FROM {table} WHERE generation_id IN (SELECT unnest(?))", [ids])
        insert(con, "core.choice_extractions", pl.DataFrame(extractions, schema=_CHOICE_SCHEMA))
        insert(con, "core.scores", pl.DataFrame(scores, schema=_SCORE_SCHEMA))


@functools.lru_cache(maxsize=1 << 16)
def _answer_language(text: str | None) -> str | None:
    return answer_language(text)


def _chunks(rows: list, size: int) -> Iterator[list]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


_EXTRACTION_SCHEMA = {
    "generation_id": pl.String,
    "extractor": pl.String,
    "status": pl.String,
    "answer_lang": pl.String,
    "countries": pl.List(pl.String),
    "regions": pl.List(pl.String),
    "dish_names": pl.List(pl.String),
    "extracted_at": pl.Datetime("us"),
}
_SPAN_SCHEMA = {
    "generation_id": pl.String,
    "span_start": pl.Int32,
    "span_end": pl.Int32,
    "text": pl.String,
    "country": pl.String,
    "region": pl.String,
    "negated": pl.Boolean,
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
_SCORE_SCHEMA = {"generation_id": pl.String, "metric": pl.String, "value": pl.Float64}
_NAME_MATCH_SCHEMA = {
    "generation_id": pl.String,
    "matched_name": pl.String,
    "matched_lang": pl.String,
    "matched_rule": pl.String,
    "named_dish_key": pl.String,
    "named_name": pl.String,
    "candidates": pl.List(pl.String),
}
