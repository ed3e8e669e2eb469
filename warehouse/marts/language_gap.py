"""marts.language_gap, marts.language_gap_items: how much worse (or better) each prompt language does than
English on the same items, per dataset, task, model and scoring method.

A dataset asked in several languages (WorldCuisines: the same 500 origin items in 30 language variants)
lets each model be compared with itself: only the items it answered both in English and in that language
count (paired by item and prompt variant), so a language is never judged on easier items than English.

- `accuracy`, `accuracy_en`: percent right on those paired items, in the language and in English;
  `gap` = accuracy - accuracy_en (percentage points, negative = worse than English).
- `low`, `high`: a paired percentile-bootstrap 95% interval of the gap. Items are resampled together
  with their English answer, so the interval is that of the mean per-item difference (lang - en). The
  differences take few distinct values (-1, 0, 1 for a right/wrong score), so drawing n items with
  replacement is drawn exactly as a multinomial over those values: vectorised, and its cost does not grow
  with n. Each row's generator is seeded from its own keys, so a republish gives the same interval and
  adding a model changes no other row.
- `method`: `atlas` (our extractors' score) or `paper` (the benchmark's own rule), as marts.accuracy;
  `metric` names the per-answer score used (the first of the method's metrics the task is scored with).
- `script`: the writing system of the prompt language, read from its prompts (the script most of their
  letters are written in), so a page can filter Latin, Cyrillic, Arabic, ... languages.

marts.language_gap_items holds the discordant pairs behind each row: `lost` (right in English, wrong in
the language) and `gained` (the reverse), with both answers side by side: each side's `generation_id` and that
answer's `response` (where several answers share an item, variant and language, their scores are averaged and the
first by id is the one shown: its id and its text).
"""

from __future__ import annotations

import functools
import unicodedata
import zlib
from collections import Counter

import duckdb
import numpy as np
import polars as pl

RESAMPLES = 2000
SEED = 36
ENGLISH = "en"

# Per method, the per-answer scores that say "right" (first one a task is scored with is used). `atlas`
# is ours, `paper` each benchmark's own rule (as marts.accuracy.METHOD_METRICS, plus dish names, and
# UACUISINE's exact match at stem level for its name, taste and temperature questions).
METHOD_METRICS: dict[str, tuple[str, ...]] = {
    "atlas": ("accuracy", "choice_accuracy", "name_lev1", "name_stem", "taste_match", "temperature_match"),
    "paper": (
        "paper_substring",
        "paper_choice_accuracy",
        "name_paper",
        "name_stem",
        "stem_exact",
    ),
}


def paired_bootstrap(
    differences: np.ndarray, rng: np.random.Generator, resamples: int = RESAMPLES
) -> tuple[float, float]:
    """Percentile 95% interval of the mean of per-item differences, items resampled with replacement."""
    if len(differences) == 0:
        return (float("nan"), float("nan"))
    distinct, counts = np.unique(differences, return_counts=True)
    draws = rng.multinomial(len(differences), counts / len(differences), size=resamples)  # resamples x distinct
    means = draws @ distinct / len(differences)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def row_rng(*keys: str) -> np.random.Generator:
    """A generator seeded from the row's own keys (stable across runs and independent of other rows)."""
    return np.random.default_rng([SEED, zlib.crc32("\x1f".join(keys).encode("utf-8"))])


@functools.cache
def _script_word(char: str) -> str:
    """The first word of a letter's Unicode name (its script), "" for other characters; looked up once per character:
    the names of every letter of 50 prompts per language were most of this mart's time on a small warehouse."""
    if not char.isalpha():
        return ""
    word = unicodedata.name(char, "").split(" ", 1)[0]
    if word == "CJK":
        return "HAN"
    return "KANA" if word in ("HIRAGANA", "KATAKANA") else word


def script_of(texts: list[str]) -> str:
    """The Unicode script the letters of `texts` are mostly written in ("Latin", "Cyrillic", "Han", ...); Japanese
    kana count as "Kana". Empty when the texts hold no letters."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(filter(None, map(_script_word, text)))
    if not counts:
        return ""
    # Latin letters creep into prompts of every language (English instructions, dish names, options): a
    # language whose texts hold a fifth or more of letters of another script is written in that script.
    others = [(n, script) for script, n in counts.most_common() if script != "LATIN"]
    if others and others[0][0] >= 0.2 * sum(counts.values()):
        return others[0][1].title()
    return counts.most_common(1)[0][0].title()


PAIRS_SQL = """
WITH methods AS (SELECT * FROM (VALUES {values}) AS v(method, metric, priority)),
task_metric AS (  -- per task and method, the first of the method's metrics the task is scored with
    SELECT i.task_id, m.method, arg_min(m.metric, m.priority) AS metric
    FROM core.scores s JOIN core.generations g USING (generation_id) JOIN core.items i USING (item_id)
    JOIN methods m ON m.metric = s.metric
    GROUP BY ALL
),
answers AS (  -- one score per (task, model, item, variant, language): several answers are averaged
    SELECT tm.method, tm.metric, i.task_id, g.model_id, g.item_id, g.variant, g.lang,
           avg(s.value) AS value, min(g.generation_id) AS generation_id
    FROM core.scores s JOIN core.generations g USING (generation_id) JOIN core.items i USING (item_id)
    JOIN task_metric tm ON tm.task_id = i.task_id AND tm.metric = s.metric
    WHERE s.value IS NOT NULL AND NOT isnan(s.value)
    GROUP BY ALL
)
SELECT t.dataset, split_part(t.task_id, '.', 2) AS task, a.model_id AS model, a.lang, a.method, a.metric,
       a.item_id AS core_item_id, a.variant, a.value, e.value AS value_en, a.generation_id,
       e.generation_id AS generation_id_en, t.task_id
FROM answers a
JOIN answers e ON e.method = a.method AND e.task_id = a.task_id AND e.model_id = a.model_id
     AND e.item_id = a.item_id AND e.variant = a.variant AND e.lang = '{english}'
JOIN core.tasks t ON t.task_id = a.task_id
WHERE a.lang <> '{english}'
"""

# The discordant pairs (right in one language, wrong in the other) with their texts: the answers themselves (those
# whose ids the pair holds), the item's dish and gold in both languages. Joined here, for these pairs only, and not
# carried through the pairing of every answer (at 4.7 million answers, carrying the texts through it cost about a
# quarter of this mart's SQL).
ITEMS_SQL = """
SELECT p.dataset, p.task, p.model, p.lang, p.method, p.metric, it.source_ref AS item_id, p.variant, p.value,
       p.value_en, g.response, ge.response AS response_en, p.generation_id, p.generation_id_en, it.dish_key,
       d.dish_name, p.task_id, gl.text AS gold, gt.text AS gold_en
FROM _language_pairs p
JOIN core.items it ON it.item_id = p.core_item_id
JOIN core.generations g ON g.generation_id = p.generation_id
JOIN core.generations ge ON ge.generation_id = p.generation_id_en
LEFT JOIN (SELECT dish_key, any_value(display_name ORDER BY lang) AS dish_name FROM marts.dishes GROUP BY ALL) d
     ON d.dish_key = it.dish_key
LEFT JOIN core.item_gold_text gl ON gl.item_id = p.core_item_id AND gl.lang = p.lang
LEFT JOIN core.item_gold_text gt ON gt.item_id = p.core_item_id AND gt.lang = '{english}'
WHERE p.value <> p.value_en
"""


def _scripts(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], str]:
    """(dataset, lang) -> script, from 50 of the language's prompts (a fixed sample spread over its tasks),
    or its gold texts where it has no prompts; only for the languages of the pairs (_language_pairs): a warehouse of
    WorldCuisines' 30 languages with answers in a few spent most of this mart's time naming the others' scripts."""
    rows = con.sql(
        """
        WITH paired AS (SELECT DISTINCT dataset, lang FROM _language_pairs),
        texts AS (
            SELECT t.dataset, p.lang, p.text, 0 AS rank FROM core.item_prompts p JOIN core.items i USING (item_id)
            JOIN core.tasks t USING (task_id)
            UNION ALL
            SELECT t.dataset, g.lang, g.text, 1 AS rank FROM core.item_gold_text g JOIN core.items i USING (item_id)
            JOIN core.tasks t USING (task_id)
        ),
        best AS (SELECT dataset, lang, min(rank) AS rank FROM texts JOIN paired USING (dataset, lang) GROUP BY ALL)
        SELECT dataset, lang, list(text ORDER BY hash(text), text)[1:50] AS texts
        FROM texts JOIN best USING (dataset, lang, rank) GROUP BY ALL
        """
    ).fetchall()
    return {(dataset, lang): script_of(texts) for dataset, lang, texts in rows}


def build(con: duckdb.DuckDBPyConnection) -> None:
    values = ", ".join(
        f"('{method}', '{metric}', {rank})"
        for method, metrics in METHOD_METRICS.items()
        for rank, metric in enumerate(metrics)
    )
    # The pairs stay in DuckDB: the gaps read nine narrow columns of them, the items only the pairs whose value
    # changed, joined to their texts (ITEMS_SQL; fetching nineteen columns of the demo's 905,000 pairs, texts
    # included, was half of this mart's 6 CPU-s).
    con.execute(f"CREATE OR REPLACE TEMP TABLE _language_pairs AS {PAIRS_SQL.format(values=values, english=ENGLISH)}")
    scripts = _scripts(con)
    keys = ["method", "dataset", "task", "model", "lang"]
    rows = []
    narrow = con.sql(f"SELECT {', '.join(keys)}, value, value_en, metric, task_id FROM _language_pairs").pl()
    for key, group in narrow.group_by(keys, maintain_order=True):
        method, dataset, task, model, lang = (str(k) for k in key)
        value = group["value"].to_numpy().astype(float)
        value_en = group["value_en"].to_numpy().astype(float)
        low, high = paired_bootstrap(value - value_en, row_rng(method, dataset, task, model, lang))
        accuracy, accuracy_en = float(value.mean()) * 100, float(value_en.mean()) * 100
        rows.append(
            {
                "dataset": dataset,
                "model": model,
                "task": task,
                "lang": lang,
                "n": len(group),
                "accuracy": accuracy,
                "accuracy_en": accuracy_en,
                "gap": accuracy - accuracy_en,
                "low": low * 100,
                "high": high * 100,
                "method": method,
                "metric": group["metric"][0],
                "script": scripts.get((dataset, lang), ""),
                "n_lost": int((value_en > value).sum()),
                "n_gained": int((value > value_en).sum()),
                "task_id": group["task_id"][0],
            }
        )
    frame = pl.DataFrame(rows, schema=SCHEMA)
    con.register("_language_gap", frame)
    con.execute(
        "CREATE OR REPLACE TABLE marts.language_gap AS SELECT * FROM _language_gap "
        "ORDER BY method, dataset, task, model, gap, lang"
    )
    con.unregister("_language_gap")

    items = con.sql(ITEMS_SQL.format(english=ENGLISH)).pl()
    con.execute("DROP TABLE _language_pairs")
    items = items.with_columns(
        pl.when(pl.col("value_en") > pl.col("value")).then(pl.lit("lost")).otherwise(pl.lit("gained")).alias("change"),
        pl.concat_str("dataset", "lang", separator="\x1f")  # one look-up per row, vectorised (not a Python call each)
        .replace_strict({f"{d}\x1f{lang}": script for (d, lang), script in scripts.items()}, default="")
        .cast(pl.String)
        .alias("script"),
    )
    items = items.select(list(ITEM_SCHEMA)) if items.height else pl.DataFrame(schema=ITEM_SCHEMA)
    con.register("_language_gap_items", items)
    con.execute(
        "CREATE OR REPLACE TABLE marts.language_gap_items AS SELECT * FROM _language_gap_items "
        "ORDER BY method, dataset, task, model, lang, change, try_cast(item_id AS BIGINT) NULLS LAST, item_id, variant"
    )
    con.unregister("_language_gap_items")


SCHEMA = {
    "dataset": pl.String,
    "model": pl.String,
    "task": pl.String,
    "lang": pl.String,
    "n": pl.Int64,
    "accuracy": pl.Float64,
    "accuracy_en": pl.Float64,
    "gap": pl.Float64,
    "low": pl.Float64,
    "high": pl.Float64,
    "method": pl.String,
    "metric": pl.String,
    "script": pl.String,
    "n_lost": pl.Int64,
    "n_gained": pl.Int64,
    "task_id": pl.String,
}

ITEM_SCHEMA = {
    "method": pl.String,
    "dataset": pl.String,
    "task": pl.String,
    "model": pl.String,
    "lang": pl.String,
    "item_id": pl.String,
    "variant": pl.String,
    "change": pl.String,
    "gold_en": pl.String,
    "response_en": pl.String,
    "gold": pl.String,
    "response": pl.String,
    "value_en": pl.Float64,
    "value": pl.Float64,
    "script": pl.String,
    "metric": pl.String,
    "generation_id_en": pl.String,
    "generation_id": pl.String,
    "dish_key": pl.String,
    "dish_name": pl.String,
    "task_id": pl.String,
}
